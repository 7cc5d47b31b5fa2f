// anafanafo ships no types; the badge test uses its measuring function only.
declare module "anafanafo" {
  export default function measure(text: string, options: { font: string; guess?: boolean }): number;
}

// The bindings only the tests have (vitest.config.ts): the migrations to apply, and a scratch
// database for the migration check.
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    TEST_SHARD_MIGRATIONS: import("cloudflare:test").D1Migration[];
    MIGRATION_CHECK: D1Database;
  }
}
