// The agent's object as the tests bind it (test/worker.ts exports it under the production class's
// name): the production class plus the hooks tests need. Production has none of them.

import type { Env } from "../src/env";
import { Agent as ProductionAgent } from "../src/durable/agent";
import { forgetSnapshot } from "../src/db/snapshot";
import type { FaultPoint, Probes } from "../src/durable/agent/host";

const FAULTS = { beforeBatch: "failBeforeBatch", afterBatch: "failAfterBatch", beforeSend: "crashBeforeSend", archiveAfterPut: "failAfterArchivePut" } as const satisfies Record<FaultPoint, string>;

export class Agent extends ProductionAgent {
  /** Injected failures, the next n times (src/durable/agent/host.ts FaultPoint). */
  readonly faults = { failBeforeBatch: 0, failAfterBatch: 0, crashBeforeSend: 0, failAfterArchivePut: 0 };
  /** The clock of alarms (tests move it). */
  clock: () => number = Date.now;
  /** Variables this object reads in place of the Worker's, set by a test. */
  vars: Partial<Record<keyof Env, string>> = {};

  constructor(ctx: DurableObjectState, env: Env) {
    const self: { agent?: Agent } = {};
    const probes: Probes = {
      now: () => (self.agent ? self.agent.clock() : Date.now()),
      fail: (point) => {
        const faults = self.agent?.faults;
        if (!faults) return false;
        const name = FAULTS[point];
        if (faults[name] <= 0) return false;
        faults[name]--;
        return true;
      },
    };
    const vars = new Proxy(env, { get: (target, name, receiver) => (self.agent?.vars as Record<PropertyKey, string> | undefined)?.[name] ?? Reflect.get(target, name, receiver) });
    super(ctx, vars, probes);
    self.agent = this;
  }

  /** The agent as this object holds it (read from the shard when not yet), and how far its outbox was handed to the queues. */
  inspect() {
    return this.kernel.inspect();
  }

  /** Drops the Worker's copy of the snapshot in force (a test published another). */
  forgetSnapshot(): void {
    forgetSnapshot();
  }

  /** Holds the object's queue of changes until `gate` settles. */
  hold(gate: Promise<void>): void {
    void this.kernel.exclusive(() => gate);
  }
}
