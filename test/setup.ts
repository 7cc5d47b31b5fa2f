import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

const migrations = env as unknown as { TEST_MIGRATIONS: D1Migration[]; TEST_SHARD_MIGRATIONS: D1Migration[] };
await applyD1Migrations(env.DB, migrations.TEST_MIGRATIONS);
for (const shard of [env.SHARD_0, env.SHARD_1!]) await applyD1Migrations(shard, migrations.TEST_SHARD_MIGRATIONS, "d1_shard_migrations");
