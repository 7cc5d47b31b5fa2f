// The scoring model, version 2 (frozen): the score at a time and the operator score.

import { DIMENSIONS, mapDims, type Confidence, type Dimension, type Pair, type Recommendation } from "../model/vocabulary";
import { MODEL, REASON_CODES, type AgentEvidence, type Contribution, type ReasonCode, type ScoreView } from "./constants";
import { entriesOf, forget, isOwnerOf, totals, type Entry } from "./evidence";

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
