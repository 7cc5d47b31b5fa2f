// Every write to a shard (and the few to the control database) that an agent's object makes, as
// plain data first (the object journals them in its storage, so a crash between its commit and the
// batch loses nothing), then as statements, built here and only here. Each statement is idempotent:
// history rows are keyed by (sid, seq) and inserted once; the agent's row is written whole.

import { and, eq, getTableColumns, getTableName, sql } from "drizzle-orm";
import type { AgentRecord } from "../domain/agent";
import type { AgentKey } from "../domain/agent-keys";
import type { Dispute } from "../domain/disputes";
import { contributionOf, modelOf, ownerLocal, scoreOfRecord } from "../domain/agent";
import { MODEL, type ChangeType } from "../domain/model";
import { db, type Database } from "./client";
import { packText } from "./entry-text";
import { storedRollup, upsertRollup } from "./rollups";
import { agentDirectory, disputes, operators, withdrawals } from "./control-schema";
import { agentKeys, agents, configHistory, entries, scoreEvents, transactions } from "./shard-schema";

export type ShardWrite =
  /** `at`: the time its score is as of (absent in journal entries from before `journaled`). */
  | { kind: "agent"; row: typeof agents.$inferInsert; at?: number }
  | { kind: "score"; sid: string; columns: Pick<typeof agents.$inferInsert, (typeof SCORE_COLUMNS)[number]>; at?: number }
  /** The agent's row (whole, or its score columns as of `at`) as the record stands when the batch is made: see `journaled`. */
  | { kind: "current"; sid: string; at: number; whole: boolean }
  | { kind: "entry"; row: EntryRow }
  | { kind: "config"; row: typeof configHistory.$inferInsert }
  | { kind: "entryStatus"; sid: string; n: number; status: "active" | "disputed" | "withdrawn" }
  /** The agent's rows in the tables from before the chain, once its chain holds them. */
  | { kind: "retireLegacy"; sid: string }
  | { kind: "keyAdded"; row: typeof agentKeys.$inferInsert }
  | { kind: "keyRemoved"; sid: string; thumbprint: string }
  /** A reporter's rollup row of one day (model version 3, R1), whole. */
  | { kind: "rollup"; row: ReturnType<typeof storedRollup> };

export type EntryRow = typeof entries.$inferInsert;

export type ControlWrite =
  | { kind: "directoryOwner"; sid: string; operatorId: number | null }
  | { kind: "dispute"; dispute: Dispute }
  | { kind: "withdrawal"; operatorId: number; transactionId: number; at: string };

/** What a report changes on the agent's row: its evidence, its score as of `now`, its counts. */
export function scoreColumns(record: AgentRecord, now: number): ShardWrite {
  const { row } = agentRow(record, now) as { row: typeof agents.$inferInsert };
  const columns = Object.fromEntries(SCORE_COLUMNS.map((p) => [p, row[p]])) as Pick<typeof agents.$inferInsert, (typeof SCORE_COLUMNS)[number]>;
  return { kind: "score", sid: record.sid, columns, at: now };
}

/** The agent's whole row: its record, and its score as of `now` for lists and operator figures. */
export function agentRow(record: AgentRecord, now: number): ShardWrite {
  const score = scoreOfRecord(record, now);
  const independent = contributionOf(record, now);
  const c = record.config;
  return {
    kind: "agent",
    at: now,
    row: {
      sid: record.sid,
      num: record.num,
      operatorId: record.operatorId,
      name: record.name,
      description: record.description,
      status: record.status,
      modelProvider: c.modelProvider,
      modelName: c.modelName,
      systemPromptHash: c.systemPromptHash,
      tools: JSON.stringify(c.tools),
      memoryConfig: c.memoryConfig === null ? null : JSON.stringify(c.memoryConfig),
      fingerprint: record.fingerprint,
      configVersion: record.configVersion,
      lastConfigChangeAt: record.lastConfigChangeAt,
      identityLevel: record.identityLevel,
      identityKey: record.identityKey,
      callbackVerified: record.callbackVerified,
      publicProfile: record.publicProfile ?? false,
      claimTokenHash: null,
      evidence: JSON.stringify(record.evidence),
      modelVersion: modelOf(record),
      similarToCautioned: record.similarToCautioned ?? false,
      reporters: "{}",
      composite: score.composite,
      confidence: score.confidence,
      recommendation: score.recommendation,
      evidenceTotal: score.evidence,
      independentEvidence: independent.evidence,
      independentComposite: independent.composite,
      outcomeCounts: JSON.stringify(record.outcomes),
      seq: record.seq,
      historyVersion: 2,
      ownerLocal: ownerLocal(record),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    },
  };
}

