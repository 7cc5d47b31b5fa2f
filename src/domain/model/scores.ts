// Dimension scores with a prior, and the composite: a dimension is the credibility-weighted mean vote
// shrunk toward 500 by the prior mass m, 500 + 500 · Σ c·(2v − 1) / (Σ c + m); in the model's integer
// units (levels, votes × 1000) that is 500 + n / (2 (w + 20 m)).

import { MODEL_V4, PRIOR_LEVELS } from "./constants";
import type { DimSum } from "./aggregate";
import { DIMENSIONS, mapDims, type Dimension } from "./vocabulary";

/** The dimension's score, unrounded (the job reads it so) and rounded (what every rule and the API read). */
export const exactScore = (s: DimSum) => 500 + s.n / (2 * (s.w + PRIOR_LEVELS));
export const dimensionScore = (s: DimSum) => Math.round(exactScore(s));

/** A dimension is observed when some vote with weight is on it. */
export const observed = (s: DimSum) => s.w > 0;

export function dimensionScores(dims: Record<Dimension, DimSum>): Record<Dimension, number> {
  return mapDims((d) => dimensionScore(dims[d]));
}

/**
 * The composite: over the observed dimensions, round(500 + Σ w_d (score_d − 500) / Σ w_d) with the
 * weights of MODEL_V4.compositeWeights, from the rounded dimension scores (a client can recompute it).
 * It is shown and ranked; it never decides alone.
 */
export function compositeOf(dims: Record<Dimension, DimSum>, scores: Record<Dimension, number>): number {
  const w = MODEL_V4.compositeWeights;
  let total = 0;
  let pull = 0;
  for (const d of DIMENSIONS) {
    if (!observed(dims[d])) continue;
    total += w[d];
    pull += w[d] * (scores[d] - 500);
  }
  return total > 0 ? Math.round(500 + pull / total) : 500;
}
