// The scoring model (DESIGN.md section 4, docs/scoring.md). Pure functions: no I/O, and time is
// always passed in as `now` (ms since the epoch), so a score is a function of stored state and time.

import { canonicalJson, normalizedTools, type AgentConfiguration } from "./configuration";

export type { AgentConfiguration } from "./configuration";

export const DIMENSIONS = ["reliability", "quality", "financial", "security", "stability"] as const;
export type Dimension = (typeof DIMENSIONS)[number];
/** Dimensions a report can carry a signal for (fields reliabilitySignal etc.); stability comes from the outcome. */
export const SIGNAL_DIMENSIONS = ["reliability", "quality", "financial", "security"] as const;
export type SignalDimension = (typeof SIGNAL_DIMENSIONS)[number];
export const OUTCOMES = ["success", "partial", "failure", "timeout", "error"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const CONFIDENCES = ["low", "medium", "high"] as const;
export type Confidence = (typeof CONFIDENCES)[number];
export const RECOMMENDATIONS = ["clear", "review", "caution"] as const;
export type Recommendation = (typeof RECOMMENDATIONS)[number];
/** Most severe first: the order classifyChange reports changes in. */
export const CHANGE_TYPES = ["provider_change", "model_swap", "prompt_change", "tools_change", "memory_change"] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];
export type ReasonCode =
  | "INSUFFICIENT_EVIDENCE"
  | "FEW_INDEPENDENT_REPORTERS"
  | "LOW_RELIABILITY"
  | "LOW_QUALITY"
  | "LOW_FINANCIAL"
  | "LOW_SECURITY"
  | "LOW_STABILITY"
  | "RECENT_CONFIG_CHANGE"
  | "IDENTITY_UNVERIFIED";

const DAY_MS = 86_400_000;

/** Every constant of the model, named once. docs/scoring.md has the same table. */
export const SCORING = {
  /** α0 = β0: pseudo-observations on each side, so a new agent is 500 and one fluke barely moves it. */
  prior: 3,
  outcomeValue: { success: 1.0, partial: 0.5, timeout: 0.25, error: 0.1, failure: 0.0 },
  reporterBase: { verified: 1.0, unverified: 0.75, owner: 0.25 },
  /** Earlier reports by the same operator on the same agent within this window damp the next one. */
  dampingWindowMs: DAY_MS,
  halfLifeMs: 90 * DAY_MS,
  /** Evidence above the prior beyond which a dimension counts as observed (float noise below it). */
  observedEpsilon: 1e-9,
  compositeWeights: { reliability: 0.3, quality: 0.25, security: 0.2, financial: 0.15, stability: 0.1 },
  confidence: {
    high: { evidence: 100, reporters: 5 },
    medium: { evidence: 20, reporters: 2 },
    /** Identity level 0 (unverified) can at best reach this. */
    unverifiedCap: "medium",
  },
  recommendation: {
    cautionBelowComposite: 400,
    cautionBelowDimension: 350,
    cautionDimensions: ["reliability", "security", "stability"],
    clearFromComposite: 700,
    clearMinDimension: 450,
  },
  /** A dimension below this is named in the reasons (LOW_*); the same bar blocks `clear`. */
  lowDimensionBelow: 450,
  maxReasons: 4,
  recentConfigChangeMs: 30 * DAY_MS,
  /** R counts distinct non-owner operators that reported within this window. */
  independentReporterWindowMs: 90 * DAY_MS,
  /** Fraction of evidence above the prior each change keeps; `security` overrides `all` where given. */
  changeKept: {
    provider_change: { all: 0.3 },
    model_swap: { all: 0.5 },
    prompt_change: { all: 0.75 },
    tools_change: { all: 0.8, security: 0.6 },
    memory_change: { all: 0.9 },
  },
  operatorPriorWeight: 50,
} as const satisfies {
  outcomeValue: Record<Outcome, number>;
  compositeWeights: Record<Dimension, number>;
  changeKept: Record<ChangeType, { all: number } & Partial<Record<Dimension, number>>>;
  confidence: { unverifiedCap: Confidence; [key: string]: unknown };
  recommendation: { cautionDimensions: readonly Dimension[]; [key: string]: unknown };
  [key: string]: unknown;
};

export interface Evidence {
  alpha: number;
  beta: number;
}

/** JSON-serialisable; stored in D1 as JSON. `at` = time (ms) the evidence was last brought up to date. */
export interface EvidenceState {
  dims: Record<Dimension, Evidence>;
  at: number;
  lastConfigChangeAt: number | null;
}

export interface ScoreView {
  composite: number;
  dimensions: Record<Dimension, number>;
  confidence: Confidence;
  recommendation: Recommendation;
  /** N: evidence above the prior, summed over the dimensions, unrounded. */
  evidence: number;
  reasons: ReasonCode[];
}

