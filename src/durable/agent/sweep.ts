// The migration sweep's side in the agent object: an agent on an earlier contract moves to the
// record's (src/db/earlier-contract.ts) the first time its object reads it, before any change; the
// sweep (`npm run admin -- migrate-objects`) calls `migrate` on every agent so that none waits for
// traffic, and the agent's `model` entry (version 4) and log tag cut-over follow as a change.

import { EarlierContract } from "../../db/earlier-contract";
import { readContract, RECORD_CONTRACT, type Loaded } from "../../db/agent-record";
import { scoreOfRecord, type AgentRef } from "../../domain/agent";
import { sweptLogTags } from "../../domain/log/epochs";
import type { Result } from "../../domain/results";
import { answer, ok, refuse, type AgentHost } from "./host";

export class Sweep {
  private readonly earlier: EarlierContract;

  constructor(
    private readonly kernel: AgentHost,
    private readonly storage: DurableObjectStorage,
  ) {
    this.earlier = new EarlierContract(storage, kernel.env);
  }

  /**
   * The sweep's call: the agent on the record's contract (moved now, or already), its storage empty,
   * and its log tag cut-over set (once: its entries after the one it stands at get tagged leaves).
   */
  async migrate(ref: AgentRef): Promise<Result<{ moved: boolean }>> {
    const moved = await this.kernel.exclusive(async () => {
      const before = await readContract(this.kernel.shard(ref.shard).withSession("first-primary"), ref.sid);
      if (before === null) return refuse("not_found");
      const loaded = await this.kernel.read(ref);
      if (!loaded) return refuse("not_found");
      // Whatever else this object's storage still holds (an alarm's leftovers) goes too.
      if (this.earlier.table("agent")) await this.storage.deleteAll();
      return ok({ moved: before < RECORD_CONTRACT });
    });
    if (!moved.ok) return moved;
    // The log tags' cut-over (once), then the `model` entry of an agent that moved to version 4 now.
    const done = await this.kernel.change(ref, {
      async run(group) {
        const before = group.record;
        if (!before) return answer(refuse("not_found"));
        const record = before.logTags ? before : { ...before, logTags: sweptLogTags(before.seq, before.operatorId) };
        if (!moved.result.moved) return record === before ? answer(ok(null)) : { change: { record }, answer: () => null };
        const at = record.evidence.at;
        const entry = { draft: { kind: "model" as const, at, body: { version: 4 } }, composite: scoreOfRecord(record, at).composite };
        return { change: { record: { ...record, seq: record.seq + 1 }, entries: [entry] }, answer: () => null };
      },
    });
    return done.ok ? moved : done;
  }

  /** A row on an earlier contract, read by the kernel: the agent moves to the record's contract first. */
  upgrade(loaded: Loaded): Promise<Loaded> {
    return this.earlier.upgrade(loaded, this.kernel.shard(loaded.record.shard).withSession("first-primary"), this.kernel.now());
  }
}
