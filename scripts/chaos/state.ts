// The service's state on disk after the run (the service stopped): the report rows of every shard,
// read with `wrangler d1 execute --local --persist-to` as an operator would, and what each agent's
// object still holds in its own storage (nothing, under the record's contract), read from the
// object's SQLite file.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { unpackText } from "../../src/db/entry-text";
import { databaseNames } from "../d1.mjs";
import type { ChaosService } from "./service";

export interface ShardReport {
  sid: string;
  n: number;
  transactionId: number;
  status: string;
  /** The run's marker in the report's metadata (`{"chaos": marker}`), or null. */
  marker: string | null;
}

/** A configuration change on a shard: its entry number orders it among the reports. */
export interface ShardConfig {
  sid: string;
  seq: number;
  modelName: string;
  at: number;
}

const SEQUENCE_SPACE = 2 ** 22;

function execute(service: ChaosService, database: string, sql: string): Record<string, unknown>[] {
  const wrangler = join(service.root, "node_modules", ".bin", "wrangler");
  const run = spawnSync(wrangler, ["d1", "execute", database, "--local", "--persist-to", service.persistTo, "--command", sql, "--json"], {
    cwd: service.root,
    env: service.environment,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`wrangler d1 execute ${database} failed:\n${run.stderr}\n${run.stdout.slice(0, 2000)}`);
  const out = JSON.parse(run.stdout) as { results: Record<string, unknown>[] }[];
  return out.flatMap((o) => o.results);
}

/** Every report entry of every shard. */
export async function shardReports(service: ChaosService): Promise<ShardReport[]> {
  const shards = databaseNames(service.root).slice(1);
  const rows: ShardReport[] = [];
  for (const shard of shards) {
    const found = execute(service, shard, "SELECT e.sid AS sid, e.n AS n, e.status AS status, typeof(e.private) AS type, hex(e.private) AS private, a.dir_num AS num FROM entries e JOIN agents a ON a.sid = e.sid WHERE e.kind = 'report'");
    for (const r of found) {
      // The metadata in clear (the entry itself holds only its salted hash), read as hex: the CLI
      // prints a BLOB ambiguously.
      const bytes = Buffer.from(String(r.private ?? ""), "hex");
      const clear = r.type === "blob" ? unpackText(bytes) : bytes.toString("utf8");
      const marker = /"chaos":"([^"]+)"/.exec(clear)?.[1] ?? null;
      rows.push({ sid: String(r.sid), n: Number(r.n), transactionId: Number(r.num) * SEQUENCE_SPACE + Number(r.n), status: String(r.status), marker });
    }
  }
  return rows;
}

/** Every configuration change (not the configurations agents registered with) of every shard. */
export async function shardConfigs(service: ChaosService): Promise<ShardConfig[]> {
  const shards = databaseNames(service.root).slice(1);
  return shards.flatMap((shard) =>
    execute(service, shard, "SELECT sid, seq, model_name, created_at FROM config_history WHERE change_type IS NOT NULL AND seq IS NOT NULL").map((r) => ({
      sid: String(r.sid),
      seq: Number(r.seq),
      modelName: String(r.model_name),
      at: Date.parse(String(r.created_at)),
    })),
  );
}

/**
 * What the agents' objects still hold in their own storage: under the record's contract, nothing
 * but an alarm. An object whose SQLite file holds a table of its own (the earlier contract's
 * journal, outbox, answers...) is counted: none may be left after the sweep.
 */
export async function agentStorage(persistTo: string): Promise<{ objects: number; withTables: number; tables: string[] }> {
  const { DatabaseSync } = await import("node:sqlite");
  const root = join(persistTo, "v3", "do");
  const totals = { objects: 0, withTables: 0, tables: [] as string[] };
  if (!existsSync(root)) return totals;
  for (const dir of readdirSync(root).filter((d) => d.endsWith("-Agent"))) {
    for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith(".sqlite"))) {
      const db = new DatabaseSync(join(root, dir, file), { readOnly: true });
      try {
        // The runtime's own tables (`_cf_…`, miniflare's `__miniflare_do_name`) are not the object's.
        const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name).filter((t) => !/^(_cf|__miniflare|sqlite)/.test(t));
        totals.objects++;
        if (tables.length > 0) {
          totals.withTables++;
          totals.tables.push(...tables.filter((t) => !totals.tables.includes(t)));
        }
      } finally {
        db.close();
      }
    }
  }
  return totals;
}

/** Per shard, the agents whose outbox cursor is behind their last entry (a lag the next batch or the alarm moves). */
export async function cursorLag(service: ChaosService): Promise<{ agents: number; entries: number }> {
  const shards = databaseNames(service.root).slice(1);
  let agents = 0;
  let entries = 0;
  for (const shard of shards) {
    for (const r of execute(service, shard, "SELECT count(*) AS agents, coalesce(sum(seq - published), 0) AS entries FROM agents WHERE published < seq")) {
      agents += Number(r.agents);
      entries += Number(r.entries);
    }
  }
  return { agents, entries };
}
