// What every run of the simulation shares: its options, the world (credibility), and how to make an
// agent's object under either model.

import type { CredibilitySource } from "../../src/domain/model/index";
import type { SignalMean } from "./population";
import { newScorer, type ModelVersion, type Scorer } from "./scorers";
import type { World } from "./world";

export interface SimulationSize {
  /** Agents per profile in the calibration population (DESIGN: 1,000). */
  agentsPerProfile: number;
  /** Agents per profile at 30% and 100% standing (good and bad only). */
  agentsPerShare: number;
  /** Victims per attack variant (join time, k). */
  victims: number;
  /** Victims of the one- and two-competitor rows (DESIGN: n ≥ 1,000). */
  competitorVictims: number;
  /** Operators measured in the operator-score rows. */
  operators: number;
  /** Days an attack on an established agent runs. */
  attackDays: number;
  /** The world's pool: operators dealing with the world, the others, aged accounts. */
  world: { standing: number; fresh: number; aged: number };
}

export const FULL: SimulationSize = {
  agentsPerProfile: 1000,
  agentsPerShare: 500,
  victims: 100,
  competitorVictims: 1000,
  operators: 50,
  attackDays: 30,
  world: { standing: 420, fresh: 180, aged: 24 },
};

/** `npm run simulate -- --quick`: a third of the population, the same world. */
export const QUICK: SimulationSize = {
  agentsPerProfile: 300,
  agentsPerShare: 150,
  victims: 40,
  competitorVictims: 300,
  operators: 20,
  attackDays: 30,
  world: FULL.world,
};

export const SMALL: SimulationSize = {
  agentsPerProfile: 200,
  agentsPerShare: 60,
  victims: 12,
  competitorVictims: 200,
  operators: 8,
  attackDays: 30,
  world: { standing: 140, fresh: 60, aged: 24 },
};

export interface Run {
  seed: string;
  size: SimulationSize;
  signalMean: SignalMean;
  world: World;
}

export function scorerFor(run: Run, model: ModelVersion, ownerId: number | null, createdAt: number, identityLevel?: number, source?: CredibilitySource): Scorer {
  return newScorer(model, ownerId, createdAt, source ?? run.world.source, identityLevel);
}
