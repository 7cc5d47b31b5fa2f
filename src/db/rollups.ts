// The shards' daily rollups (table `rollups`): a rollup row as the model knows it and as a shard
// stores it, the statement that writes one (whole and idempotent: a journal sent twice writes the
// same row), and the credibility job's reads (the last 180 days in key order, by cursor) and pruning.

import { getTableColumns, getTableName } from "drizzle-orm";
import { DIMENSIONS, type Dimension, type RollupRow } from "../domain/model";
import type { Database } from "./client";
import { rollups } from "./shard-schema";

type Stored = typeof rollups.$inferSelect;

const asArray = (net: Record<Dimension, number>) => JSON.stringify(DIMENSIONS.map((d) => net[d]));
const netOf = (values: number[]) => Object.fromEntries(DIMENSIONS.map((d, i) => [d, values[i] ?? 0])) as Record<Dimension, number>;
const asNet = (text: string): Record<Dimension, number> => netOf(JSON.parse(text) as number[]);

export function storedRollup(row: RollupRow): Stored {
  return {
    day: row.day,
    sid: row.agent,
    reporter: Number(row.reporter),
    owner: row.owner === null ? null : Number(row.owner),
    reports: row.reports,
    receipted: row.receipted,
    established: row.established,
    net: asArray(row.net),
    receiptedNet: asArray(row.receiptedNet),
  };
}

interface SqlRow {
  day: number;
  sid: string;
  reporter: number;
  owner: number | null;
  reports: number;
  receipted: number;
  established: number;
  net: string;
  receipted_net: string;
}

const rollupOf = (r: SqlRow): RollupRow => ({
  reporter: String(r.reporter),
  agent: r.sid,
  owner: r.owner === null ? null : String(r.owner),
  day: r.day,
  reports: r.reports,
  receipted: r.receipted,
  established: r.established === 1,
  net: asNet(r.net),
  receiptedNet: asNet(r.receipted_net),
});

const columns = Object.entries(getTableColumns(rollups));
// A row only grows within its day (every write adds reports), so only a bigger row replaces one: a
// journal sent again writes nothing (D1 counts an UPDATE to the same values as a row written), and an
// older group's row that lands late (a batch route applying a deferred journal after the object's own
// flush of a later group) never overwrites a newer one. The rebuild from history writes its rows
// unconditionally (`replaceRollup`): they are the truth, withdrawn reports left out.
const INSERT = `INSERT INTO ${getTableName(rollups)} (${columns.map(([, c]) => c.name).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
  ON CONFLICT (day, sid, reporter) DO UPDATE SET ${columns.filter(([p]) => !["day", "sid", "reporter"].includes(p)).map(([, c]) => `${c.name} = excluded.${c.name}`).join(", ")}`;
const UPSERT = `${INSERT} WHERE excluded.reports > rollups.reports`;

const values = (row: Stored) =>
  columns.map(([property]) => {
    const v = (row as Record<string, unknown>)[property];
    return typeof v === "boolean" ? (v ? 1 : 0) : (v ?? null);
  });

export const upsertRollup = (d1: Database, row: Stored) => d1.prepare(UPSERT).bind(...values(row));
export const replaceRollup = (d1: Database, row: Stored) => d1.prepare(INSERT).bind(...values(row));

/** Deletes the agent's rows from day `fromDay` on (before its rows are rebuilt from its history). */
export const deleteAgentRollups = (d1: Database, sid: string, fromDay: number) => d1.prepare("DELETE FROM rollups WHERE sid = ? AND day >= ?").bind(sid, fromDay);

/** Where a read of the rollups goes on: after this key. */
export interface RollupCursor {
  day: number;
  sid: string;
  reporter: number;
}

/** Up to `limit` rows from day `fromDay` on, after `after` in key order, and the cursor of the last. */
export async function readRollups(d1: Database, fromDay: number, after: RollupCursor | null, limit: number): Promise<{ rows: RollupRow[]; last: RollupCursor | null }> {
  // One row-value bound on the key alone: SQLite seeks to it and reads only the rows it returns (a
  // second bound on `day` made it scan from the window's start on every page).
  const c = after ?? { day: fromDay, sid: "", reporter: -1 };
  const { results } = await d1
    .prepare("SELECT * FROM rollups WHERE (day, sid, reporter) > (?, ?, ?) ORDER BY day, sid, reporter LIMIT ?")
    .bind(c.day, c.sid, c.reporter, limit)
    .all<SqlRow>();
  const tail = results[results.length - 1];
  return { rows: results.map(rollupOf), last: tail ? { day: tail.day, sid: tail.sid, reporter: tail.reporter } : null };
}

/** Deletes up to `limit` rows older than `beforeDay`; how many went. */
export async function pruneRollups(d1: Database, beforeDay: number, limit: number): Promise<number> {
  const res = await d1.prepare("DELETE FROM rollups WHERE (day, sid, reporter) IN (SELECT day, sid, reporter FROM rollups WHERE day < ? LIMIT ?)").bind(beforeDay, limit).run();
  return res.meta.changes ?? 0;
}
