// The log's sequencer as the tests bind it (test/worker.ts exports it under the production class's
// name): the production class plus injected failures, a movable clock and variables a test sets.
// Production has none of them.

import type { Env } from "../src/env";
import { LogSequencer as ProductionSequencer, type SequencerProbes } from "../src/durable/log-sequencer";
import type { FailurePoint } from "../src/durable/log/publish";

export class LogSequencer extends ProductionSequencer {
  /** Stop the next n batches at this point: after the tiles are in R2 (no checkpoint), or after the checkpoint (storage not told). */
  readonly faults: Record<FailurePoint, number> = { afterTiles: 0, beforeCommit: 0 };
  clock: () => number = Date.now;
  /** Variables this object reads in place of the Worker's from now on (a redeployment's), set by a test. */
  vars: Partial<Record<keyof Env, string>> = {};

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
    const vars = new Proxy(env, { get: (target, name, receiver) => (self.sequencer?.vars as Record<PropertyKey, string> | undefined)?.[name] ?? Reflect.get(target, name, receiver) });
    super(ctx, vars, probes);
    self.sequencer = this;
  }
}
