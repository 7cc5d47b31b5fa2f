// An agent's working state, as its Durable Object keeps it, and what each change does to it. Pure:
// the object stores the record and writes the history; the model (./model) scores the evidence.

import type { AgentKey } from "./agent-keys";
import type { AgentConfiguration } from "./configuration";
import { GENESIS } from "./entries";
import { newLogTags, type LogTags } from "./log/epochs";
import { CHANGE_TYPES, OUTCOMES, classifyChange, baseFor, damping, MODEL, type ChangeType, type CredibilityInput, type Outcome, type ScoreView, type SignalDimension } from "./model";
import {
  configInto,
  contributionOfEvidence,
  credibilityInto,
  emptyEvidenceOf,
  reportInto,
  scoreOfEvidence,
  versionOf,
  type Evidence,
} from "./scoring";

export type { HistoryItem } from "./scoring";

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
  /** The scoring model's evidence: version 3's state, or version 2's before the agent's switch (./scoring). */
  evidence: Evidence;
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
  /**
   * Each operator the history names (owner or reporter) by its number on this agent, in the order
   * the chain first names it: the model keys evidence by these numbers, so a replay of the entries
   * alone (which name reporters by commitment) gives the same evidence.
   */
  locals: Record<string, number>;
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
export type ScoreEventType =
  | ReturnType<typeof scoreEvent.transaction>
  | ReturnType<typeof scoreEvent.configChange>
  | typeof scoreEvent.withdrawal;
export const SCORE_EVENT_TYPES = [
  ...OUTCOMES.map(scoreEvent.transaction),
  ...CHANGE_TYPES.map(scoreEvent.configChange),
  scoreEvent.withdrawal,
] as ScoreEventType[] as [ScoreEventType, ...ScoreEventType[]];

export function newRecord(
  ref: AgentRef,
  input: { operatorId: number | null; name: string; description: string | null; config: AgentConfiguration; fingerprint: string; claimTokenHash: string | null; similarToCautioned?: boolean },
  now: number,
  version: 2 | 3 = 3,
): AgentRecord {
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
    evidence: emptyEvidenceOf(version, now),
    outcomes: {},
    seq: 0,
    chainHash: GENESIS,
    logTags: newLogTags(input.operatorId),
    locals: input.operatorId === null ? {} : { [input.operatorId]: 1 },
    createdAt: iso,
    updatedAt: iso,
  };
}

/**
 * The agent's score at `now`. The owner's operator score only decides the OPERATOR_RECORD reason;
 * where it is not at hand (inside the agent's object) the neutral 500 is used.
 */
export function scoreOfRecord(record: AgentRecord, now: number, operatorScore = 500): ScoreView {
  return scoreOfEvidence(record.evidence, {
    now,
    ownerLocal: ownerLocal(record),
    identityLevel: record.identityLevel,
    operatorScore,
    similarToCautioned: record.similarToCautioned ?? false,
  });
}

/** The owner's number on the agent (null: unclaimed). */
export const ownerLocal = (record: Pick<AgentRecord, "operatorId" | "locals">): number | null =>
  record.operatorId === null ? null : (record.locals[record.operatorId] ?? null);

/** The operator's number on the agent, given one when the chain names it for the first time. */
export function localOf(record: AgentRecord, operatorId: number): { record: AgentRecord; local: number } {
  const known = record.locals[operatorId];
  if (known !== undefined) return { record, local: known };
  const local = Object.keys(record.locals).length + 1;
  return { record: { ...record, locals: { ...record.locals, [operatorId]: local } }, local };
}

/** What time alone can change and the alarm waits for: the confidence and recommendation at `at`. */
export function faceAt(record: AgentRecord, at: number): string {
  const s = scoreOfRecord(record, at);
  return `${s.confidence} ${s.recommendation}`;
}

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * When time alone next changes the agent's confidence or recommendation, within `horizonMs` of
 * `now`, to the minute; `now + horizonMs` when nothing changes before then. Evidence fades
 * continuously and reporters leave the 90-day window, so the face can change without a report.
 * One score at the horizon settles the common case; only a face that differs there is searched,
 * hour by hour, then halving within the hour.
 */
