// One pair, one vote: the state of one (agent, reporter) pair (the `pairs` row keyed (sid,
// reporter)), what a report does to it, and what a configuration change does to its votes. Volume
// from one reporter never adds weight: a pair holds one vote per dimension whatever it sent.

import type { ChangeType } from "../configuration";
import { MODEL_V4, LEVELS } from "./constants";
import { DIMENSIONS, SIGNAL_DIMENSIONS, mapDims, requireTime, type Dimension, type Outcome, type SignalDimension } from "./vocabulary";

/** Where the agent's aggregates hold a pair's contribution (so it can be taken out exactly). */
export interface Placement {
  /** null: the main sums; a day number: the tenure bucket maturing that UTC day (./aggregate). */
  pending: number | null;
  /** The pair's last report is in the hour bucket of `lastAt` (the fast caution's window). */
  hour: boolean;
  /** The pair's last report, failing, is in the day bucket of `lastAt` (the recent failures' window). */
  day: boolean;
}

export interface PairState {
  reporter: string;
  /** The reporter owned the agent at its last report: its vote weighs `ownerCredibility` and enters no mass. */
  owner: boolean;
  /** The credibility in force for the reporter on this agent, in levels (c × 20): from the agent's last `credibility` entry naming it, else 0. */
  level: number;
  /** The vote per dimension (0..1000); null where the pair never observed the dimension. */
  votes: Record<Dimension, number | null>;
  /** Reports in the pair (0: a pair named by a credibility entry before its first report). */
  reports: number;
  firstAt: number;
  lastAt: number;
  /** The last report failed (its stability observation is at most `failAtOrBelow`). */
  failing: boolean;
  receipts: number;
  firstReceiptAt: number | null;
  placement: Placement;
}

export interface ReportInput {
  /** The reporting operator's key on the agent. */
  reporter: string;
  at: number;
  outcome: Outcome;
  /** 0..1000 each; absent dimensions are not observed. */
  signals: Partial<Record<SignalDimension, number>>;
  /** The report carried a valid receipt signed by the agent's key. */
  receipt: boolean;
}

export function outcomeValue(outcome: Outcome): number {
  if (!Object.hasOwn(MODEL_V4.outcomeValue, outcome)) throw new RangeError(`unknown outcome: ${String(outcome)}`);
  return MODEL_V4.outcomeValue[outcome];
}

/** A pair the agent has not heard from yet, holding the credibility a `credibility` entry gave it. */
export function stubPair(reporter: string, level: number, at: number): PairState {
  return {
    reporter,
    owner: false,
    level,
    votes: mapDims(() => null),
    reports: 0,
    firstAt: at,
    lastAt: at,
    failing: false,
    receipts: 0,
    firstReceiptAt: null,
    placement: { pending: null, hour: false, day: false },
  };
}

/** The first report's observation, then `voteStep` of the way from the vote to each later one. */
export function nextVote(vote: number | null, observed: number): number {
  if (vote === null) return observed;
  return vote + Math.round(MODEL_V4.voteStep * (observed - vote));
}

/** A signal as the model observes it: clamped to 0..1000 and rounded; null when it is not a number. */
function observedSignal(signal: number | undefined): number | null {
  if (typeof signal !== "number" || !Number.isFinite(signal)) return null;
  return Math.round(Math.min(1000, Math.max(0, signal)));
}

/** The pair after one more report (`pair` null: the reporter's first on the agent). Placement is the aggregates' to set. */
export function observe(pair: PairState | null, input: ReportInput, owner: boolean): PairState {
  requireTime("report time", input.at);
  if (typeof input.reporter !== "string" || input.reporter.length === 0) throw new RangeError(`invalid reporter: ${String(input.reporter)}`);
  const x = outcomeValue(input.outcome);
  const before = pair ?? stubPair(input.reporter, 0, input.at);
  const votes = { ...before.votes };
  votes.stability = nextVote(votes.stability, x);
  for (const d of SIGNAL_DIMENSIONS) {
    const s = observedSignal(input.signals[d]);
    if (s !== null) votes[d] = nextVote(votes[d], s);
  }
  const first = before.reports === 0;
  return {
    ...before,
    owner,
    votes,
    reports: before.reports + 1,
    firstAt: first ? input.at : Math.min(before.firstAt, input.at),
    lastAt: first ? input.at : Math.max(before.lastAt, input.at),
    failing: x <= MODEL_V4.failAtOrBelow,
    receipts: before.receipts + (input.receipt ? 1 : 0),
    firstReceiptAt: input.receipt ? Math.min(before.firstReceiptAt ?? input.at, input.at) : before.firstReceiptAt,
  };
}

/** The kept fraction of the changes on a dimension (several multiply; one listed twice counts once). */
export function keptFraction(changes: readonly ChangeType[], d: Dimension): number {
  let kept = 1;
  for (const c of new Set(changes)) {
    const factors: { all: number } & Partial<Record<Dimension, number>> = MODEL_V4.changeKept[c];
    kept *= factors[d] ?? factors.all;
  }
  return kept;
}

/**
 * The pair's votes above 500 on the dimensions of `kept`, moved toward 500 keeping `kept[d]` of their
 * distance (rounded toward 500): the configuration decay of what was earned. Votes at or below 500
 * never move, so a change never raises a score nor softens a complaint.
 */
export function decayVotes(pair: PairState, kept: Partial<Record<Dimension, number>>): PairState {
  let changed = false;
  const votes = { ...pair.votes };
  for (const d of DIMENSIONS) {
    const k = kept[d];
    const v = votes[d];
    if (k === undefined || v === null || !(v > 500)) continue;
    const next = 500 + Math.floor(k * (v - 500));
    if (next !== v) {
      votes[d] = next;
      changed = true;
    }
  }
  return changed ? { ...pair, votes } : pair;
}

/** A credibility value (0..1, a multiple of 0.05) as a level; a value off the grid is refused. */
export function levelOf(c: number): number {
  const level = Math.round(c * LEVELS);
  if (!(Number.isFinite(c) && c >= 0 && c <= 1 && Math.abs(c * LEVELS - level) < 1e-6))
    throw new RangeError(`invalid credibility: ${c} (a multiple of ${1 / LEVELS} in 0..1)`);
  return level;
}

/** The credibility a level stands for, as entries and scores show it (0.35, not 0.35000000000000003). */
export const credibilityOfLevel = (level: number) => level / LEVELS;
