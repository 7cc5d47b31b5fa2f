// An agent's working state, as its Durable Object keeps it, and what each change does to it. Pure:
// the object stores the record and writes the history; the model (./model) scores the evidence.

import type { AgentKey } from "./agent-keys";
import type { AgentConfiguration } from "./configuration";
import { GENESIS, type Entry } from "./entries";
import { CHANGE_TYPES, OUTCOMES, classifyChange, baseFor, damping, MODEL, type ChangeType, type CredibilityInput, type Outcome, type ScoreView, type SignalDimension } from "./model";
import {
  configInto,
  contributionOfEvidence,
  credibilityInto,
  emptyEvidenceOf,
  replayEvidence,
  reportInto,
  scoreOfEvidence,
  versionOf,
  type Evidence,
  type HistoryItem,
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
  /**
   * Each operator the history names (owner or reporter) by its number on this agent, in the order
   * the chain first names it: the model keys evidence by these numbers, so a replay of the entries
   * alone (which name reporters by commitment) gives the same evidence.
   */
  locals: Record<string, number>;
  /** Set while the agent's history moves from the tables before the chain into it (src/durable/agent/legacy.ts). */
  migrating?: boolean;
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
 * The evidence that replaying the history gives, with `ownerId` as the owner (after a claim: the new
 * one, which re-weights the claimer's earlier reports), and the report times within the damping
 * window of `now`, per reporter, for the next report's k.
 */
export function replayHistory(history: HistoryItem[], ownerId: number | null, createdAt: number, now: number, version: 2 | 3 = 3) {
  const recent = new Map<number, number[]>();
  for (const h of history) {
    if (h.kind === "report" && h.at > now - MODEL.dampingWindowMs) recent.set(h.reporter, [...(recent.get(h.reporter) ?? []), h.at]);
  }
  return { evidence: replayEvidence(version, history, ownerId, createdAt), recent };
}

/**
 * What the model replays of a chain of entries: its reports (those withdrawn later left out) and
 * configuration changes in order, with each operator it names numbered in order of first mention
 * (`who` names the operator of an entry: the service passes operator ids, a verifier commitments),
 * and the owner's number at the end of the chain.
 */
export function historyOfEntries(entries: readonly { entry: Entry; who: string | number | null }[]): {
  items: HistoryItem[];
  locals: Map<string, number>;
  owner: number | null;
} {
  const locals = new Map<string, number>();
  // Credibility and inheritance entries name reporters by commitment only, possibly before their
  // first report: such a reporter is numbered there (new ones in commitment order, as the object
  // numbers them) and its later entries find the number by their commitment.
  const byCommitment = new Map<string, number>();
  let count = 0;
  const number = (who: string | number, commitment: string | null) => {
    const key = String(who);
    let local = locals.get(key) ?? (commitment === null ? undefined : byCommitment.get(commitment));
    if (local === undefined) local = ++count;
    locals.set(key, local);
    if (commitment !== null) byCommitment.set(commitment, local);
    return local;
  };
  const named = (commitment: string) => {
    let local = byCommitment.get(commitment);
    if (local === undefined) byCommitment.set(commitment, (local = ++count));
    return local;
  };
  const byLocal = <T>(values: Record<string, T>): Record<string, T> => {
    const out: Record<string, T> = {};
    for (const commitment of Object.keys(values).sort()) out[String(named(commitment))] = values[commitment];
    return out;
  };
  const withdrawn = new Set(entries.flatMap(({ entry }) => (entry.kind === "withdrawal" ? [entry.of] : [])));
  const items: HistoryItem[] = [];
  let owner: number | null = null;
  for (const { entry, who } of entries) {
    const at = Date.parse(entry.at);
    if (entry.kind === "registration" || entry.kind === "claim") {
      owner = who === null ? null : number(who, entry.owner);
    } else if (entry.kind === "report") {
      const reporter = number(who!, entry.reporter);
      if (withdrawn.has(entry.n)) continue;
      items.push({ kind: "report", id: entry.n, reporter, at, outcome: entry.outcome, signals: entry.signals, base: entry.base, evidenceFactor: entry.evidence, penalty: entry.penalty });
    } else if (entry.kind === "config" && entry.changes.length > 0) {
      items.push({ kind: "config", at, changes: entry.changes });
    } else if (entry.kind === "credibility") {
      items.push({ kind: "credibility", at, values: byLocal(entry.values), bootstrap: entry.bootstrap ?? false, ...(entry.snapshot === undefined ? {} : { snapshot: entry.snapshot }) });
    } else if (entry.kind === "inheritance") {
      items.push({ kind: "inheritance", input: { at, reporters: byLocal(entry.reporters), caution: entry.caution } });
    } else if (entry.kind === "model" && entry.version === 3) {
      items.push({ kind: "switch", at });
    }
  }
  return { items, locals, owner };
}

/** The model a chain is served by: 3 from its model-switch entry, or when it was created under version 3 (`born`). */
export const chainModel = (entries: readonly { entry: Entry }[], born: 2 | 3): 2 | 3 =>
  born === 3 || entries.some(({ entry }) => entry.kind === "model" && entry.version === 3) ? 3 : 2;

/** The replay of a chain of entries under `version`, with each operator's number on the agent. */
export function replayOf(entries: readonly { entry: Entry; who: string | number | null }[], createdAt: number, now: number, version: 2 | 3 = 3) {
  const history = historyOfEntries(entries);
  const replayed = replayHistory(history.items, history.owner, createdAt, now, version);
  return { ...replayed, locals: Object.fromEntries(history.locals) as Record<string, number> };
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
