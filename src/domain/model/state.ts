// The stored state of one agent under the scoring model, version 3, and the entries of its history
// that the model folds. Everything here is plain JSON: the object stores the state as it is and a
// replay of the entries rebuilds it bit for bit (./replay).

import type { ChangeType } from "../configuration";
import { DIMENSIONS, mapDims, orderedKeys, type Dimension, type Outcome, type Pair, type SignalDimension } from "./vocabulary";

/**
 * One reporter's state on one agent. `dims` is the evidence the scores show: raw pairs (before `c`)
 * after the caps, forgetting and configuration decay. `record` is the same evidence without the
 * configuration decay: every rule that compares evidence with a threshold or with other reporters
 * (lone dissenter, negatives, the bad look, the half-life) reads the record, so a configuration
 * change scales what the scores show and changes no decision (R3).
 */
export interface ReporterState {
  dims: Record<Dimension, Pair>;
  record: Record<Dimension, Pair>;
  /**
   * Its own evidence per dimension as it reported it: the same pairs within the same caps, never
   * forgotten and never decayed. The thresholds on a reporter's own evidence of its sign (a negative
   * needs b ≥ 2, an ally of a lone dissenter 2 on its side) read this: forgetting fades what a
   * reporter said, not whether it said enough to count.
   */
  seen: Record<Dimension, Pair>;
  /** The reporter owned the agent when it last reported (owner weight and cap, no `c`, never independent). */
  owner: boolean;
  /** The reporter was an admin-verified operator at its first report: its seed credibility. */
  verified: boolean;
  firstAt: number;
  lastAt: number;
  /** Distinct UTC days it reported on, and the last of them (day number: ms / 86,400,000, floored). */
  days: number;
  lastDay: number;
  /** The outcome value of its last report (R4 votes). */
  lastValue: number;
  /** Times of its failing reports (outcome value ≤ 0.25) within 72 hours of its last report (R4). */
  failures: number[];
}

/** The caution episode (R3), as of the agent's last entry. */
export interface Episode {
  /** The agent was in caution after its last entry. */
  open: boolean;
  /** When the current episode began: its first caution, cautions less than 90 days apart being one episode. */
  since: number | null;
  /** The last entry's time at which it was in caution; null: never. */
  lastAt: number | null;
}

/**
 * The working state of one agent (JSON). Reporters are keyed by a string (the operator id in the
 * object, a commitment in published entries); every sum over them runs in `idOrder`. `credibility`
 * holds the `c` in force per reporter from the last `credibility` entry naming it (absent: its seed).
 */
export interface AgentState {
  version: 3;
  /** The time the evidence was last forgotten to. */
  at: number;
  reporters: Record<string, ReporterState>;
  credibility: Record<string, number>;
  /** The bootstrap latch was on at the last `credibility` entry. */
  bootstrap: boolean;
  /** The standing snapshot of the last `credibility` entry that named one (absent: none yet). */
  snapshot?: string;
  lastConfigChangeAt: number | null;
  lastReportAt: number | null;
  episode: Episode;
}

export interface ReportInput {
  /** Reporting operator's key. */
  reporter: string;
  /** Report time (ms). */
  at: number;
  outcome: Outcome;
  /** 0..1000. */
  signals: Partial<Record<SignalDimension, number>>;
  /** Reporter base at report time (baseFor): 1.0 verified non-owner, 0.75 unverified non-owner, 0.25 owner. */
  base: number;
  /** 1.5 with a valid receipt, else 1 (evidenceFactor). */
  evidence: number;
  /** 0.5 while the reporter is penalised (penaltyAt), else 1: halves weight and cap. */
  penalty: number;
}

/** A `credibility` entry: the `c` in force from `at` for each reporter it names (R1). */
export interface CredibilityInput {
  at: number;
  values: Record<string, number>;
  bootstrap: boolean;
  /** The standing snapshot the values come from (absent: seeds and the bootstrap latch alone). */
  snapshot?: string;
}

