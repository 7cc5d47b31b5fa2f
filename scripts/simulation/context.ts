// What every run of the simulation shares: its options, the world (credibility), and how to make an
// agent's object.

import type { CredibilitySource } from "../../src/domain/model/index";
import type { SignalMean } from "./population";
import { Scorer } from "./scorers";
import type { World } from "./world";

export interface SimulationSize {
  /** Agents per profile in the calibration population (1,000 at full size). */
  agentsPerProfile: number;
  /** Agents per profile at 30% and 100% credible reporters (good and bad only). */
  agentsPerShare: number;
  /** Victims per attack variant (join time, k). */
  victims: number;
  /** Victims of the competitor rows (1,000 at full size). */
  competitorVictims: number;
  /** Operators measured in the operator-score rows. */
  operators: number;
  /** Days an attack on an established agent runs. */
  attackDays: number;
  /** Ring sizes of new accounts measured (2..10). */
  ringKs: number[];
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
  ringKs: [2, 3, 4, 5, 6, 7, 8, 9, 10],
  world: { standing: 420, fresh: 180, aged: 40 },
};

/** `npm run simulate -- --quick`: a third of the population, the same world. */
export const QUICK: SimulationSize = { ...FULL, agentsPerProfile: 300, agentsPerShare: 150, victims: 40, competitorVictims: 300, operators: 20 };

/** test/domain/simulation.test.ts: every row, small (a few minutes in workerd). */
export const TEST: SimulationSize = {
  agentsPerProfile: 100,
  agentsPerShare: 30,
  victims: 10,
  competitorVictims: 100,
  operators: 4,
  attackDays: 30,
  ringKs: [2, 5, 10],
  world: { standing: 140, fresh: 60, aged: 40 },
};

export interface Run {
  seed: string;
  size: SimulationSize;
  signalMean: SignalMean;
  world: World;
}

export function scorerFor(run: Run, ownerId: number | null, createdAt: number, identityLevel?: number, source?: CredibilitySource): Scorer {
  return new Scorer(ownerId, createdAt, source ?? run.world.source, identityLevel);
}
