// Reads of agents and their history on their shard. Scores are computed at read time from the
// stored aggregates (time-bound rules, the recent windows and tenure, apply at the reader's time).

import { eq, getTableColumns, sql } from "drizzle-orm";
import type { AgentConfiguration } from "../domain/configuration";
import { DIMENSIONS, type Dimension } from "../domain/model";
import { locateTransaction, scoreEvent, transactionIdOf } from "../domain/agent";
import { ERASED, SCORE_ENTRY_KINDS, type Entry, type EntryKind, type ScoreFace } from "../domain/entries";
import {
  toAgentScore,
  type AgentReport,
  type ConfigChange,
  type OperatorSummary,
  type StoredAgent,
  type ScoreEvent,
  type TransactionEntry,
  type TransactionStatus,
} from "../domain/views";
import { db, type Database } from "./client";
import { unpackText, type StoredText } from "./entry-text";
import { inJson } from "./json-rows";
import { agents, configHistory } from "./shard-schema";

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

// The hottest read (GET /score, the public score, badges) as constant SQL, mapped through the
// drizzle table's own columns, so the table definition stays the one source of the mapping.
export const ROW_READ = "SELECT * FROM agents WHERE sid = ?";
const AGENT_COLUMNS = Object.entries(getTableColumns(agents));

/** Maps a raw row through a drizzle table's columns (names, booleans, JSON modes). */
function mapperOf<Row>(columns: [string, { name: string; mapFromDriverValue(v: unknown): unknown }][]) {
  return (raw: Record<string, unknown>): Row =>
    Object.fromEntries(
      columns.map(([property, column]) => {
        const value = raw[column.name];
        return [property, value === null || value === undefined ? null : column.mapFromDriverValue(value)];
      }),
    ) as Row;
}
const mapRow = mapperOf<AgentRow>(AGENT_COLUMNS);
const mapConfigRow = mapperOf<typeof configHistory.$inferSelect>(Object.entries(getTableColumns(configHistory)));

export async function readAgentRow(d1: Database, sid: string): Promise<AgentRow | null> {
  const raw = await d1.prepare(ROW_READ).bind(sid).first<Record<string, unknown>>();
  return raw ? mapRow(raw) : null;
}

/** What a score read needs of the agent's row (GET /score, the public score, badges): its score's columns and its contract. */
export type ScoreRow = StoredAgent & { contract: number };
const SCORE_READ =
  "SELECT sid, name, description, status, created_at, updated_at, evidence, operator_id, identity_level, identity_key, fingerprint, similar_to_cautioned, contract FROM agents WHERE sid = ?";

/** The agent's row as a score read needs it: a third of the columns, so the hottest read carries and converts less. */
export async function readScoreRow(d1: Database, sid: string): Promise<ScoreRow | null> {
  const r = await d1.prepare(SCORE_READ).bind(sid).first<Record<string, unknown>>();
  if (!r) return null;
  return {
    sid: r.sid as string,
    name: r.name as string,
    description: r.description as string | null,
    status: r.status as StoredAgent["status"],
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    evidence: r.evidence as string,
    operatorId: r.operator_id as number | null,
    identityLevel: r.identity_level as number,
    identityKey: r.identity_key as string | null,
    fingerprint: r.fingerprint as string,
    similarToCautioned: r.similar_to_cautioned === 1,
    contract: r.contract as number,
  };
}

/** The last entry number (`seq`) of each of these agents of one shard (the log's reconciliation). */
export const readSeqs = (d1: Database, sids: string[]) =>
  db(d1).select({ sid: agents.sid, seq: agents.seq }).from(agents).where(inJson(agents.sid, sids)).all();

/** Several agents of one shard by SID (a page of /me). */
export const readAgentRows = (d1: Database, sids: string[]) => db(d1).select().from(agents).where(inJson(agents.sid, sids)).all();

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

/** A report's transaction id: its number from before the chain, else the agent's number × 2^22 + its entry's. */
const transactionIdOfRow = (num: number, e: { n: number; ref: number | null }) => e.ref ?? transactionIdOf(num, e.n);

/** The newest score-moving entries: reports, configuration changes, withdrawals (the PK read backwards). */
const SCORE_ENTRIES = `SELECT n, kind, at, status, ref, body FROM entries WHERE sid = ? AND kind IN (${SCORE_ENTRY_KINDS.map((k) => `'${k}'`).join(", ")}) ORDER BY n DESC LIMIT ${SCORE_HISTORY_LIMIT}`;

/** The report's three queries: the agent, its newest score-moving entries, its newest configurations. */
export const reportQueries = (sid: string) => [
  { sql: ROW_READ, params: [sid] },
  { sql: SCORE_ENTRIES, params: [sid] },
  { sql: `SELECT * FROM config_history WHERE sid = ? ORDER BY id DESC LIMIT ${CONFIG_HISTORY_LIMIT}`, params: [sid] },
];

export type ScoreEntryRow = { n: number; kind: EntryKind; at: number; status: TransactionStatus | null; ref: number | null; body: StoredText };

