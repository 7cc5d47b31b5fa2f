// What each entry does to the evidence (version 3), before the caution episode is brought up to date
// (./transitions): forgetting, a report (weight, days, caps), a configuration change, a credibility
// entry and an inheritance. Every function returns a new state and never changes the one it is given.

import { CHANGE_TYPES, type ChangeType } from "../configuration";
import { MODEL } from "./constants";
import {
  copyReporter,
  dayOf,
  entriesOf,
  reporterEvidence,
  zeroDims,
  type AgentState,
  type CredibilityInput,
  type Entry,
  type InheritanceInput,
  type ReportInput,
  type ReporterState,
} from "./state";
import { DIMENSIONS, SIGNAL_DIMENSIONS, mapDims, requireTime, type Dimension, type Outcome, type Pair } from "./vocabulary";
import { assess } from "./assess";
import { sums, weigh } from "./weighing";

export function baseFor(input: { isOwner: boolean; verified: boolean }): number {
  const b = MODEL.reporterBase;
  return input.isOwner ? b.owner : input.verified ? b.verified : b.unverified;
}

export function evidenceFactor(hasValidReceipt: boolean): number {
  return hasValidReceipt ? MODEL.receiptFactor : 1;
}

/** 1/√(1+k): the k-th repeat within the damping window weighs less. A negative k counts as 0. */
export function damping(k: number): number {
  if (!Number.isFinite(k)) throw new RangeError(`invalid report count: ${k}`);
  return 1 / Math.sqrt(1 + Math.max(0, k));
}

/**
 * The penalty factor of a report at `at` by a reporter whose reports were withdrawn at `withdrawnAt`:
 * halved for `durationMs` from the moment a withdrawal makes `withdrawals` within `windowMs`, else 1.
 */
export function penaltyAt(withdrawnAt: readonly number[], at: number): number {
  const p = MODEL.penalty;
  const times = [...withdrawnAt].sort((x, y) => x - y);
  for (let i = p.withdrawals - 1; i < times.length; i++) {
    const trigger = times[i];
    const inWindow = trigger - times[i - (p.withdrawals - 1)] < p.windowMs;
    if (inWindow && trigger <= at && at - trigger < p.durationMs) return p.factor;
  }
  return 1;
}

export function outcomeValue(outcome: Outcome): number {
  if (!Object.hasOwn(MODEL.outcomeValue, outcome)) throw new RangeError(`unknown outcome: ${String(outcome)}`);
  return MODEL.outcomeValue[outcome];
}

/** The state with these reporters (in idOrder); `dropped` reporters lose their `c` in force too. */
function withEntries(state: AgentState, at: number, entries: readonly Entry[], dropped: readonly string[] = [], credibility = state.credibility): AgentState {
  const reporters: Record<string, ReporterState> = {};
  for (const [id, r] of entries) reporters[id] = r;
  let kept = credibility;
  if (dropped.some((id) => credibility[id] !== undefined)) {
    kept = { ...credibility };
    for (const id of dropped) delete kept[id];
  }
  return { ...state, at, reporters, credibility: kept };
}

const scalePair = (p: Pair, k: number): Pair => ({ a: p.a * k, b: p.b * k });

/** The pairs scaled per dimension. Written out: this is the hot path. */
function scaled(p: Record<Dimension, Pair>, kept: Record<Dimension, number>): Record<Dimension, Pair> {
  return {
    reliability: scalePair(p.reliability, kept.reliability),
    quality: scalePair(p.quality, kept.quality),
    financial: scalePair(p.financial, kept.financial),
    security: scalePair(p.security, kept.security),
    stability: scalePair(p.stability, kept.stability),
  };
}

/**
 * Forgets from state.at to now: per dimension, every reporter's evidence (shown and record) scales by
 * 2^(−Δt / h), h = 90 days where the record's weighted α ≥ β at state.at, else 365 days. The factor is
 * common to all reporters, so no weighted sum changes sign. Time never runs backwards. A reporter
 * outside the R_c window whose evidence has faded below `pruneBelow` is dropped (its `c` with it).
 * Returns the same state when nothing is forgotten: callers copy what they change.
 */
