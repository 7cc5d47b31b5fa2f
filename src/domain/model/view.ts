// The score at a time: dimensions, composite, S, confidence, recommendation and reasons, read from the
// aggregates (nothing stored).

import { MODEL_V4, REASON_CODES, LEVELS, levelsOf, type ReasonCode } from "./constants";
import type { AgentModel } from "./aggregate";
import { assess, type Assessment } from "./assess";
import { DIMENSIONS, type Confidence, type Dimension, type Recommendation } from "./vocabulary";

export interface ScoreView {
  composite: number;
  dimensions: Record<Dimension, number>;
  /** The stability dimension: what caution and clear are decided on. */
  s: number;
  confidence: Confidence;
  recommendation: Recommendation;
  reasons: ReasonCode[];
  reports: number;
  /** Σ c of the counted non-owner pairs (credible mass), and of those positive and negative on S. */
  credible: number;
  positive: number;
  negative: number;
  model: { version: 4; snapshot: string | null };
}

export interface ScoreContext {
  now: number;
  /** The agent has an owner (unclaimed agents are never clear). */
  owned: boolean;
  identityLevel: number;
  /** The owner's operator score (./operator): below 400 withholds clear. */
  operatorScore: number;
  /** The configuration matches a caution agent of another owner. */
  similarToCautioned?: boolean;
}

const RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

export function confidenceOf(credibleLevels: number, reports: number, identityLevel: number): Confidence {
  const { high, medium, unverifiedCap } = MODEL_V4.confidence;
  let c: Confidence = "low";
  if (credibleLevels >= levelsOf(high.credible) && reports >= high.reports) c = "high";
  else if (credibleLevels >= levelsOf(medium.credible) && reports >= medium.reports) c = "medium";
  if (identityLevel <= 0 && RANK[c] > RANK[unverifiedCap]) c = unverifiedCap;
  return c;
}

const LOW_REASON: Record<Dimension, ReasonCode> = {
  reliability: "LOW_RELIABILITY",
  quality: "LOW_QUALITY",
  financial: "LOW_FINANCIAL",
  security: "LOW_SECURITY",
  stability: "LOW_STABILITY",
};

/** In caution at `now`: the rules hold, or the last entry left the agent in caution (time alone never lifts one). */
export function cautionAt(model: AgentModel, now: number, a: Assessment = assess(model, now)): boolean {
  return a.caution || model.episode.open;
}

/** Clear: not caution, S ≥ 700, credible positive mass ≥ 3, no dimension below 450, owned, operator score ≥ 400, no recent failures. */
export function isClear(a: Assessment, caution: boolean, ctx: Pick<ScoreContext, "owned" | "operatorScore">): boolean {
  const c = MODEL_V4.clear;
  return (
    !caution &&
    a.s >= c.atLeast &&
    a.mass.positive >= levelsOf(c.positiveMass) &&
    DIMENSIONS.every((d) => a.dimensions[d] >= c.minDimension) &&
    ctx.owned &&
    ctx.operatorScore >= c.operatorScore &&
    !a.recentFailures
  );
}

export function scoreOf(model: AgentModel, ctx: ScoreContext): ScoreView {
  const a = assess(model, ctx.now);
  const caution = cautionAt(model, ctx.now, a);
  const recommendation: Recommendation = caution ? "caution" : isClear(a, caution, ctx) ? "clear" : "review";
  const confidence = confidenceOf(a.mass.credible, model.reports, ctx.identityLevel);
  const rank = (d: Dimension) => REASON_CODES.indexOf(LOW_REASON[d]);
  const reasons: ReasonCode[] = DIMENSIONS.filter((d) => a.dimensions[d] < MODEL_V4.lowDimensionBelow)
    .sort((x, y) => a.dimensions[x] - a.dimensions[y] || rank(x) - rank(y))
    .map((d) => LOW_REASON[d]);
  if (a.recentFailures) reasons.push("RECENT_FAILURES");
  if (ctx.similarToCautioned) reasons.push("SIMILAR_TO_CAUTIONED");
  const lastChange = model.lastConfigChangeAt;
  if (lastChange !== null && ctx.now - lastChange < MODEL_V4.recentConfigChangeMs) reasons.push("RECENT_CONFIG_CHANGE");
  if (!ctx.owned) reasons.push("NO_OWNER");
  if (ctx.operatorScore < MODEL_V4.operatorRecordBelow) reasons.push("OPERATOR_RECORD");
  if (a.mass.positive < levelsOf(MODEL_V4.fewReportersBelow)) reasons.push("FEW_INDEPENDENT_REPORTERS");
  if (model.reports < MODEL_V4.insufficientEvidenceBelow) reasons.push("INSUFFICIENT_EVIDENCE");
  if (ctx.identityLevel <= 0) reasons.push("IDENTITY_UNVERIFIED");
  return {
    composite: a.composite,
    dimensions: a.dimensions,
    s: a.s,
    confidence,
    recommendation,
    reasons: reasons.slice(0, MODEL_V4.maxReasons),
    reports: model.reports,
    credible: a.mass.credible / LEVELS,
    positive: a.mass.positive / LEVELS,
    negative: a.negative.mass / LEVELS,
    model: { version: 4, snapshot: model.snapshot },
  };
}
