// The seeded simulation of the scoring model, version 4 (docs/scoring.md, "Version 4: simulation"):
// every row of the targets table for one signal model, and the rows injected into Bitcoin OTC.
// `npm run simulate` runs it at full size under both signal models; test/domain/simulation.test.ts
// at a smaller size.

import type { Run, SimulationSize } from "./context";
import { SIGNAL_MODELS } from "./population";
import { attackRows } from "./rows-attacks";
import { honestRows } from "./rows-honest";
import { jobRows } from "./rows-job";
import { operatorRows } from "./rows-operator";
import type { SignalName, SignalResult } from "./table";
import { buildWorld, type World } from "./world";

export { FULL, QUICK, TEST, type SimulationSize } from "./context";
export { formatTable, misses, verdict, type Row, type SignalResult, type SimulationResult } from "./table";
export { auc, median, quantile, randomFor, type Random } from "./random";
export { buildWorld } from "./world";
export { otcRows } from "./rows-otc";

export type Group = "honest" | "attacks" | "job" | "operator";

export interface SimulationOptions {
  seed: string;
  size: SimulationSize;
  signal: SignalName;
  /** Only these row groups (tests of one group); all by default. */
  groups?: Group[];
}

export function runSignal(options: SimulationOptions, world: World = buildWorld(options.seed, options.size.world)): SignalResult {
  const run: Run = { seed: options.seed, size: options.size, signalMean: SIGNAL_MODELS[options.signal], world };
  const groups = options.groups ?? ["honest", "attacks", "job", "operator"];
  const parts = [
    groups.includes("honest") ? honestRows(run) : null,
    groups.includes("attacks") ? attackRows(run) : null,
    groups.includes("job") ? jobRows(run) : null,
    groups.includes("operator") ? operatorRows(run) : null,
  ].filter((p) => p !== null);
  return { signal: options.signal, rows: parts.flatMap((p) => p.rows), notes: [...world.notes, ...parts.flatMap((p) => p.notes)] };
}
