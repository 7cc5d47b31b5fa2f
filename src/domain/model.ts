// The scoring model's entry point for the service. Version 3 (./model/, docs/scoring.md) is the
// model the service serves; version 2 (./model-v2, frozen) stays reachable as the namespace `v2` for
// agents not yet switched during the shadow period (./scoring.ts picks by the evidence's shape).

export * from "./model/index";
export * as v2 from "./model-v2";
import type { ScoreView as ScoreViewV3 } from "./model/index";

/** A score as the service shows it: version 3's, or version 2's for an agent not yet switched. */
export type ScoreView = Omit<ScoreViewV3, "model"> & { model: { version: 2 | 3; bootstrap: boolean; snapshot: string | null } };
