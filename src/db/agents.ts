import type { Database } from "./client";
import { and, asc, desc, eq, getTableColumns, gt, or, sql } from "drizzle-orm";
import type { AgentConfiguration } from "../domain/configuration";
import { operatorScoreFromSums, scoreOf, SCORING, type EvidenceState } from "../domain/scoring";
import type { AgentReport, AgentScore, ConfigChange, ScoreEvent } from "../domain/views";
import { db } from "./client";
import { agents, configHistory, operators, scoreEvents } from "./schema";

export const SCORE_HISTORY_LIMIT = 50;
export const CONFIG_HISTORY_LIMIT = 20;

export type AgentRow = typeof agents.$inferSelect;

export interface NewAgent {
  sid: string;
  operatorId: number | null;
  name: string;
  description: string | null;
  config: AgentConfiguration;
  fingerprint: string;
  evidence: EvidenceState;
  claimTokenHash: string | null;
  now: string;
}

/** The agent and its initial configuration entry (change_type null), in one batch. */
export async function insertAgent(d1: Database, a: NewAgent) {
  const d = db(d1);
  await d.batch([
    d.insert(agents).values({
      sid: a.sid,
      operatorId: a.operatorId,
      name: a.name,
      description: a.description,
      modelProvider: a.config.modelProvider,
      modelName: a.config.modelName,
      systemPromptHash: a.config.systemPromptHash,
      tools: JSON.stringify(a.config.tools),
      memoryConfig: a.config.memoryConfig === null ? null : JSON.stringify(a.config.memoryConfig),
      fingerprint: a.fingerprint,
      lastConfigChangeAt: a.now,
      claimTokenHash: a.claimTokenHash,
      evidence: JSON.stringify(a.evidence),
      createdAt: a.now,
      updatedAt: a.now,
    }),
    d.insert(configHistory).values({
      sid: a.sid,
      fingerprint: a.fingerprint,
      modelProvider: a.config.modelProvider,
      modelName: a.config.modelName,
      changeType: null,
      createdAt: a.now,
    }),
  ]);
}

export const configurationOf = (row: AgentRow): AgentConfiguration => ({
  modelProvider: row.modelProvider,
  modelName: row.modelName,
  systemPromptHash: row.systemPromptHash,
  tools: JSON.parse(row.tools) as string[],
  memoryConfig: row.memoryConfig === null ? null : (JSON.parse(row.memoryConfig) as Record<string, unknown>),
});

/** Reporters other than the owner within the last 90 days. */
export function independentReporters(reporters: Record<string, string>, ownerId: number | null, now: number): number {
  return Object.entries(reporters).filter(
    ([id, at]) => Number(id) !== ownerId && now - Date.parse(at) <= SCORING.independentReporterWindowMs,
  ).length;
}

// Aliased: in a D1 batch rows come back keyed by column name, and agents has `name` too.
const operatorColumns = {
  name: sql<string>`${operators.name}`.as("operator_name"),
  verified: sql<boolean>`${operators.verified}`.mapWith(operators.verified).as("operator_verified"),
  createdAt: sql<string>`${operators.createdAt}`.as("operator_created_at"),
  agentEvidence: sql<number>`${operators.agentEvidence}`.as("operator_agent_evidence"),
  agentWeightedComposite: sql<number>`${operators.agentWeightedComposite}`.as("operator_agent_weighted"),
};

/** One indexed read: the agent by primary key with its owner. */
export function agentWithOperator(d1: Database, sid: string) {
  return db(d1)
    .select({ agent: agents, operator: operatorColumns })
    .from(agents)
    .leftJoin(operators, eq(operators.id, agents.operatorId))
    .where(eq(agents.sid, sid));
}

type OperatorColumns = { name: string; verified: boolean; createdAt: string; agentEvidence: number; agentWeightedComposite: number };

export const operatorScoreOf = (o: Pick<OperatorColumns, "agentEvidence" | "agentWeightedComposite">) =>
  operatorScoreFromSums(o.agentEvidence, o.agentWeightedComposite);

/** The agent's score now, from its stored evidence (forgetting applies at read time). */
export const scoreOfRow = (agent: AgentRow, now: number) =>
  scoreOf(JSON.parse(agent.evidence) as EvidenceState, {
    now,
    identityLevel: agent.identityLevel,
    independentReporters: independentReporters(JSON.parse(agent.reporters) as Record<string, string>, agent.operatorId, now),
  });