export function scoreEventOf(num: number, r: ScoreEntryRow): ScoreEvent {
  const entry = JSON.parse(unpackText(r.body)) as Entry & { score: ScoreFace };
  const report = entry.kind === "report" ? entry : null;
  const eventType =
    entry.kind === "report"
      ? scoreEvent.transaction(entry.outcome)
      : entry.kind === "config"
        ? scoreEvent.configChange(entry.changes[0])
        : scoreEvent.withdrawal;
  return {
    eventType,
    composite: entry.score.composite,
    dimensions: Object.fromEntries(DIMENSIONS.map((d) => [d, entry.score[d]])) as Record<Dimension, number>,
    timestamp: entry.at,
    // A withdrawal names the report it withdrew.
    transactionId: report ? transactionIdOfRow(num, r) : entry.kind === "withdrawal" ? transactionIdOf(num, entry.of) : null,
    evidence: report ? (report.receipt ? "receipt" : "none") : null,
    status: report ? (r.status ?? "active") : null,
  };
}

/**
 * The report in one round trip: the agent, the newest 50 score-moving entries and 20 configuration
 * entries, each read by key and bounded by LIMIT.
 */
export async function readAgentReport(
  d1: Database,
  sid: string,
  now: number,
  operator: OperatorSummary | null,
  owner: { since: string; agentsOperated: number } | null,
): Promise<AgentReport | null> {
  const [agentRows, scoreRows, configs] = await d1.batch<unknown>(reportQueries(sid).map((q) => d1.prepare(q.sql).bind(...q.params)));
  const rows = (agentRows.results as Record<string, unknown>[]).map(mapRow);
  const row = rows[0];
  if (!row) return null;
  const outcomes = JSON.parse(row.outcomeCounts) as Record<string, number>;
  const num = row.num ?? 0;
  return {
    ...toAgentScore(row, operator, now),
    scoreHistory: (scoreRows.results as ScoreEntryRow[]).map((r) => scoreEventOf(num, r)),
    configHistory: (configs.results as Record<string, unknown>[]).map(mapConfigRow).map((c): ConfigChange => ({
      fingerprint: c.fingerprint,
      modelProvider: c.modelProvider,
      modelName: c.modelName,
      changeType: c.changeType as ConfigChange["changeType"],
      timestamp: c.createdAt,
    })),
    transactions: { total: Object.values(outcomes).reduce((a, b) => a + b, 0), outcomes },
    config: { modelName: row.modelName, version: row.configVersion, lastChange: row.lastConfigChangeAt },
    operatorProfile: row.operatorId !== null && operator && owner ? { score: operator.score, since: owner.since, agentsOperated: owner.agentsOperated } : null,
    asOf: new Date(now).toISOString(),
  };
}

const REPORTS_PAGE = "SELECT n, at, status, ref, body, private FROM entries WHERE sid = ? AND kind = 'report' AND n < ? ORDER BY n DESC LIMIT ?";

/** One page of the agent's reports, newest first, before entry number `beforeN`; never the reporter. */
export async function listTransactions(
  d1: Database,
  sid: string,
  num: number,
  beforeN: number | null,
  limit: number,
): Promise<(TransactionEntry & { n: number })[]> {
  const page = await d1
    .prepare(REPORTS_PAGE)
    .bind(sid, beforeN ?? Number.MAX_SAFE_INTEGER, limit)
    .all<ReportRow>();
  return page.results.map((r) => transactionOfRow(num, r));
}

type ReportRow = { n: number; at: number; status: TransactionStatus | null; ref: number | null; body: StoredText; private: StoredText | null };

/** A report entry's row as the owner's list shows it (from the shard or an archived page). */
export function transactionOfRow(num: number, r: ReportRow): TransactionEntry & { n: number } {
  const entry = JSON.parse(unpackText(r.body)) as Entry & { kind: "report" };
  const clear = r.private === null ? null : (JSON.parse(unpackText(r.private)) as { type?: string });
  return {
    n: r.n,
    id: transactionIdOfRow(num, r),
    // Erased with its salt: the entry keeps only a salted hash no one can open, never shown.
    transactionType: clear?.type ?? ERASED,
    outcome: entry.outcome,
    evidence: entry.receipt ? "receipt" : "none",
    status: r.status ?? "active",
    createdAt: entry.at,
  };
}

/** A report of the agent by transaction id (carried over from before the chain, or numbered in it). */
export async function findReport(d1: Database, sid: string, num: number, id: number) {
  const where = locateTransaction(id);
  const n = !where.legacy && where.num === num ? where.seq : -1;
  const row = await d1
    .prepare(
      `SELECT n, at, operator, status, body FROM entries WHERE ref = ?1 AND sid = ?2 AND kind = 'report'
       UNION ALL SELECT n, at, operator, status, body FROM entries WHERE sid = ?2 AND n = ?3 AND ref IS NULL AND kind = 'report' LIMIT 1`,
    )
    .bind(id, sid, n)
    .first<{ n: number; at: number; operator: number; status: TransactionStatus | null; body: StoredText }>();
  if (!row) return null;
  const entry = JSON.parse(unpackText(row.body)) as Entry & { kind: "report" };
  return { id, n: row.n, sid, reporterOperatorId: row.operator, status: row.status ?? "active", at: row.at, outcome: entry.outcome };
}

/** Which agent a transaction id from before sharding belongs to (shard 0): in the chain, or in the table it came from. */
export async function findLegacyReportSid(d1: Database, id: number): Promise<string | null> {
  const chained = await d1.prepare("SELECT sid FROM entries WHERE ref = ?").bind(id).first<{ sid: string }>();
  if (chained) return chained.sid;
  const old = await d1.prepare("SELECT sid FROM transactions WHERE id = ?").bind(id).first<{ sid: string }>();
  return old?.sid ?? null;
}