export function nextFaceChange(record: AgentRecord, now: number, horizonMs: number): number {
  const face = (at: number) => faceAt(record, at);
  const start = face(now);
  const end = now + horizonMs;
  if (face(end) === start) return end;
  let same = now;
  let changed = end;
  for (let at = now + HOUR_MS; at < end; at += HOUR_MS) {
    if (face(at) !== start) {
      changed = at;
      break;
    }
    same = at;
  }
  while (changed - same > MINUTE_MS) {
    const mid = same + Math.floor((changed - same) / 2);
    if (face(mid) === start) same = mid;
    else changed = mid;
  }
  return changed;
}

export const contributionOf = (record: AgentRecord, now: number) => contributionOfEvidence(record.evidence, ownerLocal(record), now);

/** The model the record is served by. */
export const modelOf = (record: Pick<AgentRecord, "evidence">): 2 | 3 => versionOf(record.evidence);

/** Applies a credibility entry (values by the reporters' numbers on the agent). */
export function applyCredibilityTo(record: AgentRecord, input: CredibilityInput): AgentRecord {
  return { ...record, evidence: credibilityInto(record.evidence, input), seq: record.seq + 1 };
}

/** A transaction report as the agent's object receives it. */
export interface Report {
  reporter: number;
  /** The reporter's verified flag when it reported. */
  verified: boolean;
  at: number;
  transactionType: string;
  outcome: Outcome;
  signals: Partial<Record<SignalDimension, number>>;
  metadata: Record<string, unknown> | null;
  /** 1.5 when a valid receipt backs the report, else 1. */
  evidenceFactor: number;
  /** 0.5 while the reporter is penalised, else 1. */
  penalty: number;
}

/** A report as history keeps it: enough to replay its weight exactly. */
export interface RecordedReport extends Report {
  /** The reporter's number on the agent. */
  local: number;
  id: number;
  seq: number;
  base: number;
  damping: number;
  weight: number;
}

/**
 * Applies one report: the reporter's base (owner, verified or not), its damping by `k` earlier reports
 * of the same reporter in the last 24 hours, the receipt and penalty factors, then the model.
 */
export function applyReportTo(before: AgentRecord, report: Report, k: number): { record: AgentRecord; recorded: RecordedReport; score: ScoreView } {
  const { record, local } = localOf(before, report.reporter);
  const base = baseFor({ isOwner: report.reporter === record.operatorId, verified: report.verified });
  const applied = reportInto(
    record.evidence,
    { reporter: local, at: report.at, outcome: report.outcome, signals: report.signals, base, evidence: report.evidenceFactor, penalty: report.penalty },
    ownerLocal(record),
    k,
  );
  const seq = record.seq + 1;
  const next: AgentRecord = {
    ...record,
    evidence: applied.state,
    outcomes: { ...record.outcomes, [report.outcome]: (record.outcomes[report.outcome] ?? 0) + 1 },
    seq,
    updatedAt: new Date(report.at).toISOString(),
  };
  const recorded: RecordedReport = { ...report, local, id: transactionIdOf(record.num, seq), seq, base, damping: damping(k), weight: applied.weight };
  return { record: next, recorded, score: scoreOfRecord(next, report.at) };
}

/** A detected configuration change: the new configuration and every change found, most severe first. */
export interface ConfigChanged {
  record: AgentRecord;
  changes: ChangeType[];
  changeType: ChangeType;
  seq: number;
  score: ScoreView;
}

/** Compares the configuration with the stored one; null when nothing changed. */
export function applyConfigTo(record: AgentRecord, config: AgentConfiguration, fingerprint: string, now: number): ConfigChanged | null {
  const { changes, changeType } = classifyChange(record.config, config);
  if (!changeType) return null;
  const iso = new Date(now).toISOString();
  const seq = record.seq + 1;
  const next: AgentRecord = {
    ...record,
    config,
    fingerprint,
    configVersion: record.configVersion + 1,
    lastConfigChangeAt: iso,
    evidence: configInto(record.evidence, changes, now),
    seq,
    updatedAt: iso,
  };
  return { record: next, changes, changeType, seq, score: scoreOfRecord(next, now) };
}

/**
 * The base of a report written before sharding, which stored only its weight (base × damping): the
 * base whose damped value is nearest, given the k the same rule counts.
 */
export function legacyBase(weight: number, k: number): number {
  const undamped = weight / damping(k);
  const bases = Object.values(MODEL.reporterBase);
  return bases.reduce((best, b) => (Math.abs(b - undamped) < Math.abs(best - undamped) ? b : best), bases[0]);
}