export function forgetTo(state: AgentState, now: number): AgentState {
  requireTime("time", now);
  const before = entriesOf(state);
  const elapsed = now - state.at;
  if (!(elapsed > 0)) return state;
  // The assessment at state.at is usually the one the last entry made (kept): its record sums give the signs.
  const signs = assess(state, before, state.at).record.sums;
  const h = MODEL.halfLifeMs;
  const kept = mapDims((d) => Math.pow(2, -elapsed / (signs[d].a >= signs[d].b ? h.good : h.bad)));
  const entries: Entry[] = [];
  const dropped: string[] = [];
  for (const [id, r] of before) {
    const next: ReporterState = {
      dims: scaled(r.dims, kept),
      record: scaled(r.record, kept),
      seen: r.seen,
      owner: r.owner,
      verified: r.verified,
      firstAt: r.firstAt,
      lastAt: r.lastAt,
      days: r.days,
      lastDay: r.lastDay,
      lastValue: r.lastValue,
      failures: r.failures,
    };
    const faded = now - next.lastAt > MODEL.independentReporterWindowMs && reporterEvidence(next) < MODEL.pruneBelow;
    if (faded) dropped.push(id);
    else entries.push([id, next]);
  }
  return withEntries(state, now, entries, dropped);
}

function requireFactor(name: string, v: number, max: number, allowZero: boolean): void {
  if (!Number.isFinite(v) || v > max || v < 0 || (!allowZero && v === 0)) throw new RangeError(`invalid ${name}: ${v}`);
}

function observe(p: Pair, x: number, w: number): void {
  p.a += w * x;
  p.b += w * (1 - x);
}

/** Scales the pair down to sum `cap` when it sums to more. */
function capPair(p: Pair, cap: number): void {
  const sum = p.a + p.b;
  if (sum > cap) {
    p.a = cap * (p.a / sum);
    p.b = cap * (p.b / sum);
  }
}

/** The cap of a reporter's pair (R2): owner 2.5, others min(10, 2.5 × distinct days); × penalty. */
export function capOf(owner: boolean, days: number, penalty: number): number {
  const c = MODEL.cap;
  return (owner ? c.owner : Math.min(c.reporter, c.perDay * days)) * penalty;
}

export const isOwnerOf = (reporter: string, ownerKey: string | null) => ownerKey !== null && reporter === ownerKey;

/**
 * Applies one report's evidence. `k` = earlier reports by the same reporter on this agent in the
 * damping window. The owner base and cap apply when the reporter is `ownerKey`, whatever base the
 * report carries (a replay with a new owner re-weights the claimer's reports).
 */
export function addReport(state: AgentState, input: ReportInput, ownerKey: string | null, k: number): { state: AgentState; weight: number } {
  const x = outcomeValue(input.outcome);
  requireTime("report time", input.at);
  requireFactor("base", input.base, MODEL.reporterBase.verified, true);
  requireFactor("evidence factor", input.evidence, MODEL.receiptFactor, false);
  requireFactor("penalty factor", input.penalty, 1, false);
  if (typeof input.reporter !== "string" || input.reporter.length === 0) throw new RangeError(`invalid reporter: ${String(input.reporter)}`);
  const owner = isOwnerOf(input.reporter, ownerKey);
  const weight = (owner ? MODEL.reporterBase.owner : input.base) * damping(k) * input.evidence * input.penalty;

  const next = forgetTo(state, input.at);
  const previous = next.reporters[input.reporter];
  const day = dayOf(input.at);
  const r: ReporterState = previous ? copyReporter(previous) : {
    dims: zeroDims(),
    record: zeroDims(),
    seen: zeroDims(),
    owner,
    verified: false,
    firstAt: input.at,
    lastAt: input.at,
    days: 0,
    lastDay: day - 1,
    lastValue: x,
    failures: [],
  };
  if (day > r.lastDay) {
    r.days++;
    r.lastDay = day;
  }
  r.owner = owner;
  r.verified = input.base >= MODEL.reporterBase.verified;
  r.firstAt = Math.min(r.firstAt, input.at);
  if (input.at >= r.lastAt) {
    r.lastAt = input.at;
    r.lastValue = x;
  }
  if (x <= MODEL.fastPath.failAtOrBelow) r.failures.push(input.at);
  r.failures = r.failures.filter((t) => t > r.lastAt - MODEL.fastPath.fastCaution.windowMs);
  const cap = capOf(owner, r.days, input.penalty);
  const seen = (d: Dimension, v: number) => {
    observe(r.dims[d], v, weight);
    observe(r.record[d], v, weight);
    observe(r.seen[d], v, weight);
  };
  seen("stability", x);
  for (const d of SIGNAL_DIMENSIONS) {
    const signal = input.signals[d];
    // Validation happens at the edge; here a bad value is skipped or clamped rather than stored.
    if (typeof signal !== "number" || !Number.isFinite(signal)) continue;
    seen(d, Math.min(1000, Math.max(0, signal)) / 1000);
  }
  for (const d of DIMENSIONS) {
    capPair(r.dims[d], cap);
    capPair(r.record[d], cap);
    capPair(r.seen[d], cap);
  }
  const lastReportAt = next.lastReportAt === null ? input.at : Math.max(next.lastReportAt, input.at);
  // Key order in the stored map carries no meaning: every sum runs in idOrder (entriesOf).
  return { state: { ...next, reporters: { ...next.reporters, [input.reporter]: r }, lastReportAt }, weight };
}

