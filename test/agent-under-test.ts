// The agent's object as the tests bind it (test/worker.ts exports it under the production class's
// name): the production class plus the hooks tests need. Production has none of them.

import type { Env } from "../src/env";
import { Agent as ProductionAgent } from "../src/durable/agent";
import type { Probes } from "../src/durable/agent/kernel";

export class Agent extends ProductionAgent {
  /** Injected failures: a crash right after the commit, a failing shard batch, a crash before publishing, the next n times. */
  readonly faults = { crashAfterCommit: 0, failShardBatch: 0, crashBeforePublish: 0, interruptMigration: 0, failAfterArchivePut: 0 };
  /** The clock of alarms (tests move it). */
  clock: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    const self: { agent?: Agent } = {};
    const probes: Probes = {
      now: () => (self.agent ? self.agent.clock() : Date.now()),
      fail: (point) => {
        const faults = self.agent?.faults;
        if (!faults) return false;
        const name = (
          { afterCommit: "crashAfterCommit", shardBatch: "failShardBatch", beforePublish: "crashBeforePublish", migrationChunk: "interruptMigration", archiveAfterPut: "failAfterArchivePut" } as const
        )[point];
        if (faults[name] <= 0) return false;
        faults[name]--;
        return true;
      },
    };
    super(ctx, env, probes);
    self.agent = this;
  }

  /** The record in storage and how many journal entries the shard still lacks. */
  inspect() {
    return this.kernel.inspect();
  }

  /** Holds the object's queue of changes until `gate` settles. */
  hold(gate: Promise<void>): void {
    void this.kernel.serial(() => gate);
  }
}