/**
 * A change's writes as its journal entry keeps them: the agent's row becomes a mark, made again from
 * the record when the batch is built (`current`). The row carries the agent's evidence, about 600
 * bytes per reporter: kept in each entry, it grew every change's stored bytes with the reporters and
 * sent each entry into a journal row of its own (one more row a report) past about 100 of them
 * (64 KB). The record saved with the entry is the newest state, and the shard's row is only ever
 * written as the newest state.
 */
export function journaled(writes: readonly ShardWrite[]): ShardWrite[] {
  return writes.map((w) =>
    w.kind === "agent" && w.at !== undefined
      ? { kind: "current", sid: w.row.sid, at: w.at, whole: true }
      : w.kind === "score" && w.at !== undefined
        ? { kind: "current", sid: w.sid, at: w.at, whole: false }
        : w,
  );
}

/** The journal's writes made whole for a batch: its marks become the agent's row as `record` stands, whole if any mark was, as of the last mark's time. */
export function current(writes: readonly ShardWrite[], record: AgentRecord): ShardWrite[] {
  let at: number | null = null;
  let whole = false;
  const out: ShardWrite[] = [];
  for (const w of writes) {
    if (w.kind !== "current") out.push(w);
    else [at, whole] = [w.at, whole || w.whole];
  }
  if (at !== null) out.push(whole ? agentRow(record, at) : scoreColumns(record, at));
  return out;
}

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

// The hot statements (a report's entry and its change to the agent's row) are constant SQL built once
// from the drizzle tables' own columns: one source of the mapping, no query building per report.
// Rarer writes (a whole row, a configuration entry) go through drizzle.

const entryColumns = Object.entries(getTableColumns(entries));
const INSERT_ENTRY = `INSERT INTO ${getTableName(entries)} (${entryColumns.map(([, c]) => c.name).join(", ")}) VALUES (${entryColumns.map(() => "?").join(", ")}) ON CONFLICT DO NOTHING`;
// The journal keeps the entry's text; its stored form is made only here, as the statement is built.
const PACKED: ReadonlySet<string> = new Set(["body", "private"] satisfies (keyof EntryRow)[]);
const insertEntry = (d1: Database, row: EntryRow) =>
  d1.prepare(INSERT_ENTRY).bind(
    ...entryColumns.map(([property]) => {
      const value = (row as Record<string, unknown>)[property] ?? null;
      return PACKED.has(property) && typeof value === "string" ? packText(value) : value;
    }),
  );

/** The columns a report changes on the agent's row. */
const SCORE_COLUMNS = [
  "evidence",
  "composite",
  "confidence",
  "recommendation",
  "evidenceTotal",
  "independentEvidence",
  "independentComposite",
  "outcomeCounts",
  "seq",
  "ownerLocal",
  "updatedAt",
] as const satisfies readonly (keyof typeof agents.$inferInsert)[];
const agentColumns = getTableColumns(agents);
// Never over a newer row: a batch of a route that collected several agents' writes may land after
// the agent's own object applied later ones (each write carries the number of its last entry).
const UPDATE_SCORE = `UPDATE agents SET ${SCORE_COLUMNS.map((p) => `${agentColumns[p].name} = ?`).join(", ")} WHERE sid = ? AND seq <= ?`;

/**
 * The statements of pending shard writes, in order, as one batch. The agent's row is written once,
 * as its newest state: the last whole row with every later report's columns laid over it, or those
 * columns alone.
 */
