// The D1 databases of wrangler.toml (the control database and every shard), and applying their
// migrations locally: shared by `npm start`, the benchmark and the browser tests.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Every `database_name` of a wrangler.toml, in order (DB first, then SHARD_0 ... SHARD_{N-1}). */
export function databaseNames(dir) {
  return [...readFileSync(join(dir, "wrangler.toml"), "utf8").matchAll(/^database_name\s*=\s*"([^"]+)"/gm)].map((m) => m[1]);
}

/** Applies every database's migrations locally (`extra`: e.g. ["--persist-to", dir]); throws on failure. */
export function migrateLocally(wrangler, dir, env, extra = [], stdio = "pipe") {
  for (const database of databaseNames(dir)) {
    const run = spawnSync(wrangler, ["d1", "migrations", "apply", database, "--local", ...extra], { cwd: dir, env, stdio, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`D1 migrations of ${database} failed:\n${run.stderr ?? ""}\n${run.stdout ?? ""}`);
  }
}

/**
 * The same migrations, applied in this process through one local runtime (wrangler's
 * getPlatformProxy) instead of one `wrangler d1 migrations apply` per database: the same SQL, split
 * as wrangler splits it, and the same bookkeeping row in each database's migrations table, so
 * `wrangler d1 migrations apply --local` finds nothing left to do. Several times faster on a small
 * machine (one runtime started, not one per database). `persistTo`: wrangler dev's --persist-to.
 */
export async function migrateInProcess(dir, persistTo) {
  const { getPlatformProxy, unstable_readConfig, unstable_splitSqlQuery } = await import("wrangler");
  const configPath = join(dir, "wrangler.toml");
  const databases = unstable_readConfig({ config: configPath }).d1_databases;
  const proxy = await getPlatformProxy({ configPath, persist: { path: join(persistTo, "v3") } });
  try {
    for (const database of databases) {
      const db = proxy.env[database.binding];
      const table = `"${(database.migrations_table ?? "d1_migrations").replace(/"/g, '""')}"`;
      await db.prepare(`CREATE TABLE IF NOT EXISTS ${table}(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL);`).run();
      const applied = new Set((await db.prepare(`SELECT name FROM ${table}`).all()).results.map((r) => r.name));
      const folder = join(dir, database.migrations_dir ?? "migrations");
      const names = readdirSync(folder).filter((f) => f.endsWith(".sql")).sort();
      for (const name of names.filter((n) => !applied.has(n))) {
        const query = `${readFileSync(join(folder, name), "utf8")}\nINSERT INTO ${table} (name)\nvalues ('${name.replace(/'/g, "''")}');`;
        await db.batch(unstable_splitSqlQuery(query).map((part) => db.prepare(part)));
      }
    }
  } finally {
    await proxy.dispose();
  }
}
