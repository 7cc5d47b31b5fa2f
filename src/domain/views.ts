// What the domain hands to the presentation layer: plain values in the product's words, no wire
// names. src/http/wire renders them as Form A or Form B.
import type { Leaf } from "./log/leaf";
import type { AgentStatus, ScoreEventType } from "./agent";
import type { ReceiptRefusal } from "./receipts";
import type { Dispute } from "./disputes";
import type { ChangeType, Dimension, Outcome, ScoreView } from "./model";
import { emptyModel, scoreOf, type AgentModel } from "./model";

function evidenceOfRow(row: StoredAgent): AgentModel {
  const e = JSON.parse(row.evidence) as AgentModel;
  return e.version === 4 ? e : emptyModel(Date.parse(row.createdAt));
}

export interface OperatorSummary {
  name: string;
  score: number;
  verified: boolean;
}

export interface AgentScore {
  sid: string;
  name: string;
  description: string | null;
  status: AgentStatus;
  createdAt: string;
  lastUpdated: string;
  score: ScoreView;
  identityLevel: number;
  /** The thumbprint of the proven key at identity level 2, else null. */
  identityKey: string | null;
  fingerprint: string;
  operator: OperatorSummary | null;
}

export interface Registration {
  sid: string;
  name: string;
  status: AgentStatus;
  createdAt: string;
  score: ScoreView;
  fingerprint: string;
  /** Only for self-registered agents, shown once. */
  claimToken?: string;
}

export interface ScoreEvent {
  eventType: ScoreEventType;
  composite: number;
  dimensions: Record<Dimension, number>;
  timestamp: string;
  /** For transaction events: the report, whether a receipt backed it, and whether it still counts. */
  transactionId: number | null;
  evidence: "receipt" | "none" | null;
  status: TransactionStatus | null;
}

export const TRANSACTION_STATUSES = ["active", "disputed", "withdrawn"] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** A report as the agent's owner sees it: never who reported it. */
export interface TransactionEntry {
  id: number;
  transactionType: string;
  outcome: Outcome;
  evidence: "receipt" | "none";
  status: TransactionStatus;
  createdAt: string;
}

export interface ConfigChange {
  fingerprint: string;
  modelProvider: string;
  modelName: string;
  changeType: ChangeType | null;
  timestamp: string;
}

export interface AgentReport extends AgentScore {
  /** Disputes of the agent's reports not yet resolved, with the owner's statement. */
  disputes?: Dispute[];
  scoreHistory: ScoreEvent[];
  configHistory: ConfigChange[];
  transactions: { total: number; outcomes: Record<string, number> };
  config: { modelName: string; version: number; lastChange: string };
  /** The owner as Form B shows it; null for an unclaimed agent. */
  operatorProfile: { score: number; since: string; agentsOperated: number } | null;
  /** The instant the report was read, for durations. */
  asOf: string;
}

export interface TransactionRecorded {
  transactionId: number;
  /** When the report was recorded (ms): the promise's `iat`, so a replayed answer carries the same promise. */
  recordedAt?: number;
  score: ScoreView;
  /** The leaf the report's history entry gave the agent's transparency log (the 201's promise is signed over it). */
  leaf?: Leaf;
  /** The entry number and hash of the report's entry (the promise names them: a tagged leaf shows neither). */
  entry?: { n: number; hash: string };
  /** The signed log promise over `leaf` (added by the route). */
  promise?: string;
  /** Only when the report carried a receipt: whether it added weight, and if not why. */
  receipt?: { accepted: true } | { accepted: false; reason: ReceiptRefusal };
}

export interface ConfigUpdated {
  changeDetected: boolean;
  changeType: ChangeType | null;
  fingerprint: string;
  score: ScoreView;
}

export interface OperatorProfile {
  id: number;
  name: string;
  email: string;
  score: number;
  verified: boolean;
  keyPrefix: string;
  createdAt: string;
}

export interface AgentSummary {
  sid: string;
  name: string;
  description: string | null;
  status: AgentStatus;
  identityLevel: number;
  createdAt: string;
  score: ScoreView;
}

/** What an agent's stored row holds that its score is made from (the shard's agents table). */
export interface StoredAgent {
  sid: string;
  name: string;
  description: string | null;
  status: AgentStatus;
  createdAt: string;
  updatedAt: string;
  /** The scoring model's evidence, as JSON. */
  evidence: string;
  operatorId: number | null;
  identityLevel: number;
  identityKey: string | null;
  fingerprint: string;
  /** R6 across owners (absent: false). */
  similarToCautioned?: boolean | null;
}

/**
 * The agent's score at `now` from its stored row, with its owner's operator score (clear, reasons).
 * A row the migration sweep has not reached yet holds an earlier model's evidence: it scores as a new
 * agent's until its object moves it (reads of one agent move it first: src/http/agents.ts).
 */
export const scoreOfRow = (row: StoredAgent, now: number, operatorScore = 500): ScoreView =>
  scoreOf(evidenceOfRow(row), {
    now,
    owned: row.operatorId !== null,
    identityLevel: row.identityLevel,
    operatorScore,
    similarToCautioned: row.similarToCautioned === true,
  });

export function toAgentScore(row: StoredAgent, operator: OperatorSummary | null, now: number): AgentScore {
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
