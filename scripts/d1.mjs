// The D1 databases of wrangler.toml (the control database and every shard), and applying their
// migrations locally: shared by `npm start`, the benchmark and the browser tests.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
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
