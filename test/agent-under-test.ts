// The agent's object as the tests bind it (test/worker.ts exports it under the production class's
// name): the production class plus the hooks tests need. Production has none of them.

import type { Env } from "../src/env";
import { Agent as ProductionAgent } from "../src/durable/agent";
import type { Probes } from "../src/durable/agent/host";

export class Agent extends ProductionAgent {
  /** Injected failures: a crash right after the commit, a failing shard batch, a crash before publishing, the next n times. */
  readonly faults = { crashAfterCommit: 0, failShardBatch: 0, crashBeforePublish: 0, interruptMigration: 0, failAfterArchivePut: 0 };
  /** The clock of alarms (tests move it). */
  clock: () => number = Date.now;
  /** Variables this object reads in place of the Worker's (e.g. ROLLUP_LAG_SECONDS), set by a test. */
  vars: Partial<Record<keyof Env, string>> = {};

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
    const vars = new Proxy(env, { get: (target, name, receiver) => (self.agent?.vars as Record<PropertyKey, string> | undefined)?.[name] ?? Reflect.get(target, name, receiver) });
    super(ctx, vars, probes);
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
