// The log's sequencer as the tests bind it (test/worker.ts exports it under the production class's
// name): the production class plus injected failures and a movable clock. Production has neither.

import type { Env } from "../src/env";
import { LogSequencer as ProductionSequencer, type SequencerProbes } from "../src/durable/log-sequencer";
import type { FailurePoint } from "../src/durable/log/publish";

export class LogSequencer extends ProductionSequencer {
  /** Stop the next n batches at this point: after the tiles are in R2 (no checkpoint), or after the checkpoint (storage not told). */
  readonly faults: Record<FailurePoint, number> = { afterTiles: 0, beforeCommit: 0 };
  clock: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    const self: { sequencer?: LogSequencer } = {};
    const probes: SequencerProbes = {
      now: () => (self.sequencer ? self.sequencer.clock() : Date.now()),
      fail: (point) => {
        const faults = self.sequencer?.faults;
        if (!faults || faults[point] <= 0) return false;
        faults[point]--;
        return true;
      },
    };
    super(ctx, env, probes);
    self.sequencer = this;
  }
}
