// Idempotency records: the answer given under an Idempotency-Key, replayed to a repeat for 24 hours.
// Storage is billed by the row written, and a batch's every report carries a key, so the records
// ride in the agent's row (written with the change's record anyway), up to INLINE_ANSWERS; past
// that, the ones the row held go to one row of `answer_rows`, many to a row. A lookup by key must
// not read a day of changes: the keys of those rows (not their answers) are read once per object
// life into an index in memory, key → row. Rows leave once their newest record is past 24 hours.
// The index is bounded: past MAX_ROWS such rows (a very busy agent), records go one per row to
// `idempotency`, found by its primary key, as they all did before (records from before are read
// there too, until they expire).

import { IDEMPOTENCY_TTL_MS } from "../../domain/idempotency";
import type { Answer } from "./agent-row";

export const ANSWERS_SCHEMA = [
  // `latest`: the newest record's time; `keys`: the records' caller and key (a JSON list, read into
  // the index); `answers`: the records ([operator, key, request hash, result, at] each).
  "CREATE TABLE IF NOT EXISTS answer_rows (n INTEGER PRIMARY KEY, latest INTEGER NOT NULL, keys TEXT NOT NULL, answers TEXT NOT NULL)",
];

/** The records the agent's row holds at most (each up to about 1 KB: a 255-character key, a hash, the answer). */
export const INLINE_ANSWERS = 50;
/** Rows of many records at most (10,000 keys: the index stays within a few MB of memory). */
export const MAX_ROWS = 200;

export interface StoredAnswer {
  requestHash: string;
  result: unknown;
}

const idOf = (operatorId: number, key: string) => `${operatorId}\n${key}`;

export class Answers {
  /** The keys of `answer_rows`, to the row holding each (its latest record for a key reused after expiry). */
  private index: Map<string, number> | undefined;
  /** How many rows of many records there are (read once per object life). */
  private rows: number | undefined;

  constructor(
    private readonly sql: SqlStorage,
    private readonly row: { answers(): Answer[]; setAnswers(answers: Answer[]): void; saveAnswers(answers: Answer[]): void },
  ) {}

  forget(): void {
    this.index = undefined;
    this.rows = undefined;
  }

  /** The answer recorded under the caller's key within 24 hours, if any. */
  find(operatorId: number, key: string, now: number): StoredAnswer | null {
    const since = now - IDEMPOTENCY_TTL_MS;
    const match = (a: Answer) => a[0] === operatorId && a[1] === key && a[4] > since;
    const inline = this.row.answers().findLast(match);
    if (inline) return { requestHash: inline[2], result: inline[3] };
    const n = this.spilled().get(idOf(operatorId, key));
    const row = n === undefined ? undefined : this.sql.exec<{ answers: string }>("SELECT answers FROM answer_rows WHERE n = ?", n).toArray()[0];
    const found = row && (JSON.parse(row.answers) as Answer[]).findLast(match);
    if (found) return { requestHash: found[2], result: found[3] };
    const legacy = this.sql
      .exec<{ request_hash: string; result: string }>("SELECT request_hash, result FROM idempotency WHERE operator_id = ? AND key = ? AND created_at > ?", operatorId, key, since)
      .toArray()[0];
    return legacy ? { requestHash: legacy.request_hash, result: JSON.parse(legacy.result) } : null;
  }

  /** Records an answer (inside the change's storage transaction: the row is written by its save). */
  keep(operatorId: number, key: string, requestHash: string, result: unknown, now: number): void {
    const since = now - IDEMPOTENCY_TTL_MS;
    const held = this.row.answers().filter((a) => a[4] > since && !(a[0] === operatorId && a[1] === key));
    const added: Answer = [operatorId, key, requestHash, result, now];
    if (held.length < INLINE_ANSWERS) {
      this.row.setAnswers([...held, added]);
      return;
    }
    this.spill(held);
    this.row.setAnswers([added]);
  }

  private spill(answers: readonly Answer[]): void {
    this.rows ??= this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM answer_rows").one().n;
    if (this.rows >= MAX_ROWS) {
      for (const [operatorId, key, requestHash, result, at] of answers) {
        this.sql.exec(
          `INSERT INTO idempotency (operator_id, key, request_hash, result, created_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (operator_id, key) DO UPDATE SET request_hash = excluded.request_hash, result = excluded.result, created_at = excluded.created_at`,
          operatorId,
          key,
          requestHash,
          JSON.stringify(result),
          at,
        );
      }
      return;
    }
    this.rows += 1;
    const keys = answers.map((a) => idOf(a[0], a[1]));
    const latest = answers.reduce((max, a) => Math.max(max, a[4]), 0);
    const { n } = this.sql
      .exec<{ n: number }>("INSERT INTO answer_rows (latest, keys, answers) VALUES (?, ?, ?) RETURNING n", latest, JSON.stringify(keys), JSON.stringify(answers))
      .one();
    if (this.index) for (const id of keys) this.index.set(id, n);
  }

  /** Forgets records past 24 hours, in the agent's row and in rows of their own: the hourly housekeeping's. */
  prune(now: number): void {
    const since = now - IDEMPOTENCY_TTL_MS;
    const held = this.row.answers();
    const live = held.filter((a) => a[4] > since);
    if (live.length < held.length) this.row.saveAnswers(live);
    if (this.sql.exec("DELETE FROM answer_rows WHERE latest <= ?", since).rowsWritten > 0) this.forget();
    this.sql.exec("DELETE FROM idempotency WHERE created_at <= ?", since);
  }

  private spilled(): Map<string, number> {
    if (!this.index) {
      const index = new Map<string, number>();
      for (const { n, keys } of this.sql.exec<{ n: number; keys: string }>("SELECT n, keys FROM answer_rows ORDER BY n")) {
        for (const id of JSON.parse(keys) as string[]) index.set(id, n);
      }
      this.index = index;
    }
    return this.index;
  }
}