function mapDims<T>(f: (d: Dimension) => T): Record<Dimension, T> {
  return Object.fromEntries(DIMENSIONS.map((d) => [d, f(d)])) as Record<Dimension, T>;
}

/** Scales the evidence above the prior, which moves the score toward 500 without ever crossing it. */
function shrink(e: Evidence, kept: number): Evidence {
  const p = SCORING.prior;
  return { alpha: p + (e.alpha - p) * kept, beta: p + (e.beta - p) * kept };
}

function evidenceAbovePrior(e: Evidence): number {
  return Math.max(0, e.alpha + e.beta - 2 * SCORING.prior);
}

export function dimensionScore(e: Evidence): number {
  return Math.round((1000 * e.alpha) / (e.alpha + e.beta));
}

export function initialEvidence(now: number): EvidenceState {
  const p = SCORING.prior;
  return { dims: mapDims(() => ({ alpha: p, beta: p })), at: now, lastConfigChangeAt: null };
}

/** Halves the evidence above the prior every half-life from state.at to now. Time never runs backwards. */
export function forget(state: EvidenceState, now: number): EvidenceState {
  const elapsed = now - state.at;
  if (!(elapsed > 0)) return { ...state, dims: mapDims((d) => ({ ...state.dims[d] })) };
  const kept = Math.pow(2, -elapsed / SCORING.halfLifeMs);
  return { ...state, dims: mapDims((d) => shrink(state.dims[d], kept)), at: now };
}

/** base × 1/√(1+k): one reporter cannot buy a score with volume. The owner weighs least whatever its status. */
export function reporterWeight(input: { isOwner: boolean; reporterVerified: boolean; earlierReportsInWindow: number }): number {
  const base = input.isOwner
    ? SCORING.reporterBase.owner
    : input.reporterVerified
      ? SCORING.reporterBase.verified
      : SCORING.reporterBase.unverified;
  const k = Math.max(0, input.earlierReportsInWindow);
  return base / Math.sqrt(1 + k);
}

function observe(e: Evidence, x: number, weight: number): Evidence {
  return { alpha: e.alpha + weight * x, beta: e.beta + weight * (1 - x) };
}

/** Forgets to now, then adds the outcome (stability) and each supplied signal (its own dimension). */
export function applyTransaction(
  state: EvidenceState,
  report: { outcome: Outcome; signals: Partial<Record<SignalDimension, number>> },
  weight: number,
  now: number,
): EvidenceState {
  const x = SCORING.outcomeValue[report.outcome];
  if (x === undefined) throw new RangeError(`unknown outcome: ${String(report.outcome)}`);
  // A NaN or negative weight would corrupt the stored evidence for good.
  if (!Number.isFinite(weight) || weight < 0) throw new RangeError(`invalid weight: ${weight}`);
  const next = forget(state, now);
  next.dims.stability = observe(next.dims.stability, x, weight);
  for (const d of SIGNAL_DIMENSIONS) {
    const signal = report.signals[d];
    // Validation happens at the edge; here a bad value is skipped or clamped rather than stored.
    if (typeof signal !== "number" || !Number.isFinite(signal)) continue;
    next.dims[d] = observe(next.dims[d], Math.min(1000, Math.max(0, signal)) / 1000, weight);
  }
  return next;
}

/**
 * What changed between two configurations, most severe first. A provider change subsumes a model
 * swap (a new provider's model name is bound to differ). Tools compare as sets, memoryConfig by
 * canonical JSON, and a missing systemPromptHash or memoryConfig equals null.
 */
export function classifyChange(
  previous: AgentConfiguration,
  next: AgentConfiguration,
): { changes: ChangeType[]; changeType: ChangeType | null } {
  const changes: ChangeType[] = [];
  if (previous.modelProvider !== next.modelProvider) changes.push("provider_change");
  else if (previous.modelName !== next.modelName) changes.push("model_swap");
  if ((previous.systemPromptHash ?? null) !== (next.systemPromptHash ?? null)) changes.push("prompt_change");
  if (canonicalJson(normalizedTools(previous.tools)) !== canonicalJson(normalizedTools(next.tools))) {
    changes.push("tools_change");
  }
  if (canonicalJson(previous.memoryConfig ?? null) !== canonicalJson(next.memoryConfig ?? null)) {
    changes.push("memory_change");
  }
  return { changes, changeType: changes[0] ?? null };
}

function keptFraction(changes: readonly ChangeType[], d: Dimension): number {
  let kept = 1;
  // A change type listed twice is still one change.
  for (const c of new Set(changes)) {
    const factors: { all: number } & Partial<Record<Dimension, number>> = SCORING.changeKept[c];
    kept *= factors[d] ?? factors.all;
  }
  return kept;
}

/** Forgets to now, then keeps only the product of the changes' kept fractions of the evidence above the prior. */
export function applyConfigChange(state: EvidenceState, changes: ChangeType[], now: number): EvidenceState {
  const next = forget(state, now);
  if (changes.length === 0) return next;
  return { ...next, dims: mapDims((d) => shrink(next.dims[d], keptFraction(changes, d))), lastConfigChangeAt: now };
}

