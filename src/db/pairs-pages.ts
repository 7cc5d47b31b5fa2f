// The cross-agent job's read of a shard: its `pairs` rows with each agent's owner, a page at a time in
// (sid, reporter) order (the table's primary key), so an agent's pairs come contiguous and a cursor
// resumes exactly where a page ended.

import type { PairCursor } from "./credibility-run";

export interface PairRow {
  sid: string;
  reporter: string;
  /** The reporting operator. */
  operator_id: number;
  vote: number;
  first_at: number;
  receipt_day: number;
  /** The agent's owner (null: unclaimed, or no agent row). */
  owner: number | null;
}

const COLUMNS = "p.sid, p.reporter, p.operator_id, p.vote, p.first_at, p.receipt_day, a.operator_id AS owner FROM pairs p LEFT JOIN agents a ON a.sid = p.sid";

/** Up to `limit` pairs after `cursor` (null: from the first). */
export async function readPairsPage(shard: D1Database, cursor: PairCursor | null, limit: number): Promise<PairRow[]> {
  const statement = cursor
    ? shard.prepare(`SELECT ${COLUMNS} WHERE (p.sid, p.reporter) > (?, ?) ORDER BY p.sid, p.reporter LIMIT ?`).bind(cursor.sid, cursor.reporter, limit)
    : shard.prepare(`SELECT ${COLUMNS} ORDER BY p.sid, p.reporter LIMIT ?`).bind(limit);
  return (await statement.all<PairRow>()).results;
}
