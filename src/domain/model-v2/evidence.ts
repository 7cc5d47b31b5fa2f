// The scoring model, version 2 (frozen): the evidence and what each report and change does to it.

import { CHANGE_TYPES, type ChangeType } from "../configuration";
import { DIMENSIONS, SIGNAL_DIMENSIONS, idOrder, mapDims, type Dimension, type Outcome, type Pair } from "../model/vocabulary";
import { MODEL, type AgentEvidence, type HistoryEvent, type ReportInput, type ReporterState } from "./constants";

/** One reporter's state with its id; lists of them are always in `idOrder`. */
export type Entry = readonly [id: string, reporter: ReporterState];

/**
 * The reporters in one fixed order, so that every sum over reporters adds the same numbers in the
 * same order however the map was built or parsed: bit-identical results.
 */
export function entriesOf(state: AgentEvidence): Entry[] {
  const ids = Object.keys(state.reporters);
  for (let i = 1; i < ids.length; i++) {
    if (idOrder(ids[i - 1], ids[i]) > 0) {
      ids.sort(idOrder);
      break;
    }
  }
  return ids.map((id) => [id, state.reporters[id]] as const);
}

function stateOf(at: number, entries: readonly Entry[], lastConfigChangeAt: number | null): AgentEvidence {
  const reporters: Record<string, ReporterState> = {};
  for (const [id, r] of entries) reporters[id] = r;
  return { at, reporters, lastConfigChangeAt };
}

function requireTime(name: string, t: number): void {
  if (!Number.isFinite(t)) throw new RangeError(`invalid ${name}: ${t}`);
}

export function emptyEvidence(now: number): AgentEvidence {
  requireTime("time", now);
  return { at: now, reporters: {}, lastConfigChangeAt: null };
}

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
 * The penalty factor of a report at `at` by a reporter whose reports were withdrawn at
 * `withdrawnAt`: halved for `durationMs` from the moment a withdrawal makes `withdrawals` within
 * `windowMs`, else 1. The caller stores the factor with the report, so a replay reproduces it.
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

/** Per dimension, the evidence of every reporter but `skip` (null: all of them), summed in entry order. */
export function totals(entries: readonly Entry[], skip: string | null): Record<Dimension, Pair> {
  const sum = (d: Dimension): Pair => {
    let a = 0;
    let b = 0;
    for (const [id, r] of entries) {
      if (id === skip) continue;
      const p = r.dims[d];
      a += p.a;
      b += p.b;
    }
    return { a, b };
  };
  return mapDims(sum);
}

export function reporterEvidence(r: ReporterState): number {
  let n = 0;
  for (const d of DIMENSIONS) n += r.dims[d].a + r.dims[d].b;
  return n;
}

const scalePair = (p: Pair, k: number): Pair => ({ a: p.a * k, b: p.b * k });

/** A copy of the reporter with its evidence scaled by `kept` per dimension. Written out: this is the hot path. */
function scaled(r: ReporterState, kept: Record<Dimension, number>): ReporterState {
  const d = r.dims;
  return {
    dims: {
      reliability: scalePair(d.reliability, kept.reliability),
      quality: scalePair(d.quality, kept.quality),
      financial: scalePair(d.financial, kept.financial),
      security: scalePair(d.security, kept.security),
      stability: scalePair(d.stability, kept.stability),
    },
    lastAt: r.lastAt,
  };
}

const KEEP_ALL: Record<Dimension, number> = { reliability: 1, quality: 1, financial: 1, security: 1, stability: 1 };

/** What forgetTo computes, as the time forgotten to and the entries (fresh objects the caller may change). */
export function forget(state: AgentEvidence, now: number): { at: number; entries: Entry[] } {
  requireTime("time", now);
  const before = entriesOf(state);
  const elapsed = now - state.at;
  if (!(elapsed > 0)) return { at: state.at, entries: before.map(([id, r]) => [id, scaled(r, KEEP_ALL)] as const) };
  const sums = totals(before, null);
  const h = MODEL.halfLifeMs;
  const kept = mapDims((d) => Math.pow(2, -elapsed / (sums[d].a >= sums[d].b ? h.good : h.bad)));
  const entries: Entry[] = [];
  for (const [id, r] of before) {
    const next = scaled(r, kept);
    const faded = now - next.lastAt > MODEL.independentReporterWindowMs && reporterEvidence(next) < MODEL.pruneBelow;
    if (!faded) entries.push([id, next]);
  }
  return { at: now, entries };
}

/**
 * Forgets from state.at to now: per dimension, every reporter's evidence scales by
 * 2^(−Δt / half-life), the half-life chosen by the dimension's sign (α ≥ β: good, else bad). The
 * factor is common to both sides and all reporters, so no score crosses 500. Time never runs
 * backwards: when now ≤ at nothing is forgotten and `at` stays. A reporter outside the R window
 * whose evidence has faded below `pruneBelow` is dropped. Returns a new state.
 */
export function forgetTo(state: AgentEvidence, now: number): AgentEvidence {
  const { at, entries } = forget(state, now);
  return stateOf(at, entries, state.lastConfigChangeAt);
}

function outcomeValue(outcome: Outcome): number {
  if (!Object.hasOwn(MODEL.outcomeValue, outcome)) throw new RangeError(`unknown outcome: ${String(outcome)}`);
  return MODEL.outcomeValue[outcome];
}