export function shardStatements(d1: Database, writes: ShardWrite[]): D1PreparedStatement[] {
  // drizzle only for the rarer writes: a report's statements are the constant SQL above.
  let drizzle: ReturnType<typeof db> | undefined;
  const d = () => (drizzle ??= db(d1));
  const statements: D1PreparedStatement[] = [];
  let row: (typeof agents.$inferInsert) | null = null;
  let scoreOnly = true;
  for (const w of writes) {
    switch (w.kind) {
      case "agent":
        row = { ...w.row };
        scoreOnly = false;
        break;
      case "score":
        row = { ...(row ?? { sid: w.sid }), ...w.columns } as typeof agents.$inferInsert;
        break;
      case "entry":
        statements.push(insertEntry(d1, w.row));
        break;
      case "config":
        statements.push(raw(d1, d().insert(configHistory).values(w.row).onConflictDoNothing()));
        break;
      case "entryStatus":
        statements.push(raw(d1, d().update(entries).set({ status: w.status }).where(and(eq(entries.sid, w.sid), eq(entries.n, w.n)))));
        break;
      case "retireLegacy":
        statements.push(
          raw(d1, d().delete(scoreEvents).where(eq(scoreEvents.sid, w.sid))),
          raw(d1, d().delete(transactions).where(eq(transactions.sid, w.sid))),
        );
        break;
      case "keyAdded":
        statements.push(raw(d1, d().insert(agentKeys).values(w.row).onConflictDoNothing()));
        break;
      case "keyRemoved":
        statements.push(raw(d1, d().delete(agentKeys).where(and(eq(agentKeys.sid, w.sid), eq(agentKeys.thumbprint, w.thumbprint)))));
        break;
      case "rollup":
        statements.push(upsertRollup(d1, w.row));
        break;
      case "current":
        throw new Error("an agent row mark reached a batch unmade (see current)");
      default:
        // A kind this Worker does not know (a journal written by a newer one): fail the batch, keep the journal.
        throw new Error(`unknown shard write ${(w as { kind: string }).kind}`);
    }
  }
  if (row && scoreOnly) {
    const r = row as Record<string, unknown>;
    statements.push(d1.prepare(UPDATE_SCORE).bind(...SCORE_COLUMNS.map((p) => r[p] ?? null), r.sid, r.seq));
  } else if (row) {
    const { sid: _sid, ...rest } = row;
    statements.push(raw(d1, d().insert(agents).values(row).onConflictDoUpdate({ target: agents.sid, set: rest, setWhere: sql`excluded.seq >= ${agents.seq}` })));
  }
  return statements;
}

export function controlStatements(d1: Database, writes: ControlWrite[]): D1PreparedStatement[] {
  const d = db(d1);
  return writes.flatMap((w) => {
    switch (w.kind) {
      case "directoryOwner":
        return [raw(d1, d.update(agentDirectory).set({ operatorId: w.operatorId }).where(eq(agentDirectory.sid, w.sid)))];
      case "dispute": {
        const { id: _id, ...rest } = w.dispute;
        return [raw(d1, d.insert(disputes).values(w.dispute).onConflictDoUpdate({ target: disputes.id, set: rest }))];
      }
      case "withdrawal": {
        // Three withdrawals within the penalty window start the penalty for the next 90 days; the
        // reporter's cached key facts are marked stale (auth_epoch), so its next report carries it.
        const window = new Date(Date.parse(w.at) - MODEL.penalty.windowMs).toISOString();
        const until = new Date(Date.parse(w.at) + MODEL.penalty.durationMs).toISOString();
        return [
          raw(d1, d.insert(withdrawals).values({ transactionId: w.transactionId, operatorId: w.operatorId, withdrawnAt: w.at }).onConflictDoNothing()),
          raw(
            d1,
            d
              .update(operators)
              .set({
                penaltyUntil: sql`CASE WHEN (SELECT count(*) FROM ${withdrawals} WHERE ${withdrawals.operatorId} = ${w.operatorId}
                  AND ${withdrawals.withdrawnAt} > ${window}) >= ${MODEL.penalty.withdrawals}
                  THEN max(coalesce(${operators.penaltyUntil}, ''), ${until}) ELSE ${operators.penaltyUntil} END`,
                authEpoch: sql`${operators.authEpoch} + 1`,
              })
              .where(eq(operators.id, w.operatorId)),
          ),
        ];
      }
    }
  });
}

/** A drizzle query as a D1 statement, so every write of a change goes into one D1 batch. */
function raw(d1: Database, query: { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const { sql, params } = query.toSQL();
  return d1.prepare(sql).bind(...params);
}

export const keyAdded = (sid: string, key: AgentKey): ShardWrite => ({
  kind: "keyAdded",
  row: { sid, thumbprint: key.thumbprint, jwk: JSON.stringify(key.jwk), directoryUrl: key.directoryUrl, addedAt: key.addedAt },
});
export const rollupWrite = (row: Parameters<typeof storedRollup>[0]): ShardWrite => ({ kind: "rollup", row: storedRollup(row) });
export const keyRemoved = (sid: string, thumbprint: string): ShardWrite => ({ kind: "keyRemoved", sid, thumbprint });
