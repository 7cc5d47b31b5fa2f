// The score at a time (version 3): dimensions, composite, confidence, recommendation and reasons, read
// from the stored state forgotten to that time (nothing stored).

import { assess, type Assessment } from "./assess";
import { MODEL, REASON_CODES, type ReasonCode } from "./constants";
import { forgetTo } from "./evidence";
import { entriesOf, type AgentState } from "./state";
import { heldAt } from "./transitions";
import { DIMENSIONS, type Confidence, type Dimension, type Recommendation } from "./vocabulary";

export interface ScoreView {
  composite: number;
  dimensions: Record<Dimension, number>;
  confidence: Confidence;
  recommendation: Recommendation;
  /** N: weighted evidence above the prior, summed over dimensions and reporters, unrounded. */
  evidence: number;
  /** R_c: Σ c over established non-owner reporters active in the R_c window, unrounded. */
  independentReporters: number;
  reasons: ReasonCode[];
  model: { version: 3; bootstrap: boolean; snapshot: string | null };
}

export interface ScoreContext {
  now: number;
  /** The agent's owner now (null: unclaimed). */
  ownerId: string | null;
  identityLevel: number;
  /** The owner's operator score (R5: below 400 withholds clear). */
  operatorScore: number;
  /** R6: the agent's configuration fingerprint matches a cautioned agent of another owner. */
  similarToCautioned?: boolean;
}

const CONFIDENCE_RANK: Record<Confidence, number> = { low: 0, medium: 1, high: 2 };

function confidenceOf(evidence: number, credible: number, identityLevel: number): Confidence {
  const { high, medium, unverifiedCap } = MODEL.confidence;
  let c: Confidence = "low";
  if (evidence >= high.evidence && credible >= high.credible) c = "high";
  else if (evidence >= medium.evidence && credible >= medium.credible) c = "medium";
  if (identityLevel <= 0 && CONFIDENCE_RANK[c] > CONFIDENCE_RANK[unverifiedCap]) c = unverifiedCap;
  return c;
}

const LOW_REASON: Record<Dimension, ReasonCode> = {
  reliability: "LOW_RELIABILITY",
  quality: "LOW_QUALITY",
  financial: "LOW_FINANCIAL",
  security: "LOW_SECURITY",
  stability: "LOW_STABILITY",
};

/** The assessment and the caution verdict (rules or idle hold) at ctx.now. */
export function assessAt(state: AgentState, now: number): { assessment: Assessment; caution: boolean } {
  const forgotten = forgetTo(state, now);
  const assessment = assess(forgotten, entriesOf(forgotten), now);
  return { assessment, caution: assessment.caution || heldAt(state, now) };
}

export function scoreOf(state: AgentState, ctx: ScoreContext): ScoreView {
  const { assessment: a, caution } = assessAt(state, ctx.now);
  const { dimensions, composite, evidence } = a.shown;
  const confidence = confidenceOf(evidence, a.credible, ctx.identityLevel);
  const r = MODEL.recommendation;
  let recommendation: Recommendation = "review";
  if (caution) recommendation = "caution";
  else if (
    composite >= r.clearFromComposite &&
    a.earnedComposite >= r.clearFromComposite &&
    confidence !== "low" &&
    DIMENSIONS.every((d) => dimensions[d] >= r.clearMinDimension) &&
    a.supporting >= r.clearMinCredible &&
    a.supporting >= r.clearSupportShare * a.present &&
    ctx.ownerId !== null &&
    !a.recentFailures &&
    ctx.operatorScore >= r.clearMinOperatorScore &&
    a.objectors < a.bar
  ) {
    recommendation = "clear";
  }

  // Lowest first; equal scores in composite-weight order (the order of REASON_CODES).
  const rank = (d: Dimension) => REASON_CODES.indexOf(LOW_REASON[d]);
  const reasons: ReasonCode[] = DIMENSIONS.filter((d) => dimensions[d] < MODEL.lowDimensionBelow)
    .sort((x, y) => dimensions[x] - dimensions[y] || rank(x) - rank(y))
    .map((d) => LOW_REASON[d]);
  if (a.recentFailures) reasons.push("RECENT_FAILURES");
  if (ctx.similarToCautioned) reasons.push("SIMILAR_TO_CAUTIONED");
  const lastChange = state.lastConfigChangeAt;
  if (lastChange !== null && ctx.now - lastChange < MODEL.recentConfigChangeMs) reasons.push("RECENT_CONFIG_CHANGE");
  if (ctx.ownerId === null) reasons.push("NO_OWNER");
  if (ctx.operatorScore < MODEL.operatorRecordBelow) reasons.push("OPERATOR_RECORD");
  if (a.supporting < MODEL.fewReportersBelow) reasons.push("FEW_INDEPENDENT_REPORTERS");
  if (evidence < MODEL.insufficientEvidenceBelow) reasons.push("INSUFFICIENT_EVIDENCE");
  if (ctx.identityLevel <= 0) reasons.push("IDENTITY_UNVERIFIED");

  return {
    composite,
    dimensions,
    confidence,
    recommendation,
    evidence,
    independentReporters: a.credible,
    reasons: reasons.slice(0, MODEL.maxReasons),
    model: { version: 3, bootstrap: state.bootstrap, snapshot: state.snapshot ?? null },
  };
}
