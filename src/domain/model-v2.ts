// The scoring model, version 2 (docs/scoring.md, "Version 2"), frozen: the service computes it beside
// version 3 during the shadow period and serves it until the switch. Pure functions: no I/O, and time
// is always passed in as ms since the epoch, so a score is a function of stored evidence and time.
// Evidence is kept per reporting operator, so one reporter's weight is bounded and the owner's is small.

import { CHANGE_TYPES, type ChangeType } from "./configuration";
import { DIMENSIONS, SIGNAL_DIMENSIONS, idOrder, mapDims, type Confidence, type Dimension, type Outcome, type Pair, type Recommendation, type SignalDimension } from "./model/vocabulary";

export { CHANGE_TYPES, classifyChange } from "./configuration";
export type { AgentConfiguration, ChangeType } from "./configuration";
export { CONFIDENCES, DIMENSIONS, OUTCOMES, RECOMMENDATIONS, SIGNAL_DIMENSIONS } from "./model/vocabulary";
export type { Confidence, Dimension, Outcome, Pair, Recommendation, SignalDimension } from "./model/vocabulary";

/** Most important first: the order `reasons` lists them in (LOW_* among themselves: lowest score first). */
export const REASON_CODES = [
  "LOW_RELIABILITY",
  "LOW_QUALITY",
  "LOW_SECURITY",
  "LOW_FINANCIAL",
  "LOW_STABILITY",
  "RECENT_CONFIG_CHANGE",
  "NO_OWNER",
  "OPERATOR_RECORD",
  "FEW_INDEPENDENT_REPORTERS",
  "INSUFFICIENT_EVIDENCE",
  "IDENTITY_UNVERIFIED",
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

const DAY_MS = 86_400_000;

/** Every constant of the model, named once. docs/scoring.md has the same table. */
export const MODEL = {
  version: 2,
  /** α0 = β0: pseudo-observations on each side, so a new agent is 500 and one report barely moves it. */
  prior: 3,
  outcomeValue: { success: 1.0, partial: 0.5, timeout: 0.25, error: 0.1, failure: 0.0 },
  reporterBase: { verified: 1.0, unverified: 0.75, owner: 0.25 },
  /** Weight factor of a report that carries a valid receipt signed by the agent's own key. */
  receiptFactor: 1.5,
  /** Earlier reports by the same operator on the same agent within this window damp the next one. */
  dampingWindowMs: DAY_MS,
  /** Most evidence one reporter holds per dimension (a + b), before the penalty factor. */
  cap: { reporter: 10, owner: 2.5 },
  /** Evidence above the prior halves every halfLife: `good` where α ≥ β, `bad` where α < β. */
  halfLifeMs: { good: 90 * DAY_MS, bad: 365 * DAY_MS },
  /** Evidence above the prior beyond which a dimension counts as observed (float residue below it). */
  observedEpsilon: 1e-9,
  compositeWeights: { reliability: 0.3, quality: 0.25, security: 0.2, financial: 0.15, stability: 0.1 },
  confidence: {
    high: { evidence: 100, reporters: 5 },
    medium: { evidence: 20, reporters: 2 },
    /** Identity level 0 (unverified) can at best reach this. */
    unverifiedCap: "medium",
  },
  recommendation: {
    /** "Looks bad": composite below this, */
    cautionBelowComposite: 400,
    /** or one of cautionDimensions below this, */
    cautionBelowDimension: 350,
    cautionDimensions: ["reliability", "security", "stability"],
    /** or, with N at least this much evidence, one of midpointDimensions below 500. */
    midpointFromEvidence: 20,
    midpointDimensions: ["reliability", "stability"],
    /**
     * Corroborated: at least max(minReporters, ⌈R / reporterShareDivisor⌉) non-owner reporters
     * negative (a < b) on one of these dimensions, where the agent scores below 500, with at least
     * minEvidence of their own evidence (a + b) there. The same number of reporters negative on one
     * of these dimensions, whatever the agent scores there, is a corroborated objection: it
     * withholds clear.
     */
    corroboration: {
      minReporters: 2,
      reporterShareDivisor: 3,
      dimensions: ["reliability", "security", "stability"],
      minEvidence: 0.5,
    },
    /**
     * Clear: composite at least this, every dimension at least clearMinDimension, R at least
     * clearMinReporters, an owner, and no corroborated objection (see corroboration).
     */
    clearFromComposite: 700,
    clearMinDimension: 450,
    clearMinReporters: 3,
  },
  /** A dimension below this is named in the reasons (LOW_*). */
  lowDimensionBelow: 450,
  /** OPERATOR_RECORD when the owner's operator score is below this. */
  operatorRecordBelow: 400,
  /** FEW_INDEPENDENT_REPORTERS when R is below this (the bar for clear). */
  fewReportersBelow: 3,
  /** INSUFFICIENT_EVIDENCE when N is below this (the bar for medium confidence). */
  insufficientEvidenceBelow: 20,
  maxReasons: 4,
  recentConfigChangeMs: 30 * DAY_MS,
  /** R counts distinct non-owner operators whose last report is at most this old. */
  independentReporterWindowMs: 90 * DAY_MS,
  /** Fraction of evidence above the prior each change keeps on a dimension above 500; `security` overrides `all`. */
  changeKept: {
    provider_change: { all: 0.3 },
    model_swap: { all: 0.5 },
    prompt_change: { all: 0.75 },
    tools_change: { all: 0.8, security: 0.6 },
    memory_change: { all: 0.9 },
  },
  operatorPriorWeight: 50,
  /** `withdrawals` withdrawn reports within `windowMs` halve (factor) weight and cap for `durationMs`. */
  penalty: { withdrawals: 3, windowMs: 90 * DAY_MS, durationMs: 90 * DAY_MS, factor: 0.5 },
  /** A reporter outside the R window whose evidence (all dimensions) has faded below this is dropped. */
  pruneBelow: 1e-6,
} as const satisfies {
  outcomeValue: Record<Outcome, number>;
  compositeWeights: Record<Dimension, number>;
  changeKept: Record<ChangeType, { all: number } & Partial<Record<Dimension, number>>>;
  confidence: { unverifiedCap: Confidence; [key: string]: unknown };
  recommendation: {
    cautionDimensions: readonly Dimension[];
    midpointDimensions: readonly Dimension[];
    corroboration: { dimensions: readonly Dimension[]; [key: string]: unknown };
    [key: string]: unknown;
  };
  [key: string]: unknown;
};

/** `lastAt`: the reporter's last report time (ms). */
export interface ReporterState {
  dims: Record<Dimension, Pair>;
  lastAt: number;
}

/**
 * JSON-serialisable working state of one agent. `reporters` is keyed by the reporting operator's id
 * as a string; `at` is the time the evidence was last forgotten to.
 */
export interface AgentEvidence {
  at: number;
  reporters: Record<string, ReporterState>;
  lastConfigChangeAt: number | null;
}

export interface ReportInput {
  /** Reporting operator id. */
  reporter: number;
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

export type HistoryEvent = ({ kind: "report" } & ReportInput) | { kind: "config"; at: number; changes: ChangeType[] };

export interface ScoreView {
  composite: number;
  dimensions: Record<Dimension, number>;
  confidence: Confidence;
  recommendation: Recommendation;
  /** N: evidence above the prior, summed over dimensions and reporters, unrounded. */
  evidence: number;
  /** R: distinct non-owner reporters whose last report is within the R window. */
  independentReporters: number;
  reasons: ReasonCode[];
}

export interface Contribution {
  evidence: number;
  composite: number;
}

/** One reporter's state with its id; lists of them are always in `idOrder`. */
type Entry = readonly [id: string, reporter: ReporterState];

/**
 * The reporters in one fixed order, so that every sum over reporters adds the same numbers in the
 * same order however the map was built or parsed: bit-identical results.
 */
function entriesOf(state: AgentEvidence): Entry[] {
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
function totals(entries: readonly Entry[], skip: string | null): Record<Dimension, Pair> {
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

function reporterEvidence(r: ReporterState): number {
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
function forget(state: AgentEvidence, now: number): { at: number; entries: Entry[] } {
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

const isOwnerOf = (reporter: number | string, ownerId: number | null) => ownerId !== null && String(reporter) === String(ownerId);

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

export function dimensionScore(p: Pair): number {
  const alpha = MODEL.prior + p.a;
  const beta = MODEL.prior + p.b;
  return Math.round((1000 * alpha) / (alpha + beta));
}

/** Over the observed dimensions, from the rounded dimension scores (a client can recompute it). */
function compositeOf(sums: Record<Dimension, Pair>, dimensions: Record<Dimension, number>): number {
  const w = MODEL.compositeWeights;
  let totalWeight = 0;
  let pull = 0;
  for (const d of DIMENSIONS) {
    if (!(sums[d].a + sums[d].b > MODEL.observedEpsilon)) continue;
    totalWeight += w[d];
    pull += w[d] * (dimensions[d] - 500);
  }
  return totalWeight > 0 ? Math.round(500 + pull / totalWeight) : 500;
}

function evidenceOf(sums: Record<Dimension, Pair>): number {
  let n = 0;
  for (const d of DIMENSIONS) n += Math.max(0, sums[d].a + sums[d].b);
  return n;
}

/** R: distinct non-owner reporters whose last report is at most the R window before now. */
export function independentReporters(state: AgentEvidence, ownerId: number | null, now: number): number {
  return countIndependent(entriesOf(state), ownerId, now);
}

function countIndependent(entries: readonly Entry[], ownerId: number | null, now: number): number {
  let n = 0;
  for (const [id, r] of entries) {
    if (!isOwnerOf(id, ownerId) && now - r.lastAt <= MODEL.independentReporterWindowMs) n++;
  }
  return n;
}

/**
 * Non-owner reporters that corroborate a bad look: negative (a < b, with a + b ≥ 0.5 of their own
 * evidence) on a corroboration dimension (reliability, security, stability) that scores below 500.
 */
export function negativeReporters(state: AgentEvidence, ownerId: number | null): number {
  const entries = entriesOf(state);
  const sums = totals(entries, null);
  return countNegative(entries, ownerId, belowMidpoint(mapDims((d) => dimensionScore(sums[d]))));
}

/**
 * Non-owner reporters that object to clear: negative (a < b, with a + b ≥ 0.5 of their own
 * evidence) on a corroboration dimension (reliability, security, stability), whatever the agent
 * scores there. As many as corroborate a bad look withhold clear.
 */
export function objectingReporters(state: AgentEvidence, ownerId: number | null): number {
  return countNegative(entriesOf(state), ownerId, MODEL.recommendation.corroboration.dimensions);
}

/** The corroboration dimensions that score below 500. */
function belowMidpoint(dimensions: Record<Dimension, number>): Dimension[] {
  return MODEL.recommendation.corroboration.dimensions.filter((d) => dimensions[d] < 500);
}

/** Non-owner reporters negative (a < b) on one of `dims`, with at least minEvidence of their own evidence there. */
function countNegative(entries: readonly Entry[], ownerId: number | null, dims: readonly Dimension[]): number {
  const c = MODEL.recommendation.corroboration;
  let n = 0;
  if (dims.length === 0) return n;
  for (const [id, r] of entries) {
    if (isOwnerOf(id, ownerId)) continue;
    if (dims.some((d) => r.dims[d].a + r.dims[d].b >= c.minEvidence && r.dims[d].a < r.dims[d].b)) n++;
  }
  return n;
}

const CONFIDENCE_RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

function confidenceOf(evidence: number, reporters: number, identityLevel: number): Confidence {
  const { high, medium, unverifiedCap } = MODEL.confidence;
  let c: Confidence = "low";
  if (evidence >= high.evidence && reporters >= high.reporters) c = "high";
  else if (evidence >= medium.evidence && reporters >= medium.reporters) c = "medium";
  if (identityLevel <= 0 && CONFIDENCE_RANK[c] > CONFIDENCE_RANK[unverifiedCap]) c = unverifiedCap;
  return c;
}

function looksBad(composite: number, dims: Record<Dimension, number>, evidence: number): boolean {
  const r = MODEL.recommendation;
  if (composite < r.cautionBelowComposite) return true;
  if (r.cautionDimensions.some((d) => dims[d] < r.cautionBelowDimension)) return true;
  return evidence >= r.midpointFromEvidence && r.midpointDimensions.some((d) => dims[d] < 500);
}

/** The number of negative reporters that corroborates a bad look when R reporters are independent. */
export function corroborationNeeded(independent: number): number {
  const c = MODEL.recommendation.corroboration;
  return Math.max(c.minReporters, Math.ceil(independent / c.reporterShareDivisor));
}

const LOW_REASON: Record<Dimension, ReasonCode> = {
  reliability: "LOW_RELIABILITY",
  quality: "LOW_QUALITY",
  financial: "LOW_FINANCIAL",
  security: "LOW_SECURITY",
  stability: "LOW_STABILITY",
};

/**
 * The score at ctx.now (forgetting applied at read time, nothing stored). `ownerId` is the agent's
 * owner now (null: unclaimed); `operatorScore` is that owner's operator score (OPERATOR_RECORD).
 */
export function scoreOf(
  state: AgentEvidence,
  ctx: { now: number; ownerId: number | null; identityLevel: number; operatorScore: number },
): ScoreView {
  const { entries } = forget(state, ctx.now);
  const sums = totals(entries, null);
  const dimensions = mapDims((d) => dimensionScore(sums[d]));
  const composite = compositeOf(sums, dimensions);
  const evidence = evidenceOf(sums);
  const independent = countIndependent(entries, ctx.ownerId, ctx.now);
  const confidence = confidenceOf(evidence, independent, ctx.identityLevel);
  const r = MODEL.recommendation;

  // One bar for both: the reporters that corroborate a bad look, and the objectors that withhold clear.
  const needed = corroborationNeeded(independent);
  let recommendation: Recommendation = "review";
  if (looksBad(composite, dimensions, evidence) && countNegative(entries, ctx.ownerId, belowMidpoint(dimensions)) >= needed) {
    recommendation = "caution";
  } else if (
    composite >= r.clearFromComposite &&
    confidence !== "low" &&
    DIMENSIONS.every((d) => dimensions[d] >= r.clearMinDimension) &&
    independent >= r.clearMinReporters &&
    ctx.ownerId !== null &&
    countNegative(entries, ctx.ownerId, r.corroboration.dimensions) < needed
  ) {
    recommendation = "clear";
  }

  // Lowest first; equal scores in composite-weight order (the order of REASON_CODES).
  const rank = (d: Dimension) => REASON_CODES.indexOf(LOW_REASON[d]);
  const reasons: ReasonCode[] = DIMENSIONS.filter((d) => dimensions[d] < MODEL.lowDimensionBelow)
    .sort((x, y) => dimensions[x] - dimensions[y] || rank(x) - rank(y))
    .map((d) => LOW_REASON[d]);
  const lastChange = state.lastConfigChangeAt;
  if (lastChange !== null && ctx.now - lastChange < MODEL.recentConfigChangeMs) reasons.push("RECENT_CONFIG_CHANGE");
  if (ctx.ownerId === null) reasons.push("NO_OWNER");
  if (ctx.operatorScore < MODEL.operatorRecordBelow) reasons.push("OPERATOR_RECORD");
  if (independent < MODEL.fewReportersBelow) reasons.push("FEW_INDEPENDENT_REPORTERS");
  if (evidence < MODEL.insufficientEvidenceBelow) reasons.push("INSUFFICIENT_EVIDENCE");
  if (ctx.identityLevel <= 0) reasons.push("IDENTITY_UNVERIFIED");

  return {
    composite,
    dimensions,
    confidence,
    recommendation,
    evidence,
    independentReporters: independent,
    reasons: reasons.slice(0, MODEL.maxReasons),
  };
}

/**
 * For the operator score: N_i = the agent's non-owner evidence above the prior as of now, and
 * c_i = the composite computed from that evidence alone (the prior plus every reporter but the owner).
 */
export function independentContribution(state: AgentEvidence, ownerId: number | null, now: number): Contribution {
  const sums = totals(forget(state, now).entries, ownerId === null ? null : String(ownerId));
  return { evidence: evidenceOf(sums), composite: compositeOf(sums, mapDims((d) => dimensionScore(sums[d]))) };
}

/** round((50·500 + ΣN·c) / (50 + ΣN)) from running sums ΣN and ΣN·c. */
export function operatorScoreFromSums(evidence: number, weightedComposite: number): number {
  const w0 = MODEL.operatorPriorWeight;
  return Math.round((w0 * 500 + weightedComposite) / (w0 + Math.max(0, evidence)));
}

/** The evidence-weighted mean of the agents' independent composites, shrunk to 500 by a prior weight. */
export function operatorScore(contributions: Contribution[]): number {
  let evidence = 0;
  let weighted = 0;
  for (const c of contributions) {
    const n = Math.max(0, c.evidence);
    evidence += n;
    weighted += n * c.composite;
  }
  return operatorScoreFromSums(evidence, weighted);
}
