// The seeded simulation of the scoring model (docs/scoring.md, "Simulation"): every row of the
// targets table, under version 2 and version 3, for one signal model. `npm run simulate` runs it at
// full size under both signal models; test/domain/simulation.test.ts at a smaller size.

import type { SimulationSize, Run } from "./context";
import { SIGNAL_MODELS } from "./population";
import { attackRows } from "./rows-attacks";
import { dynamicRows } from "./rows-dynamic";
import { honestRows } from "./rows-honest";
import { operatorRows } from "./rows-operator";
import type { SignalName, SignalResult } from "./table";
import { buildWorld, type World } from "./world";

export { FULL, QUICK, SMALL, TEST, type SimulationSize } from "./context";
export { formatTable, misses, type Row, type SignalResult, type SimulationResult } from "./table";
export { auc, median, quantile, randomFor, type Random } from "./random";
export { buildWorld } from "./world";

export interface SimulationOptions {
  seed: string;
  size: SimulationSize;
  signal: SignalName;
  /** Only these row groups (tests of one group); all by default. */
  groups?: ("honest" | "attacks" | "dynamic" | "operator")[];
  /** Version 2 beside version 3 (default true). */
  withV2?: boolean;
}

export function runSignal(options: SimulationOptions, world: World = buildWorld(options.seed, options.size.world)): SignalResult {
  const run: Run = { seed: options.seed, size: options.size, signalMean: SIGNAL_MODELS[options.signal], world, withV2: options.withV2 ?? true };
  const groups = options.groups ?? ["honest", "attacks", "dynamic", "operator"];
  const parts = [
    groups.includes("honest") ? honestRows(run) : null,
    groups.includes("attacks") ? attackRows(run) : null,
    groups.includes("dynamic") ? dynamicRows(run) : null,
    groups.includes("operator") ? operatorRows(run) : null,
  ].filter((p) => p !== null);
  return { signal: options.signal, rows: parts.flatMap((p) => p.rows), notes: parts.flatMap((p) => p.notes) };
}