export function toAgentScore(row: { agent: AgentRow; operator: OperatorColumns | null }, now: number): AgentScore {
  const { agent, operator } = row;
  const score = scoreOfRow(agent, now);
  return {
    sid: agent.sid,
    name: agent.name,
    description: agent.description,
    status: agent.status,
    createdAt: agent.createdAt,
    lastUpdated: agent.updatedAt,
    score,
    identityLevel: agent.identityLevel,
    fingerprint: agent.fingerprint,
    operator: agent.operatorId !== null && operator ? { name: operator.name, score: operatorScoreOf(operator), verified: operator.verified } : null,
  };
}

// The hottest read (GET /score, the public score, badges) as constant SQL: the same query as
// agentWithOperator, without building it anew on every call. Rows are mapped through the drizzle
// schema's own columns, so the table definition stays the one source of the mapping.
const SCORE_READ = `SELECT a.*, o.name AS operator_name, o.verified AS operator_verified, o.created_at AS operator_created_at,
  o.agent_evidence AS operator_agent_evidence, o.agent_weighted_composite AS operator_agent_weighted
  FROM agents a LEFT JOIN operators o ON o.id = a.operator_id WHERE a.sid = ?`;
const AGENT_COLUMNS = Object.entries(getTableColumns(agents));

export async function readAgentScore(d1: Database, sid: string, now: number) {
  const raw = await d1.prepare(SCORE_READ).bind(sid).first<Record<string, string | number | null>>();
  if (!raw) return null;
  const agent = Object.fromEntries(
    AGENT_COLUMNS.map(([property, column]) => {
      const value = raw[column.name];
      return [property, value === null ? null : column.mapFromDriverValue(value)];
    }),
  ) as AgentRow;
  const operator =
    raw.operator_name === null
      ? null
      : {
          name: String(raw.operator_name),
          verified: raw.operator_verified === 1,
          createdAt: String(raw.operator_created_at),
          agentEvidence: Number(raw.operator_agent_evidence),
          agentWeightedComposite: Number(raw.operator_agent_weighted),
        };
  return toAgentScore({ agent, operator }, now);
}

/**
 * The report in one round trip: agent + owner, the newest 50 score events and 20 configuration
 * entries (each by index, bounded by LIMIT whatever the history size), and the owner's agent count.
 */
export async function readAgentReport(d1: Database, sid: string, now: number): Promise<AgentReport | null> {
  const d = db(d1);
  const [rows, events, configs, counted] = await d.batch([
    agentWithOperator(d1, sid),
    d.select().from(scoreEvents).where(eq(scoreEvents.sid, sid)).orderBy(desc(scoreEvents.id)).limit(SCORE_HISTORY_LIMIT),
    d.select().from(configHistory).where(eq(configHistory.sid, sid)).orderBy(desc(configHistory.id)).limit(CONFIG_HISTORY_LIMIT),
    d
      .select({ n: sql<number>`count(*)` })
      .from(agents)
      .where(eq(agents.operatorId, sql`(select ${agents.operatorId} from ${agents} where ${agents.sid} = ${sid})`)),
  ]);
  const row = rows[0];
  if (!row) return null;
  const base = toAgentScore(row, now);
  const outcomes = JSON.parse(row.agent.outcomeCounts) as Record<string, number>;
  return {
    ...base,
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
    config: { modelName: row.agent.modelName, version: row.agent.configVersion, lastChange: row.agent.lastConfigChangeAt },
    operatorProfile: row.agent.operatorId !== null && row.operator ? {
      score: operatorScoreOf(row.operator),
      since: row.operator.createdAt,
      agentsOperated: counted[0]?.n ?? 0,
    } : null,
    asOf: new Date(now).toISOString(),
  };
}

/** One page of the operator's agents, oldest first, after the (created_at, sid) position given. */
export function listOperatorAgents(d1: Database, operatorId: number, after: [string, string] | null, limit: number) {
  return db(d1)
    .select()
    .from(agents)
    .where(
      and(
        eq(agents.operatorId, operatorId),
        after ? or(gt(agents.createdAt, after[0]), and(eq(agents.createdAt, after[0]), gt(agents.sid, after[1]))) : undefined,
      ),
    )
    .orderBy(asc(agents.createdAt), asc(agents.sid))
    .limit(limit)
    .all();
}

/** The facts a route checks before it asks the agent's scorer for a change. */
export const agentGate = (d1: Database, sid: string) =>
  db(d1)
    .select({ operatorId: agents.operatorId, status: agents.status, identityLevel: agents.identityLevel })
    .from(agents)
    .where(eq(agents.sid, sid))
    .get();

