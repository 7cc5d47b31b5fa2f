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
  /** Ring sizes of new accounts measured (DESIGN: 2..10). */
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
  ringKs: FULL.ringKs,
  world: FULL.world,
};

export const SMALL: SimulationSize = {
  agentsPerProfile: 200,
  agentsPerShare: 60,
  victims: 12,
  competitorVictims: 200,
  operators: 8,
  attackDays: 30,
  ringKs: FULL.ringKs,
  world: { standing: 140, fresh: 60, aged: 24 },
};

/** test/domain/simulation.test.ts: every row, small, version 3 only (under a minute in workerd). */
export const TEST: SimulationSize = {
  agentsPerProfile: 100,
  agentsPerShare: 30,
  victims: 10,
  competitorVictims: 60,
  operators: 4,
  attackDays: 30,
  ringKs: [2, 5, 10],
  world: { standing: 100, fresh: 40, aged: 24 },
};

export interface Run {
  seed: string;
  size: SimulationSize;
  signalMean: SignalMean;
  world: World;
  /** Version 2 runs beside version 3 unless left out (the tests leave it out). */
  withV2: boolean;
}

/** f under version 2 (null when the run leaves it out) and version 3. */
export function byModel<T>(run: Run, f: (model: ModelVersion) => T): { 2: T | null; 3: T } {
  return { 2: run.withV2 ? f(2) : null, 3: f(3) };
}

/** The row's two cells from a byModel of cells. */
export const cells = <C>(x: { 2: C | null; 3: C }) => ({ v2: x[2], v3: x[3] });

/** A version 2 cell from a version 2 figure, or null. */
export const v2Cell = <T, C>(x: T | null, f: (x: T) => C): C | null => (x === null ? null : f(x));

export function scorerFor(run: Run, model: ModelVersion, ownerId: number | null, createdAt: number, identityLevel?: number, source?: CredibilitySource): Scorer {
  return newScorer(model, ownerId, createdAt, source ?? run.world.source, identityLevel);
}
