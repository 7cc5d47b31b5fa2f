// Reads of agents and their history on their shard. Scores are computed at read time from the
// stored evidence (forgetting applies at the reader's time).

import { and, desc, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import type { AgentRecord, AgentRef } from "../domain/agent";
import type { AgentKey } from "../domain/agent-keys";
import type { AgentConfiguration } from "../domain/configuration";
import { scoreOf, type AgentEvidence, type ScoreView } from "../domain/model";
import type { AgentReport, AgentScore, ConfigChange, OperatorSummary, ScoreEvent, TransactionEntry } from "../domain/views";
import { db, type Database } from "./client";
import { agents, configHistory, scoreEvents, transactions } from "./shard-schema";

export const SCORE_HISTORY_LIMIT = 50;
export const CONFIG_HISTORY_LIMIT = 20;

export type AgentRow = typeof agents.$inferSelect;

export const configurationOf = (row: AgentRow): AgentConfiguration => ({
  modelProvider: row.modelProvider,
  modelName: row.modelName,
  systemPromptHash: row.systemPromptHash,
  tools: JSON.parse(row.tools) as string[],
  memoryConfig: row.memoryConfig === null ? null : (JSON.parse(row.memoryConfig) as Record<string, unknown>),
});

/** The agent's score at `now` from its row, with its owner's operator score (reasons). */
export const scoreOfRow = (row: AgentRow, now: number, operatorScore = 500): ScoreView =>
  scoreOf(JSON.parse(row.evidence) as AgentEvidence, { now, ownerId: row.operatorId, identityLevel: row.identityLevel, operatorScore });

export function toAgentScore(row: AgentRow, operator: OperatorSummary | null, now: number): AgentScore {
  return {
    sid: row.sid,
    name: row.name,
    description: row.description,
    status: row.status,
    createdAt: row.createdAt,
    lastUpdated: row.updatedAt,
    score: scoreOfRow(row, now, operator?.score),
    identityLevel: row.identityLevel,
    identityKey: row.identityKey,
    fingerprint: row.fingerprint,
    operator: row.operatorId !== null && operator ? { name: operator.name, score: operator.score, verified: operator.verified } : null,
  };
}

// The hottest read (GET /score, the public score, badges) as constant SQL, mapped through the
// drizzle table's own columns, so the table definition stays the one source of the mapping.
export const ROW_READ = "SELECT * FROM agents WHERE sid = ?";
const AGENT_COLUMNS = Object.entries(getTableColumns(agents));

function mapRow(raw: Record<string, unknown>): AgentRow {
  return Object.fromEntries(
    AGENT_COLUMNS.map(([property, column]) => {
      const value = raw[column.name];
      return [property, value === null || value === undefined ? null : column.mapFromDriverValue(value)];
    }),
  ) as AgentRow;
}

/** The working state of an agent rebuilt from its shard: its row, its keys and the evidence its history replays to. */
export function recordOfRow(ref: AgentRef, row: AgentRow, keys: AgentKey[], evidence: AgentEvidence): AgentRecord {
  return {
    ...ref,
    operatorId: row.operatorId,
    name: row.name,
    description: row.description,
    status: row.status,
    config: configurationOf(row),
    fingerprint: row.fingerprint,
    configVersion: row.configVersion,
    lastConfigChangeAt: row.lastConfigChangeAt,
    identityLevel: row.identityLevel,
    callbackVerified: row.callbackVerified,
    identityKey: row.identityKey,
    keys,
    directories: {},
    claimTokenHash: row.claimTokenHash,
    evidence,
    outcomes: JSON.parse(row.outcomeCounts) as Record<string, number>,
    seq: row.seq,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export async function readAgentRow(d1: Database, sid: string): Promise<AgentRow | null> {
  const raw = await d1.prepare(ROW_READ).bind(sid).first<Record<string, unknown>>();
  return raw ? mapRow(raw) : null;
}

/** Several agents of one shard by SID (a page of /me). */
export const readAgentRows = (d1: Database, sids: string[]) => db(d1).select().from(agents).where(inArray(agents.sid, sids)).all();

/** An operator's figures on one shard: its agents, and the sums of their independent evidence. */
export async function operatorSums(d1: Database, operatorId: number) {
  const row = await db(d1)
    .select({
      agents: sql<number>`count(*)`,
      evidence: sql<number>`coalesce(sum(${agents.independentEvidence}), 0)`,
      weighted: sql<number>`coalesce(sum(${agents.independentEvidence} * ${agents.independentComposite}), 0)`,
    })
    .from(agents)
    .where(eq(agents.operatorId, operatorId))
    .get();
  return { agents: Number(row?.agents ?? 0), evidence: Number(row?.evidence ?? 0), weighted: Number(row?.weighted ?? 0) };
}

const eventColumns = { ...getTableColumns(scoreEvents), status: transactions.status, evidence: transactions.evidence };

/** The report's three queries: the agent, its newest score events, its newest configurations. */
export function reportQueries(d1: Database, sid: string) {
  const d = db(d1);
  return [
    d.select().from(agents).where(eq(agents.sid, sid)),
    d
      .select(eventColumns)
      .from(scoreEvents)
      .leftJoin(transactions, eq(transactions.id, scoreEvents.transactionId))
      .where(eq(scoreEvents.sid, sid))
      .orderBy(desc(scoreEvents.id))
      .limit(SCORE_HISTORY_LIMIT),
    d.select().from(configHistory).where(eq(configHistory.sid, sid)).orderBy(desc(configHistory.id)).limit(CONFIG_HISTORY_LIMIT),
  ] as const;
}

/**
 * The report in one round trip: the agent, the newest 50 score events (with their report's evidence
 * and status) and 20 configuration entries, each read by index and bounded by LIMIT.
 */
export async function readAgentReport(
  d1: Database,
  sid: string,
  now: number,
  operator: OperatorSummary | null,
  owner: { since: string; agentsOperated: number } | null,
): Promise<AgentReport | null> {
  const [rows, events, configs] = await db(d1).batch(reportQueries(d1, sid));
  const row = rows[0];
  if (!row) return null;
  const outcomes = JSON.parse(row.outcomeCounts) as Record<string, number>;
  return {
    ...toAgentScore(row, operator, now),
    scoreHistory: events.map(
      (e): ScoreEvent => ({
        eventType: e.eventType,
        composite: e.composite,
        reliability: e.reliability,
        quality: e.quality,
        financial: e.financial,
        security: e.security,
        stability: e.stability,
        timestamp: e.createdAt,
        transactionId: e.transactionId,
        evidence: e.transactionId === null ? null : (e.evidence ?? "none"),
        status: e.transactionId === null ? null : (e.status ?? "active"),
      }),
    ),
    configHistory: configs.map(
      (c): ConfigChange => ({
        fingerprint: c.fingerprint,
        modelProvider: c.modelProvider,
        modelName: c.modelName,
        changeType: c.changeType as ConfigChange["changeType"],
        timestamp: c.createdAt,
      }),
    ),
    transactions: { total: Object.values(outcomes).reduce((a, b) => a + b, 0), outcomes },
    config: { modelName: row.modelName, version: row.configVersion, lastChange: row.lastConfigChangeAt },
    operatorProfile: row.operatorId !== null && operator && owner ? { score: operator.score, since: owner.since, agentsOperated: owner.agentsOperated } : null,
    asOf: new Date(now).toISOString(),
  };
}

/** One page of the agent's reports, newest first, after transaction id `beforeId`; never the reporter. */
export async function listTransactions(d1: Database, sid: string, beforeId: number | null, limit: number): Promise<TransactionEntry[]> {
  const rows = await db(d1)
    .select({
      id: transactions.id,
      transactionType: transactions.transactionType,
      outcome: transactions.outcome,
      evidence: transactions.evidence,
      status: transactions.status,
      createdAt: transactions.createdAt,
    })
    .from(transactions)
    .where(and(eq(transactions.sid, sid), beforeId === null ? undefined : sql`${transactions.id} < ${beforeId}`))
    .orderBy(desc(transactions.id))
    .limit(limit)
    .all();
  return rows.map((r) => ({ ...r, outcome: r.outcome as TransactionEntry["outcome"] }));
}

/** A report by id on one shard (the SID it belongs to and who reported it): disputes route by it. */
export const findTransaction = (d1: Database, id: number) =>
  db(d1)
    .select({
      id: transactions.id,
      sid: transactions.sid,
      reporterOperatorId: transactions.reporterOperatorId,
      outcome: transactions.outcome,
      status: transactions.status,
      createdAt: transactions.createdAt,
    })
    .from(transactions)
    .where(eq(transactions.id, id))
    .get();