function requireFactor(name: string, v: number, max: number, allowZero: boolean): void {
  if (!Number.isFinite(v) || v > max || v < 0 || (!allowZero && v === 0)) throw new RangeError(`invalid ${name}: ${v}`);
}

function observe(p: Pair, x: number, w: number): void {
  p.a += w * x;
  p.b += w * (1 - x);
}

/** Scales the pair down to sum `cap` when it sums to more (a pair of one sign lands exactly on the cap). */
function capPair(p: Pair, cap: number): void {
  const sum = p.a + p.b;
  if (sum > cap) {
    p.a = cap * (p.a / sum);
    p.b = cap * (p.b / sum);
  }
}

export const isOwnerOf = (reporter: number | string, ownerId: number | null) => ownerId !== null && String(reporter) === String(ownerId);

/**
 * Applies one report. `k` = earlier reports by the same reporter on this agent in the damping window
 * (the caller counts them on the live path; replay counts them itself). The base used is the owner
 * base when input.reporter is the owner, else input.base: a replay with a new owner is the claim
 * re-weighting. Forgets to input.at, adds w·x / w·(1−x) to the reporter's pairs (stability from the
 * outcome, each signal on its own dimension), then brings each of the reporter's pairs within its
 * cap C × penalty (C = 10, owner 2.5).
 */
export function applyReport(
  state: AgentEvidence,
  input: ReportInput,
  ownerId: number | null,
  k: number,
): { state: AgentEvidence; weight: number } {
  const x = outcomeValue(input.outcome);
  requireTime("report time", input.at);
  requireFactor("base", input.base, MODEL.reporterBase.verified, true);
  requireFactor("evidence factor", input.evidence, MODEL.receiptFactor, false);
  requireFactor("penalty factor", input.penalty, 1, false);
  if (!Number.isSafeInteger(input.reporter)) throw new RangeError(`invalid reporter: ${input.reporter}`);
  const owner = isOwnerOf(input.reporter, ownerId);
  const base = owner ? MODEL.reporterBase.owner : input.base;
  const weight = base * damping(k) * input.evidence * input.penalty;
  const cap = (owner ? MODEL.cap.owner : MODEL.cap.reporter) * input.penalty;

  const { at, entries } = forget(state, input.at);
  const id = String(input.reporter);
  let index = entries.findIndex(([other]) => idOrder(other, id) >= 0);
  if (index < 0) index = entries.length;
  const previous = entries[index]?.[0] === id ? entries[index][1] : undefined;
  const dims = previous ? previous.dims : mapDims(() => ({ a: 0, b: 0 }));
  observe(dims.stability, x, weight);
  for (const d of SIGNAL_DIMENSIONS) {
    const signal = input.signals[d];
    // Validation happens at the edge; here a bad value is skipped or clamped rather than stored.
    if (typeof signal !== "number" || !Number.isFinite(signal)) continue;
    observe(dims[d], Math.min(1000, Math.max(0, signal)) / 1000, weight);
  }
  for (const d of DIMENSIONS) capPair(dims[d], cap);
  const reporter: ReporterState = { dims, lastAt: previous ? Math.max(previous.lastAt, input.at) : input.at };
  entries.splice(index, previous ? 1 : 0, [id, reporter]);
  return { state: stateOf(at, entries, state.lastConfigChangeAt), weight };
}

function keptFraction(changes: readonly ChangeType[], d: Dimension): number {
  let kept = 1;
  // A change type listed twice is still one change.
  for (const c of new Set(changes)) {
    const factors: { all: number } & Partial<Record<Dimension, number>> = MODEL.changeKept[c];
    kept *= factors[d] ?? factors.all;
  }
  return kept;
}

/**
 * Forgets to now, then, on every dimension scoring above 500 (α > β), keeps only the product of
 * the changes' kept fractions of every reporter's evidence. A dimension at or below 500 keeps its
 * evidence, so a change never raises a score. No change: nothing else moves.
 */
export function applyConfigChange(state: AgentEvidence, changes: ChangeType[], now: number): AgentEvidence {
  for (const c of changes) {
    if (!(CHANGE_TYPES as readonly string[]).includes(c)) throw new RangeError(`unknown change: ${String(c)}`);
  }
  const { at, entries } = forget(state, now);
  const next = stateOf(at, entries, state.lastConfigChangeAt);
  if (changes.length === 0) return next;
  const sums = totals(entries, null);
  for (const d of DIMENSIONS) {
    if (!(sums[d].a > sums[d].b)) continue;
    const kept = keptFraction(changes, d);
    for (const [, r] of entries) {
      r.dims[d].a *= kept;
      r.dims[d].b *= kept;
    }
  }
  return { ...next, lastConfigChangeAt: now };
}

/**
 * Folds a history in order (withdrawn reports already removed), counting each report's k as the
 * live path does (earlier reports by the same reporter less than the damping window before it), so
 * the result equals the live fold bit for bit.
 */
export function replay(events: HistoryEvent[], ownerId: number | null, createdAt: number): AgentEvidence {
  let state = emptyEvidence(createdAt);
  const recent = new Map<number, number[]>();
  for (const event of events) {
    if (event.kind === "config") {
      state = applyConfigChange(state, event.changes, event.at);
      continue;
    }
    const since = event.at - MODEL.dampingWindowMs;
    const earlier = (recent.get(event.reporter) ?? []).filter((t) => t > since);
    state = applyReport(state, event, ownerId, earlier.length).state;
    earlier.push(event.at);
    recent.set(event.reporter, earlier);
  }
  return state;
}
