// Every row a change of an agent writes on its shard besides the agent's own row (./agent-record),
// as plain data first, then as statements, built here and only here. A change is one D1 batch: its
// entries first, as plain inserts keyed (sid, n) (a stale instance of the agent's object collides
// and its whole batch rolls back), then these rows, then the agent's row. And the control
// database's writes a change derives (through its outbox: src/queues/events.ts applies them).

import { and, eq, getTableColumns, getTableName, sql } from "drizzle-orm";
import type { AgentRecord } from "../domain/agent";
import type { Dispute } from "../domain/disputes";
import type { ControlWrite } from "../domain/events";
import type { ChangeType } from "../domain/model";
import { putPairs, type PairRow } from "./pairs";
import { db, type Database } from "./client";
import { packText } from "./entry-text";
import { agentDirectory, disputes, withdrawals } from "./control-schema";
import { challenges, configHistory, disputesOnShard, entries } from "./shard-schema";

export type EntryRow = typeof entries.$inferInsert;
export type { ControlWrite };

export type ShardWrite =
  | { kind: "entry"; row: EntryRow }
  | { kind: "config"; row: typeof configHistory.$inferInsert }
  | { kind: "entryStatus"; sid: string; n: number; status: "active" | "disputed" | "withdrawn" }
  /** The pairs the changes moved (each written whole: the row is the pair's state); `replaced`: they are
   * every pair of the agent, made again from its history (a replay after a withdrawal or a claim). */
  | { kind: "pairs"; sid: string; rows: readonly PairRow[]; replaced: boolean }
  | { kind: "dispute"; dispute: Dispute }
  | { kind: "challenge"; sid: string; token: string; challenge: "callback" | "nonce"; expiresAt: number; used: boolean }
  /** Challenges and nonces of the agent past their time (with the change that finds them). */
  | { kind: "challengesExpired"; sid: string; before: number };

export function configRow(record: AgentRecord, seq: number, changes: ChangeType[], at: number): ShardWrite {
  return {
    kind: "config",
    row: {
      sid: record.sid,
      seq,
      fingerprint: record.fingerprint,
      modelProvider: record.config.modelProvider,
      modelName: record.config.modelName,
      changeType: changes[0] ?? null,
      changes: JSON.stringify(changes),
      createdAt: new Date(at).toISOString(),
    },
  };
}

// The hot statement (a report's entry) is constant SQL built once from the drizzle table's own
// columns: one source of the mapping, no query building per report. A plain INSERT: never OR IGNORE.
const entryColumns = Object.entries(getTableColumns(entries));
const INSERT_ENTRY = `INSERT INTO ${getTableName(entries)} (${entryColumns.map(([, c]) => c.name).join(", ")}) VALUES (${entryColumns.map(() => "?").join(", ")})`;
// The entry's stored form is made only here, as the statement is built.
// A keyed answer and what an entry tells are JSON too, and as large as the entry itself: packed alike.
const PACKED: ReadonlySet<string> = new Set(["body", "private", "answer", "outbox"] satisfies (keyof EntryRow)[]);
const insertEntry = (d1: Database, row: EntryRow) =>
  d1.prepare(INSERT_ENTRY).bind(
    ...entryColumns.map(([property]) => {
      const value = (row as Record<string, unknown>)[property] ?? null;
      return PACKED.has(property) && typeof value === "string" ? packText(value) : value;
    }),
  );

/** The statements of a change's rows, in order (the agent's row comes after them, from ./agent-record). */
export function shardStatements(d1: Database, writes: readonly ShardWrite[]): D1PreparedStatement[] {
  let drizzle: ReturnType<typeof db> | undefined;
  const d = () => (drizzle ??= db(d1));
  return writes.flatMap((w): D1PreparedStatement[] => {
    switch (w.kind) {
      case "entry":
        return [insertEntry(d1, w.row)];
      case "config":
        return [raw(d1, d().insert(configHistory).values(w.row))];
      case "entryStatus":
        return [
          raw(
            d1,
            d()
              .update(entries)
              .set({ status: w.status })
              .where(and(eq(entries.sid, w.sid), eq(entries.n, w.n))),
          ),
        ];
      case "pairs":
        return [...(w.replaced ? [d1.prepare("DELETE FROM pairs WHERE sid = ?").bind(w.sid)] : []), ...putPairs(d1, w.sid, w.rows)];
      case "dispute": {
        const row = { sid: w.dispute.sid, id: w.dispute.id, status: w.dispute.status, dispute: JSON.stringify(w.dispute) };
        return [
          raw(
            d1,
            d()
              .insert(disputesOnShard)
              .values(row)
              .onConflictDoUpdate({ target: [disputesOnShard.sid, disputesOnShard.id], set: { status: row.status, dispute: row.dispute } }),
          ),
        ];
      }
      case "challenge": {
        const row = { sid: w.sid, token: w.token, kind: w.challenge, expiresAt: w.expiresAt, used: w.used };
        return [
          raw(
            d1,
            d()
              .insert(challenges)
              .values(row)
              .onConflictDoUpdate({ target: [challenges.sid, challenges.token], set: { expiresAt: row.expiresAt, used: row.used } }),
          ),
        ];
      }
      case "challengesExpired":
        return [
          raw(
            d1,
            d()
              .delete(challenges)
              .where(and(eq(challenges.sid, w.sid), sql`${challenges.expiresAt} <= ${w.before}`)),
          ),
        ];
    }
  });
}

export function controlStatements(d1: Database, writes: readonly ControlWrite[]): D1PreparedStatement[] {
  const d = db(d1);
  return writes.flatMap((w) => {
    switch (w.kind) {
      case "directoryOwner":
        return [raw(d1, d.update(agentDirectory).set({ operatorId: w.operatorId }).where(eq(agentDirectory.sid, w.sid)))];
      case "dispute": {
        const { id: _id, ...rest } = w.dispute;
        return [raw(d1, d.insert(disputes).values(w.dispute).onConflictDoUpdate({ target: disputes.id, set: rest }))];
      }
      case "withdrawal":
        // Kept for the reporter's record; version 4 weighs a reporter by its credibility, which a
        // report the consensus contradicts lowers (agreement), not by a count of withdrawals.
        return [raw(d1, d.insert(withdrawals).values({ transactionId: w.transactionId, operatorId: w.operatorId, withdrawnAt: w.at }).onConflictDoNothing())];
    }
  });
}

/** A drizzle query as a D1 statement, so every write of a change goes into one D1 batch. */
function raw(d1: Database, query: { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const { sql: text, params } = query.toSQL();
  return d1.prepare(text).bind(...params);
}