const CONFIDENCE_RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

function confidenceOf(evidence: number, reporters: number, identityLevel: number): Confidence {
  const { high, medium, unverifiedCap } = SCORING.confidence;
  let c: Confidence = "low";
  if (evidence >= high.evidence && reporters >= high.reporters) c = "high";
  else if (evidence >= medium.evidence && reporters >= medium.reporters) c = "medium";
  if (identityLevel <= 0 && CONFIDENCE_RANK[c] > CONFIDENCE_RANK[unverifiedCap]) c = unverifiedCap;
  return c;
}

function recommendationOf(composite: number, dims: Record<Dimension, number>, confidence: Confidence): Recommendation {
  const r = SCORING.recommendation;
  if (composite < r.cautionBelowComposite) return "caution";
  if (r.cautionDimensions.some((d) => dims[d] < r.cautionBelowDimension)) return "caution";
  const noLowDimension = DIMENSIONS.every((d) => dims[d] >= r.clearMinDimension);
  if (composite >= r.clearFromComposite && confidence !== "low" && noLowDimension) return "clear";
  return "review";
}

const LOW_REASON: Record<Dimension, ReasonCode> = {
  reliability: "LOW_RELIABILITY",
  quality: "LOW_QUALITY",
  financial: "LOW_FINANCIAL",
  security: "LOW_SECURITY",
  stability: "LOW_STABILITY",
};

/**
 * Why the score is not higher, most important first: low dimensions (lowest score first, ties by
 * composite weight), then a recent configuration change, then the causes of low confidence.
 */
function reasonsOf(
  dims: Record<Dimension, number>,
  evidence: number,
  state: EvidenceState,
  context: { now: number; identityLevel: number; independentReporters: number },
): ReasonCode[] {
  const w = SCORING.compositeWeights;
  const reasons: ReasonCode[] = DIMENSIONS.filter((d) => dims[d] < SCORING.lowDimensionBelow)
    .sort((a, b) => dims[a] - dims[b] || w[b] - w[a])
    .map((d) => LOW_REASON[d]);
  if (state.lastConfigChangeAt !== null && context.now - state.lastConfigChangeAt < SCORING.recentConfigChangeMs) {
    reasons.push("RECENT_CONFIG_CHANGE");
  }
  if (evidence < SCORING.confidence.medium.evidence) reasons.push("INSUFFICIENT_EVIDENCE");
  if (context.independentReporters < SCORING.confidence.medium.reporters) reasons.push("FEW_INDEPENDENT_REPORTERS");
  if (context.identityLevel <= 0) reasons.push("IDENTITY_UNVERIFIED");
  return reasons.slice(0, SCORING.maxReasons);
}

/**
 * The score at `now` (forgetting applied at read time). The composite is computed from the rounded
 * dimension scores, so a client can recompute it from the dimensions it is shown.
 */
export function scoreOf(
  state: EvidenceState,
  context: { now: number; identityLevel: number; independentReporters: number },
): ScoreView {
  const current = forget(state, context.now);
  const dimensions = mapDims((d) => dimensionScore(current.dims[d]));
  const observed = DIMENSIONS.filter((d) => evidenceAbovePrior(current.dims[d]) > SCORING.observedEpsilon);
  const w = SCORING.compositeWeights;
  const totalWeight = observed.reduce((sum, d) => sum + w[d], 0);
  const pull = observed.reduce((sum, d) => sum + w[d] * (dimensions[d] - 500), 0);
  const composite = totalWeight > 0 ? Math.round(500 + pull / totalWeight) : 500;
  const evidence = DIMENSIONS.reduce((sum, d) => sum + evidenceAbovePrior(current.dims[d]), 0);
  const confidence = confidenceOf(evidence, context.independentReporters, context.identityLevel);
  return {
    composite,
    dimensions,
    confidence,
    recommendation: recommendationOf(composite, dimensions, confidence),
    evidence,
    reasons: reasonsOf(dimensions, evidence, current, context),
  };
}

/**
 * The operator score from running sums over its agents (Σ N, Σ N·composite), as kept in the
 * operators table: the evidence-weighted mean of composites, shrunk to 500 by a prior weight.
 */
export function operatorScoreFromSums(evidence: number, weightedComposite: number): number {
  const w0 = SCORING.operatorPriorWeight;
  return Math.round((w0 * 500 + weightedComposite) / (w0 + Math.max(0, evidence)));
}

export function operatorScore(agents: { composite: number; evidence: number }[]): number {
  let evidence = 0;
  let weighted = 0;
  for (const a of agents) {
    const n = Math.max(0, a.evidence);
    evidence += n;
    weighted += n * a.composite;
  }
  return operatorScoreFromSums(evidence, weighted);
}
