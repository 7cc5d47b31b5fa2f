// The deploy's plan: what the configuration needs, set against what the account holds. A dry run
// prints it and stops; a full run prints it and carries it out.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { appliedMigrations, type Account } from "./account";
import { bucketNames, databases, queueNames, type Database, type RawConfig, type Settings } from "./config";
import type { Wrangler } from "./wrangler";

export interface DatabasePlan extends Database {
  /** Its id in the account; none yet for a database the run creates. */
  id: string | undefined;
  /** The migration files not yet applied, in order. */
  pending: string[];
}

export interface Plan {
  login: string;
  worker: { name: string; exists: boolean };
  /** One per binding (a database bound twice, as a deployment from before sharding is, appears twice). */
  databases: DatabasePlan[];
  queues: { name: string; exists: boolean }[];
  buckets: { name: string; exists: boolean }[];
  secrets: { name: string; exists: boolean }[];
  settings: Settings;
  origin: string;
  location: string | undefined;
  gateway: { routes: boolean } | null;
}

/** A migrations folder's files in the order wrangler applies them. */
const migrationFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort();

export async function makePlan(
  wrangler: Wrangler,
  dir: string,
  config: RawConfig,
  account: Account,
  secretNames: string[],
  extra: { settings: Settings; origin: string; location: string | undefined; gateway: RawConfig | null },
): Promise<Plan> {
  // A database is the account's one of the configured id (a configuration filled in by hand), else of its name.
  const found = databases(config).map((database) => {
    const existing =
      account.databases.find((d) => d.uuid === database.configuredId) ?? account.databases.find((d) => d.name === database.name);
    return { database, id: existing?.uuid };
  });
  const existing = found.filter((f): f is { database: Database; id: string } => f.id !== undefined);
  const applied = await appliedMigrations(wrangler, config.name, existing);
  return {
    login: account.login,
    worker: { name: config.name, exists: account.workerExists },
    databases: found.map(({ database, id }) => {
      const done = new Set(applied.get(database.binding) ?? []);
      return { ...database, id, pending: migrationFiles(join(dir, database.migrationsDir)).filter((f) => !done.has(f)) };
    }),
    queues: queueNames(config).map((name) => ({ name, exists: account.queues.has(name) })),
    buckets: bucketNames(config).map((name) => ({ name, exists: account.buckets.has(name) })),
    secrets: secretNames.map((name) => ({ name, exists: account.secrets.has(name) })),
    ...extra,
    gateway: extra.gateway ? { routes: (extra.gateway.routes ?? []).length > 0 || extra.gateway.route !== undefined } : null,
  };
}

/** The databases the run creates, each once (by name). */
export const databasesToCreate = (plan: Plan): string[] => [...new Set(plan.databases.filter((d) => !d.id).map((d) => d.name))];

const range = (files: string[]) => (files.length === 1 ? files[0] : `${files[0]} … ${files.at(-1)}`);

export function printPlan(plan: Plan, print: (line: string) => void): void {
  const database = (d: DatabasePlan, what: string) => print(`    ${d.binding.padEnd(9)} ${d.name.padEnd(24)} ${what}`);
  const named = (name: string, what: string) => print(`    ${name.padEnd(34)} ${what}`);
  print(`Plan for ${plan.login}`);
  print(`  Worker ${plan.worker.name}: ${plan.worker.exists ? "exists, deployed again" : "new"}`);
  print("  D1 databases");
  for (const d of plan.databases) database(d, d.id ? `exists ${d.id}` : `create${plan.location ? ` (location hint ${plan.location})` : ""}`);
  print("  Migrations, applied before the Worker deploys");
  for (const d of plan.databases) database(d, d.pending.length === 0 ? "up to date" : `${d.pending.length} to apply: ${range(d.pending)}`);
  print("  Queues");
  for (const q of plan.queues) named(q.name, q.exists ? "exists" : "create");
  print("  R2 buckets");
  for (const b of plan.buckets) named(b.name, b.exists ? "exists" : "create");
  print("  Secrets");
  for (const s of plan.secrets) named(s.name, s.exists ? "exists, kept" : "generate and set");
  print("  Settings");
  print(`    PUBLIC_ORIGIN ${plan.origin}${plan.settings.domain ? ` (custom domain ${plan.settings.domain})` : ""}`);
  print(
    plan.settings.emailFrom
      ? `    e-mail: keys sent from ${plan.settings.emailFrom} (send_email binding EMAIL)`
      : "    e-mail: none (admin approval and recovery answer 503 until it is set: --email-from)",
  );
  if (plan.gateway) {
    print(`  Gateway: deployed with TRUST_SERVICE ${plan.origin}`);
    if (!plan.gateway.routes) print("    no route in gateway/wrangler.toml: it serves on workers.dev until you add your site's");
  }
  if (changes(plan) === 0) print("  Nothing to create, migrate or set: the code is deployed again.");
}

/** How many resources, migrations folders and secrets the run changes. */
export const changes = (plan: Plan): number =>
  databasesToCreate(plan).length +
  plan.databases.filter((d) => d.pending.length > 0).length +
  plan.queues.filter((q) => !q.exists).length +
  plan.buckets.filter((b) => !b.exists).length +
  plan.secrets.filter((s) => !s.exists).length;
