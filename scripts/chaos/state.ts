// The service's state on disk after the run (the service stopped): the report rows of every shard,
// read with `wrangler d1 execute --local --persist-to` as an operator would, and what each agent's
// object still holds in its storage (its journal of shard writes, its outbox of events, its outbox of
// log leaves, in their tables and in the agent's row), read from the object's SQLite file.
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

/** Every history entry (`sid/n`) in the shards' SQLite files, read beside the running service. */
function shardEntryKeys(persistTo: string, DatabaseSync: typeof import("node:sqlite").DatabaseSync): Set<string> {
  const keys = new Set<string>();
  const root = join(persistTo, "v3", "d1");
  if (!existsSync(root)) return keys;
  for (const dir of readdirSync(root)) {
    for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith(".sqlite"))) {
      const db = new DatabaseSync(join(root, dir, file), { readOnly: true });
      try {
        if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entries'").get()) continue;
        for (const r of db.prepare("SELECT sid, n FROM entries").all() as { sid: string; n: number }[]) keys.add(`${r.sid}/${r.n}`);
      } finally {
        db.close();
      }
    }
  }
  return keys;
}

/**
 * What every agent object still holds for the shard, the events queue and the log: journal entries
 * the shard lacks (in the agent's row, where a change's entry rides until the next write drops it
 * once applied, and in the journal table, whose rows wait for the alarm's drop), events not sent,
 * and log leaves the log has not acknowledged (in the log outbox, and in the agent's row). An entry
 * is waiting when a history row it writes is not on a shard; one that writes no history row (a
 * score refresh, a rollup) cannot be told from an applied one here and is counted apart
 * (`unchecked`).
 */
export async function agentStorage(persistTo: string): Promise<{ objects: number; journal: number; outbox: number; logOutbox: number; unchecked: number }> {
  const { DatabaseSync } = await import("node:sqlite");
  const root = join(persistTo, "v3", "do");
  const totals = { objects: 0, journal: 0, outbox: 0, logOutbox: 0, unchecked: 0 };
  if (!existsSync(root)) return totals;
  const onShard = shardEntryKeys(persistTo, DatabaseSync);
  for (const dir of readdirSync(root).filter((d) => d.endsWith("-Agent"))) {
    for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith(".sqlite"))) {
      const db = new DatabaseSync(join(root, dir, file), { readOnly: true });
      try {
        const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name));
        const count = (table: string) => (tables.has(table) ? Number((db.prepare(`SELECT count(*) AS c FROM ${table}`).get() as { c: number }).c) : 0);
        totals.objects++;
        totals.outbox += count("outbox");
        // Leaves up to the log's acknowledgement stay as rows for the next leaves to take over: not waiting.
        const acked = tables.has("meta") ? (db.prepare("SELECT CAST(value AS INTEGER) AS n FROM meta WHERE key = 'log_acked'").get() as { n: number } | undefined)?.n ?? 0 : 0;
        totals.logOutbox += tables.has("log_outbox") ? Number((db.prepare("SELECT count(*) AS c FROM log_outbox WHERE n > ?").get(acked) as { c: number }).c) : 0;
        const row = tables.has("agent") ? (db.prepare("SELECT * FROM agent WHERE id = 1").get() as { journal?: string | null; leaves?: string | null } | undefined) : undefined;
        type Kept = { shard: { kind: string; row?: { sid: string; n: number } }[] };
        // The journal table's rows stay after they are applied until the alarm's drop: told apart the same way.
        const tableRows = tables.has("journal") ? (db.prepare("SELECT shard FROM journal").all() as { shard: string }[]).map((r) => ({ shard: JSON.parse(r.shard) }) as Kept) : [];
        for (const entry of [...(JSON.parse(row?.journal ?? "[]") as Kept[]), ...tableRows]) {
          const rows = entry.shard.filter((w) => w.kind === "entry" && w.row).map((w) => `${w.row!.sid}/${w.row!.n}`);
          if (rows.length === 0) totals.unchecked++;
          else if (rows.some((k) => !onShard.has(k))) totals.journal++;
        }
        totals.logOutbox += (JSON.parse(row?.leaves ?? "[]") as { seq: number }[]).filter((l) => l.seq > acked).length;
      } finally {
        db.close();
      }
    }
  }
  return totals;
}
