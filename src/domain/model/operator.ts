// The operator score: the credible-mass-weighted mean S of the operator's agents that hold credible
// mass ≥ 1 without their most credible reporter (500 when none), the same mean the job's `record`
// reads: no one reporter makes an agent count, so one competitor cannot sink an operator's score
// through its quiet agents, nor one friend lift it through dummies. The service keeps per-shard sums
// of each agent's contribution and combines them (operatorScoreFromSums).

import { LEVELS, MODEL_V4, levelsOf } from "./constants";
import type { AgentModel } from "./aggregate";
import { histogramFacts } from "./aggregate";
import { assess } from "./assess";

/** An agent's part in its operator's score at `now`: its credible mass and mass × S (0 and 0 below the bar). */
export interface Contribution {
  mass: number;
  weighted: number;
}

export function operatorContribution(model: AgentModel, now: number): Contribution {
  const a = assess(model, now);
  if (a.mass.credible - histogramFacts(a.mass.levels).top < levelsOf(MODEL_V4.operatorMinMass)) return { mass: 0, weighted: 0 };
  const mass = a.mass.credible / LEVELS;
  return { mass, weighted: mass * a.s };
}

/** round(Σ mass·S / Σ mass), or 500 when no agent counts. */
export function operatorScoreFromSums(mass: number, weighted: number): number {
  return mass > 0 ? Math.round(weighted / mass) : 500;
}

export function operatorScore(contributions: readonly Contribution[]): number {
  let mass = 0;
  let weighted = 0;
  for (const c of contributions) {
    mass += c.mass;
    weighted += c.weighted;
  }
  return operatorScoreFromSums(mass, weighted);
}
