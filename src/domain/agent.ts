// An agent's working state, as its Durable Object keeps it, and what each change does to it. Pure:
// the object stores the record and writes the history; the model (./model) scores the evidence.

import type { AgentKey } from "./agent-keys";
import type { AgentConfiguration } from "./configuration";
import { GENESIS } from "./entries";
import { newLogTags, type LogTags } from "./log/epochs";
import {
  CHANGE_TYPES,
  OUTCOMES,
  classifyChange,
  type ChangeType,
  type CredibilityInput,
  type Outcome,
  type PairState,
  type Pairs,
  type ScoreView,
  type SignalDimension,
} from "./model";
import { applyConfigChange, applyCredibility, applyReport, emptyModel, operatorContribution, scoreOf, type AgentModel } from "./model";

export const AGENT_STATUSES = ["active", "suspended"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/** Where an agent lives: its SID, its directory number, its shard and its log (from the control database). */
export interface AgentRef {
  sid: string;
  num: number;
  shard: number;
  /** The transparency log its entries go to (assigned at registration, never changed). */
  log: number;
}

/** The agent's working state: the source of its shard row. JSON in its object's storage. */
export interface AgentRecord extends AgentRef {
  operatorId: number | null;
  name: string;
  description: string | null;
  status: AgentStatus;
  config: AgentConfiguration;
  fingerprint: string;
  configVersion: number;
  lastConfigChangeAt: string;
  identityLevel: number;
  /** The agent passed the callback challenge (level 1, kept when a proven key goes away). */
  callbackVerified: boolean;
  /** The RFC 7638 thumbprint of the key the agent proved control of (identity level 2). */
  identityKey: string | null;
  /** The agent's registered Ed25519 public keys (at most 5). */
  keys: AgentKey[];
  /** When each key directory the keys came from was last fetched (ms), by URL. */
  directories: Record<string, number>;
  /** SHA-256 of the one-time claim token of a self-registered agent, until claimed. */
  claimTokenHash: string | null;
  /**
   * The owner opted in to show reasons, dimensions, history and open disputes on the agent's public
   * page. Absent in records stored before the option existed: false.
   */
  publicProfile?: boolean;
  /** The scoring model's aggregates (./model): its pairs are rows of their own, loaded when a change needs them. */
  evidence: AgentModel;
  /**
   * R6 across owners: at registration (or its last configuration change) the configuration matched
   * an agent of another owner in caution. Absent in records from before version 3: false.
   */
  similarToCautioned?: boolean;
  outcomes: Record<string, number>;
  /** The number of the agent's last history entry: a report's transaction id is num × 2^22 + its entry's number. */
  seq: number;
  /** The SHA-256 of the agent's last history entry (the next one chains to it). */
  chainHash: string;
  /** How its entries' log leaves are tagged (src/domain/log/epochs.ts); absent until the migration sweep: the leaf of before. */
  logTags?: LogTags;
  /** The earliest answer deadline of the agent's open disputes (ms; null or absent: none open). */
  disputesDue?: number | null;
  createdAt: string;
  updatedAt: string;
}

// Transaction ids: numbers, unique across the service and routable without the SID.
export const SEQUENCE_SPACE = 2 ** 22;
/** Directory numbers start here, so every id below LEGACY_ID_CEILING is an id issued before sharding. */
export const FIRST_DIRECTORY_NUMBER = 1024;
export const LEGACY_ID_CEILING = FIRST_DIRECTORY_NUMBER * SEQUENCE_SPACE;

export const transactionIdOf = (num: number, seq: number) => num * SEQUENCE_SPACE + seq;

/** Where a transaction id points: a pre-sharding id (on shard 0), or an agent's number and sequence. */
export function locateTransaction(id: number): { legacy: true } | { legacy: false; num: number; seq: number } {
  if (id < LEGACY_ID_CEILING) return { legacy: true };
  return { legacy: false, num: Math.floor(id / SEQUENCE_SPACE), seq: id % SEQUENCE_SPACE };
}

/**
 * The event types of an agent's score history: a report (`transaction:<outcome>`), a configuration
 * change (`config_change:<change_type>`), a report withdrawn after a dispute.
 */
export const scoreEvent = {
  transaction: (outcome: Outcome) => `transaction:${outcome}` as const,
  configChange: (change: ChangeType) => `config_change:${change}` as const,
  withdrawal: "dispute:withdrawn",
} as const;
export type ScoreEventType = ReturnType<typeof scoreEvent.transaction> | ReturnType<typeof scoreEvent.configChange> | typeof scoreEvent.withdrawal;
export const SCORE_EVENT_TYPES = [
  ...OUTCOMES.map(scoreEvent.transaction),
  ...CHANGE_TYPES.map(scoreEvent.configChange),
  scoreEvent.withdrawal,
] as ScoreEventType[] as [ScoreEventType, ...ScoreEventType[]];

/** What a registration says of a new agent. */
export interface NewAgent {
  operatorId: number | null;
  name: string;
  description: string | null;
  config: AgentConfiguration;
  fingerprint: string;
  claimTokenHash: string | null;
  /** R6 across owners: the configuration matches a cautioned agent of another owner. */
  similarToCautioned?: boolean;
}

export function newRecord(ref: AgentRef, input: NewAgent, now: number): AgentRecord {
  const iso = new Date(now).toISOString();
  return {
    ...ref,
    ...input,
    status: "active",
    configVersion: 1,
    lastConfigChangeAt: iso,
    identityLevel: 0,
    callbackVerified: false,
    identityKey: null,
    keys: [],
    directories: {},
    publicProfile: false,
    similarToCautioned: input.similarToCautioned ?? false,
    evidence: emptyModel(now),
    outcomes: {},
    seq: 0,
    chainHash: GENESIS,
    logTags: newLogTags(input.operatorId),
    createdAt: iso,
    updatedAt: iso,
  };
}

/**
 * The agent's score at `now`. The owner's operator score decides clear (≥ 400) and the
 * OPERATOR_RECORD reason; where it is not at hand (inside the agent's object) the neutral 500 is used.
 */
export function scoreOfRecord(record: AgentRecord, now: number, operatorScore = 500): ScoreView {
  return scoreOf(record.evidence, {
    now,
    owned: record.operatorId !== null,
    identityLevel: record.identityLevel,
    operatorScore,
    similarToCautioned: record.similarToCautioned ?? false,
  });
}

export const contributionOf = (record: AgentRecord, now: number) => operatorContribution(record.evidence, now);

/** Applies a credibility entry (values by the reporters' keys): the record and the pairs it changed. */
export function applyCredibilityTo(record: AgentRecord, pairs: Pairs, input: CredibilityInput): { record: AgentRecord; pairs: PairState[] } {
  const applied = applyCredibility(record.evidence, pairs, input);
  return { record: { ...record, evidence: applied.model, seq: record.seq + 1 }, pairs: applied.pairs };
}

/** A transaction report as the agent's object receives it. */
export interface Report {
  reporter: number;
  at: number;
  transactionType: string;
  outcome: Outcome;
  signals: Partial<Record<SignalDimension, number>>;
  metadata: Record<string, unknown> | null;
  /** A valid receipt signed by the agent's key backs the report. */
  receipt: boolean;
}

/** A report as history keeps it. */
export interface RecordedReport extends Report {
  /** The reporter's key on the agent (its commitment). */
  key: string;
  id: number;
  seq: number;
}

/** The keys a report is weighed with: its reporter's and the owner's (null: unclaimed). */
export interface ReportKeys {
  reporter: string;
  owner: string | null;
}

/** Applies one report to the record and the reporter's pair (null: its first report on the agent). */
export function applyReportTo(
  before: AgentRecord,
  report: Report,
  pair: PairState | null,
  keys: ReportKeys,
): { record: AgentRecord; pair: PairState; recorded: RecordedReport; score: ScoreView } {
  const applied = applyReport(
    before.evidence,
    pair,
    { reporter: keys.reporter, at: report.at, outcome: report.outcome, signals: report.signals, receipt: report.receipt },
    keys.owner,
  );
  const seq = before.seq + 1;
  const next: AgentRecord = {
    ...before,
    evidence: applied.model,
    outcomes: { ...before.outcomes, [report.outcome]: (before.outcomes[report.outcome] ?? 0) + 1 },
    seq,
    updatedAt: new Date(report.at).toISOString(),
  };
  const recorded: RecordedReport = { ...report, key: keys.reporter, id: transactionIdOf(before.num, seq), seq };
  return { record: next, pair: applied.pair, recorded, score: scoreOfRecord(next, report.at) };
}

/** A detected configuration change: the new configuration and every change found, most severe first. */
export interface ConfigChanged {
  record: AgentRecord;
  changes: ChangeType[];
  changeType: ChangeType;
  seq: number;
  score: ScoreView;
  /** The pairs whose votes the change decayed. */
  pairs: PairState[];
}

/** Compares the configuration with the stored one; null when nothing changed. `pairs`: all of the agent's. */
export function applyConfigTo(record: AgentRecord, config: AgentConfiguration, fingerprint: string, now: number, pairs: Pairs): ConfigChanged | null {
  const { changes, changeType } = classifyChange(record.config, config);
  if (!changeType) return null;
  const iso = new Date(now).toISOString();
  const seq = record.seq + 1;
  const applied = applyConfigChange(record.evidence, pairs, changes, now);
  const next: AgentRecord = {
    ...record,
    config,
    fingerprint,
    configVersion: record.configVersion + 1,
    lastConfigChangeAt: iso,
    evidence: applied.model,
    seq,
    updatedAt: iso,
  };
  return { record: next, changes, changeType, seq, score: scoreOfRecord(next, now), pairs: applied.pairs };
}
