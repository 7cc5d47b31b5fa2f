// The agent's pairs on its shard (scoring model version 4: one vote per (agent, reporter) pair): the
// object reads the ones a change needs (a report: its reporter's; a configuration change or a new
// credibility snapshot: all of them) and writes the ones it moved in the change's batch. The columns
// beside the state are what the cross-agent job reads (src/queues/credibility-run.ts).

import { dayOf, type PairState } from "../domain/model";
import type { Database } from "./client";
import { jsonRowChunks } from "./json-rows";

/** A pair with the operator it belongs to (the job's key; the pair's own key is its commitment). */
export interface PairRow {
  pair: PairState;
  operatorId: number;
}

type Stored = Omit<PairState, "reporter">;

// A change that moves many pairs (a configuration change, a credibility snapshot or a replay moves
// all of an agent's) writes them in a few statements, not one a pair (./json-rows), each row's
// state as the JSON text stored.
const PUT_PAIRS = `INSERT INTO pairs (sid, reporter, operator_id, vote, first_at, receipt_day, pair)
  SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 FROM json_each(?) WHERE true
  ON CONFLICT (sid, reporter) DO UPDATE SET operator_id = excluded.operator_id, vote = excluded.vote, first_at = excluded.first_at,
    receipt_day = excluded.receipt_day, pair = excluded.pair`;

/** The statements that write these pairs of the agent (upserts), as few as the bound allows. */
export function putPairs(d1: Database, sid: string, rows: readonly PairRow[]): D1PreparedStatement[] {
  const values = rows.map((row) => {
    const { reporter, ...stored } = row.pair;
    const p = row.pair;
    return [
      reporter,
      row.operatorId,
      p.votes.stability ?? -1,
      p.firstAt,
      p.firstReceiptAt === null ? -1 : dayOf(p.firstReceiptAt),
      JSON.stringify(stored satisfies Stored),
    ];
  });
  return jsonRowChunks(values).map((json) => d1.prepare(PUT_PAIRS).bind(sid, json));
}

const rowOf = (r: { reporter: string; operator_id: number; pair: string }): PairRow => ({
  pair: { ...(JSON.parse(r.pair) as Stored), reporter: r.reporter },
  operatorId: r.operator_id,
});

/** Keys per statement: D1 binds at most 100 parameters. */
const KEYS_PER_READ = 90;

/** The agent's pairs of these reporters (by commitment); a reporter without one is absent. */
export async function readPairs(d1: Database, sid: string, keys: readonly string[]): Promise<Map<string, PairRow>> {
  const out = new Map<string, PairRow>();
  for (let i = 0; i < keys.length; i += KEYS_PER_READ) {
    const part = keys.slice(i, i + KEYS_PER_READ);
    const { results } = await d1
      .prepare(`SELECT reporter, operator_id, pair FROM pairs WHERE sid = ? AND reporter IN (${part.map(() => "?").join(", ")})`)
      .bind(sid, ...part)
      .all<{ reporter: string; operator_id: number; pair: string }>();
    for (const r of results) out.set(r.reporter, rowOf(r));
  }
  return out;
}

/** Every pair of the agent. */
export async function readAllPairs(d1: Database, sid: string): Promise<Map<string, PairRow>> {
  const { results } = await d1
    .prepare("SELECT reporter, operator_id, pair FROM pairs WHERE sid = ?")
    .bind(sid)
    .all<{ reporter: string; operator_id: number; pair: string }>();
  return new Map(results.map((r) => [r.reporter, rowOf(r)]));
}

/** One agent's pairs as an object life read them from its shard, kept in step with its batches: each is read at most once. */
export class PairCache {
  private rows = new Map<string, PairRow>();
  /** Whether every pair of the agent is held. */
  private complete = false;

  /** The pairs of these reporters (by key; absent: none yet). */
  async get(d1: Database, sid: string, keys: readonly string[]): Promise<Map<string, PairRow>> {
    const missing = this.complete ? [] : keys.filter((k) => !this.rows.has(k));
    if (missing.length > 0) for (const [k, row] of await readPairs(d1, sid, missing)) this.rows.set(k, row);
    return new Map(keys.flatMap((k) => (this.rows.has(k) ? [[k, this.rows.get(k)!] as const] : [])));
  }

  async all(d1: Database, sid: string): Promise<Map<string, PairRow>> {
    if (!this.complete) {
      this.rows = await readAllPairs(d1, sid);
      this.complete = true;
    }
    return this.rows;
  }

  /** A committed batch's pairs; `replaced`: they are every pair of the agent. */
  written(rows: ReadonlyMap<string, PairRow>, replaced: boolean): void {
    if (replaced) {
      this.rows = new Map(rows);
      this.complete = true;
    } else for (const [k, row] of rows) this.rows.set(k, row);
  }
}
