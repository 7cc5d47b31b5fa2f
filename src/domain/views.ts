// What the domain hands to the presentation layer: plain values in the product's words, no wire
// names. src/http/wire renders them as Form A or Form B.
import type { ChangeType, ScoreView } from "./scoring";

export interface OperatorSummary {
  name: string;
  score: number;
  verified: boolean;
}

export interface AgentScore {
  sid: string;
  name: string;
  description: string | null;
  status: "active" | "suspended";
  createdAt: string;
  lastUpdated: string;
  score: ScoreView;
  identityLevel: number;
  fingerprint: string;
  operator: OperatorSummary | null;
}

export interface Registration {
  sid: string;
  name: string;
  status: "active" | "suspended";
  createdAt: string;
  score: ScoreView;
  fingerprint: string;
  /** Only for self-registered agents, shown once. */
  claimToken?: string;
}

export interface ScoreEvent {
  eventType: string;
  composite: number;
  reliability: number;
  quality: number;
  financial: number;
  security: number;
  stability: number;
  timestamp: string;
}

export interface ConfigChange {
  fingerprint: string;
  modelProvider: string;
  modelName: string;
  changeType: ChangeType | null;
  timestamp: string;
}

export interface AgentReport extends AgentScore {
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
  score: ScoreView;
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
  status: "active" | "suspended";
  createdAt: string;
  score: ScoreView;
}
