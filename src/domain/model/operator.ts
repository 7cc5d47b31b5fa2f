// The operator score (R5): version 2's formula over each agent's non-owner evidence weighted by `c`,
// counting only agents whose R_c is at least 2, so one friend cannot feed a dummy agent and one
// competitor cannot sink one.

import { assess } from "./assess";
import { MODEL } from "./constants";
import { forgetTo } from "./evidence";
import { entriesOf, type AgentState } from "./state";
import { mapDims } from "./vocabulary";
import { compositeOf, dimensionScore, evidenceOf, sums, weigh } from "./weighing";

/** N_i (0 when the agent does not count), c_i (the composite of its non-owner evidence) and its R_c. */
export interface Contribution {
  evidence: number;
  composite: number;
  credible: number;
}

/**
 * For the operator score, as of now: the agent's non-owner weighted evidence (N_i) and the composite
 * of the prior plus that evidence (c_i), or N_i = 0 while its R_c is below `operator.minCredible`.
 */
export function independentContribution(state: AgentState, now: number): Contribution {
  const forgotten = forgetTo(state, now);
  const entries = entriesOf(forgotten);
  const credible = assess(forgotten, entries, now).credible;
  const w = weigh(forgotten, entries, now);
  w.weight = w.weight.map((k, i) => (entries[i][1].owner ? 0 : k));
  const s = sums(w, "dims");
  const composite = compositeOf(s, mapDims((d) => dimensionScore(s[d])));
  return { evidence: credible >= MODEL.operator.minCredible ? evidenceOf(s) : 0, composite, credible };
}

/** round((50·500 + ΣN·c) / (50 + ΣN)) from running sums ΣN and ΣN·c. */
export function operatorScoreFromSums(evidence: number, weightedComposite: number): number {
  const w0 = MODEL.operator.priorWeight;
  return Math.round((w0 * 500 + weightedComposite) / (w0 + Math.max(0, evidence)));
}

/** The evidence-weighted mean of the agents' independent composites, shrunk to 500 by a prior weight. */
export function operatorScore(contributions: readonly Contribution[]): number {
  let evidence = 0;
  let weighted = 0;
  for (const c of contributions) {
    const n = Math.max(0, c.evidence);
    evidence += n;
    weighted += n * c.composite;
  }
  return operatorScoreFromSums(evidence, weighted);
}