/** One inherited reporter (R6): its negative pairs only, with its days, times and `c`. */
export interface InheritedReporter {
  dims: Partial<Record<Dimension, Pair>>;
  record: Partial<Record<Dimension, Pair>>;
  seen: Partial<Record<Dimension, Pair>>;
  verified: boolean;
  firstAt: number;
  lastAt: number;
  days: number;
  lastDay: number;
  lastValue: number;
  failures: number[];
  credibility: number;
}

/** An `inheritance` entry (R6): what a new agent takes over from the cautioned agent it repeats. */
export interface InheritanceInput {
  at: number;
  reporters: Record<string, InheritedReporter>;
  /** The source was in caution (or suspended) then: the new agent is in caution from this entry. */
  caution: boolean;
}

/** The entries of an agent's history that the model folds, in the order they were applied. */
export type HistoryEvent =
  | ({ kind: "report" } & ReportInput)
  | { kind: "config"; at: number; changes: ChangeType[] }
  | ({ kind: "credibility" } & CredibilityInput)
  | ({ kind: "inheritance" } & InheritanceInput)
  /** The switch from version 2 to 3: no change to the evidence (version 3 folds the whole history). */
  | { kind: "switch"; at: number };

export const zeroPair = (): Pair => ({ a: 0, b: 0 });
export const zeroDims = (): Record<Dimension, Pair> => mapDims(zeroPair);

export function emptyState(now: number): AgentState {
  if (!Number.isFinite(now)) throw new RangeError(`invalid time: ${now}`);
  return {
    version: 3,
    at: now,
    reporters: {},
    credibility: {},
    bootstrap: false,
    lastConfigChangeAt: null,
    lastReportAt: null,
    episode: { open: false, since: null, lastAt: null },
  };
}

/** One reporter with its key; lists of them are always in idOrder. */
export type Entry = readonly [id: string, reporter: ReporterState];

// A state is never changed once made: its entries are computed once.
const entriesCache = new WeakMap<AgentState, Entry[]>();

/** The reporters in idOrder (the list is shared: never change it). */
export function entriesOf(state: AgentState): Entry[] {
  let entries = entriesCache.get(state);
  if (!entries) {
    entries = orderedKeys(state.reporters).map((id) => [id, state.reporters[id]] as const);
    entriesCache.set(state, entries);
  }
  return entries;
}

const copyPairs = (p: Record<Dimension, Pair>): Record<Dimension, Pair> => ({
  reliability: { a: p.reliability.a, b: p.reliability.b },
  quality: { a: p.quality.a, b: p.quality.b },
  financial: { a: p.financial.a, b: p.financial.b },
  security: { a: p.security.a, b: p.security.b },
  stability: { a: p.stability.a, b: p.stability.b },
});

export function copyReporter(r: ReporterState): ReporterState {
  return {
    dims: copyPairs(r.dims),
    record: copyPairs(r.record),
    seen: copyPairs(r.seen),
    owner: r.owner,
    verified: r.verified,
    firstAt: r.firstAt,
    lastAt: r.lastAt,
    days: r.days,
    lastDay: r.lastDay,
    lastValue: r.lastValue,
    failures: [...r.failures],
  };
}

export function reporterEvidence(r: ReporterState): number {
  let n = 0;
  for (const d of DIMENSIONS) n += r.record[d].a + r.record[d].b + r.dims[d].a + r.dims[d].b;
  return n;
}

/**
 * The same state with its reporters (and their credibility) under other keys: a retention snapshot
 * publishes them by commitment, a replay takes them back to the agent's numbers.
 */
export function rekeyState(state: AgentState, keyOf: (key: string) => string): AgentState {
  const rekey = <T>(values: Record<string, T>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [keyOf(k), v]));
  return { ...state, reporters: rekey(state.reporters), credibility: rekey(state.credibility) };
}

/** The state without one reporter's evidence and credibility. */
export function withoutReporter(state: AgentState, key: string): AgentState {
  if (!(key in state.reporters) && !(key in state.credibility)) return state;
  const { [key]: _r, ...reporters } = state.reporters;
  const { [key]: _c, ...credibility } = state.credibility;
  return { ...state, reporters, credibility };
}

/** UTC day number of a time. */
export const dayOf = (t: number) => Math.floor(t / 86_400_000);