function keptFraction(changes: readonly ChangeType[], d: Dimension): number {
  let kept = 1;
  for (const c of new Set(changes)) {
    const factors: { all: number } & Partial<Record<Dimension, number>> = MODEL.changeKept[c];
    kept *= factors[d] ?? factors.all;
  }
  return kept;
}

/**
 * Forgets to now, then on every dimension whose shown weighted α > β keeps the changes' fraction of
 * every reporter's shown evidence there. The record is untouched: every weight and decision stays as
 * it was, so every shown dimension moves toward 500 by the same factor and nothing rises (R3).
 */
export function addConfigChange(state: AgentState, changes: ChangeType[], now: number): AgentState {
  for (const c of changes) {
    if (!(CHANGE_TYPES as readonly string[]).includes(c)) throw new RangeError(`unknown change: ${String(c)}`);
  }
  const next = forgetTo(state, now);
  if (changes.length === 0) return next;
  const entries: Entry[] = entriesOf(next).map(([id, r]) => [id, copyReporter(r)] as const);
  const shown = sums(weigh(next, entries, next.at), "dims");
  for (const d of DIMENSIONS) {
    if (!(shown[d].a > shown[d].b)) continue;
    const kept = keptFraction(changes, d);
    for (const [, r] of entries) {
      r.dims[d].a *= kept;
      r.dims[d].b *= kept;
    }
  }
  return withEntries({ ...next, lastConfigChangeAt: now }, next.at, entries);
}

/** Forgets to the entry's time and puts its values in force (R1). */
export function addCredibility(state: AgentState, input: CredibilityInput): AgentState {
  requireTime("credibility time", input.at);
  for (const [id, c] of Object.entries(input.values)) {
    if (!(Number.isFinite(c) && c >= 0 && c <= 1)) throw new RangeError(`invalid credibility for ${id}: ${c}`);
  }
  const next = forgetTo(state, input.at);
  const snapshot = input.snapshot ?? next.snapshot;
  return { ...next, credibility: { ...next.credibility, ...input.values }, bootstrap: input.bootstrap, ...(snapshot === undefined ? {} : { snapshot }) };
}

/**
 * Forgets to the entry's time and adds the inherited reporters (R6): a reporter new to the agent
 * arrives with its negative pairs, days, times and `c`; one already there adds the pairs to its own
 * (keeping the larger day count, the earlier first report, the later last report) within its cap.
 */
export function addInheritance(state: AgentState, input: InheritanceInput): AgentState {
  requireTime("inheritance time", input.at);
  const next = forgetTo(state, input.at);
  const reporters = { ...next.reporters };
  const credibility = { ...next.credibility };
  for (const id of Object.keys(input.reporters).sort()) {
    const h = input.reporters[id];
    const r: ReporterState = reporters[id] ? copyReporter(reporters[id]) : {
      dims: zeroDims(),
      record: zeroDims(),
      seen: zeroDims(),
      owner: false,
      verified: h.verified,
      firstAt: h.firstAt,
      lastAt: h.lastAt,
      days: 0,
      lastDay: h.lastDay,
      lastValue: h.lastValue,
      failures: [],
    };
    if (r.owner) continue;
    for (const d of DIMENSIONS) {
      r.dims[d].a += h.dims[d]?.a ?? 0;
      r.dims[d].b += h.dims[d]?.b ?? 0;
      r.record[d].a += h.record[d]?.a ?? 0;
      r.record[d].b += h.record[d]?.b ?? 0;
      r.seen[d].a += h.seen[d]?.a ?? 0;
      r.seen[d].b += h.seen[d]?.b ?? 0;
    }
    r.days = Math.max(r.days, h.days);
    r.lastDay = Math.max(r.lastDay, h.lastDay);
    r.firstAt = Math.min(r.firstAt, h.firstAt);
    if (h.lastAt > r.lastAt) {
      r.lastAt = h.lastAt;
      r.lastValue = h.lastValue;
    }
    r.failures = [...new Set([...r.failures, ...h.failures])].sort((x, y) => x - y).filter((t) => t > r.lastAt - MODEL.fastPath.fastCaution.windowMs);
    const cap = capOf(false, r.days, 1);
    for (const d of DIMENSIONS) {
      capPair(r.dims[d], cap);
      capPair(r.record[d], cap);
      capPair(r.seen[d], cap);
    }
    reporters[id] = r;
    if (credibility[id] === undefined) credibility[id] = h.credibility;
  }
  return withEntries({ ...next, reporters }, next.at, entriesOf({ ...next, reporters }), [], credibility);
}
