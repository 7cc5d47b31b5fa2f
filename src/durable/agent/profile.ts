// The agent's life outside reports: registration, configuration changes, a claim by an operator,
// an admin's status change, the owner's choice of what its public page shows.

import { configRow } from "../../db/shard-writes";
import { applyConfigTo, newRecord, scoreOfRecord, SEQUENCE_SPACE, type AgentRecord, type AgentRef, type AgentStatus, type NewAgent } from "../../domain/agent";
import type { AgentConfiguration } from "../../domain/configuration";
import { entryEventPosition, statusEvents } from "../../domain/events";
import { withOwner } from "../../domain/log/epochs";
import type { Idempotency } from "../../domain/idempotency";
import type { Result } from "../../domain/results";
import type { ConfigUpdated, Registration } from "../../domain/views";
import { inheritanceOf, inheritanceStep, type Inherited } from "../../db/model-steps";
import { claimWrite, configWrite, registrationWrite, statusWrite, type EntryWrite } from "../../db/entry-writes";
import { answer, ok, owned, refuse, replayed, type AgentHost } from "./host";
import { replayOnShard } from "../../db/history";

export interface RegistrationInput extends NewAgent {
  now: number;
  /** R6: the negative evidence of a cautioned agent of the same owner and configuration. */
  inheritance?: Inherited | null;
}

export interface ConfigInput {
  callerId: number;
  now: number;
  idempotency?: Idempotency;
  config: AgentConfiguration;
  fingerprint: string;
}

export class Profile {
  constructor(private readonly host: AgentHost) {}

  /** What this agent passes on to a new agent of its owner that repeats it (null: nothing). */
  inheritance(ref: AgentRef, now: number): Promise<Result<Inherited | null>> {
    return this.host.change(ref, {
      async run(group) {
        if (!group.record) return answer(refuse("not_found"));
        return answer(ok(inheritanceOf(group.record, await group.allPairs(), now)));
      },
    });
  }

  register(ref: AgentRef, input: RegistrationInput): Promise<Result<Registration>> {
    const { host } = this;
    return host.change(ref, {
      async run(group) {
        if (group.before) return answer(refuse("already_registered"));
        const { inheritance, ...registration } = input;
        const created = newRecord(ref, registration, input.now);
        const score = scoreOfRecord(created, input.now);
        const commitment = (op: number) => host.commitment(ref.sid, op);
        const entries: EntryWrite[] = [await registrationWrite(created, score, input.now, commitment)];
        // R6: a repeat of a cautioned agent of the same owner starts with its negative evidence (and in caution).
        let record: AgentRecord = { ...created, seq: 1 };
        const inherited = inheritance ? await inheritanceStep(record, inheritance, commitment) : null;
        if (inherited) {
          record = inherited.record;
          entries.push(inherited.write);
        }
        return {
          change: { record, entries, rows: [configRow(record, 1, [], input.now)], pairs: inherited?.pairs, whole: true },
          answer: () => ({ sid: record.sid, name: record.name, status: record.status, createdAt: record.createdAt, score, fingerprint: record.fingerprint }),
        };
      },
    });
  }

  updateConfig(ref: AgentRef, input: ConfigInput): Promise<Result<ConfigUpdated>> {
    return this.host.change(ref, {
      async run(group) {
        const record = owned(group, input.callerId);
        if (!("sid" in record)) return answer(record);
        const repeat = await replayed<ConfigUpdated>(group, input.callerId, input.idempotency, input.now);
        if (repeat) return repeat;
        const rows = await group.allPairs();
        const pairs = new Map([...rows].map(([k, r]) => [k, r.pair]));
        const changed = applyConfigTo(record, input.config, input.fingerprint, input.now, pairs);
        // A request that changes nothing writes nothing (its key is not recorded: a repeat finds nothing to change again).
        if (!changed) return answer(ok({ changeDetected: false, changeType: null, fingerprint: record.fingerprint, score: scoreOfRecord(record, input.now) }));
        if (record.seq + 1 >= SEQUENCE_SPACE) return answer(refuse("history_full"));
        const result: ConfigUpdated = { changeDetected: true, changeType: changed.changeType, fingerprint: input.fingerprint, score: changed.score };
        return {
          change: {
            record: changed.record,
            entries: [configWrite(changed.changes, input.fingerprint, changed.score, input.now)],
            rows: [configRow(changed.record, changed.record.seq, changed.changes, input.now)],
            pairs: changed.pairs.map((pair) => ({ pair, operatorId: rows.get(pair.reporter)!.operatorId })),
            whole: true,
            keyed: input.idempotency && { operatorId: input.callerId, idempotency: input.idempotency },
          },
          answer: () => result,
        };
      },
    });
  }

  /** An operator takes a self-registered agent with its claim token: the history is replayed with it as owner. */
  claim(ref: AgentRef, input: { operatorId: number; claimTokenHash: string; now: number }): Promise<Result<{ sid: string }>> {
    const { host } = this;
    return host.change(ref, {
      // The replay reads the whole history from the shard: it must hold every change before this one.
      alone: true,
      async run(group) {
        const record = group.record;
        if (!record) return answer(refuse("not_found"));
        if (record.operatorId !== null) return answer(refuse("already_claimed"));
        if (!record.claimTokenHash || record.claimTokenHash !== input.claimTokenHash) return answer(refuse("invalid_claim_token"));
        const claimed: AgentRecord = { ...record, operatorId: input.operatorId, claimTokenHash: null };
        const write = await claimWrite(input.operatorId, scoreOfRecord(record, input.now).composite, input.now, (op) => host.commitment(ref.sid, op));
        // The history replayed with the claimer as owner: its own earlier reports now weigh as the owner's.
        const replay = await replayOnShard(host.shard(ref.shard).withSession("first-primary"), record, [{ draft: write.draft, who: input.operatorId }]);
        return {
          change: {
            // A new owner: a new epoch of log tags from the claim's entry on (its keys are the claimer's).
            record: { ...claimed, evidence: replay.evidence, seq: record.seq + 1, logTags: withOwner(record.logTags, record.seq + 1, input.operatorId) },
            entries: [write],
            pairsReplaced: replay.pairs,
            control: [{ kind: "directoryOwner", sid: record.sid, operatorId: input.operatorId }],
            whole: true,
          },
          answer: () => ({ sid: record.sid }),
        };
      },
    });
  }

  /** An admin's status change (a suspended agent accepts no transactions). */
  setStatus(ref: AgentRef, status: AgentStatus, now: number): Promise<Result<{ status: AgentStatus }>> {
    return this.host.change(ref, {
      async run(group) {
        const record = group.record;
        if (!record) return answer(refuse("not_found"));
        if (status === record.status) return answer(ok({ status }));
        const next: AgentRecord = { ...record, status, seq: record.seq + 1 };
        return {
          change: { record: next, entries: [statusWrite(status, scoreOfRecord(record, now).composite, now)], events: statusEvents(record, next), whole: true },
          answer: () => ({ status }),
        };
      },
    });
  }

  /** The owner opts its agent's public page in to (or out of) reasons, dimensions, history and open disputes. */
  setPublicProfile(ref: AgentRef, input: { callerId: number; publicProfile: boolean; now: number }): Promise<Result<{ publicProfile: boolean }>> {
    return this.host.change(ref, {
      async run(group) {
        const record = owned(group, input.callerId);
        if (!("sid" in record)) return answer(record);
        if ((record.publicProfile ?? false) === input.publicProfile) return answer(ok({ publicProfile: input.publicProfile }));
        return { change: { record: { ...record, publicProfile: input.publicProfile }, whole: true }, answer: () => ({ publicProfile: input.publicProfile }) };
      },
    });
  }

  /**
   * The agent's status and the recommendation its row shows, with where its events stand: the
   * starting point of its entry in a status list (src/durable/status-list.ts), which its later
   * events keep current.
   */
  async statusFacts(ref: AgentRef, now: number): Promise<Result<{ status: AgentStatus; recommendation: string; epoch: string; n: number }>> {
    const loaded = await this.host.exclusive(() => this.host.read(ref));
    if (!loaded) return refuse("not_found");
    const recommendation = loaded.notified?.recommendation ?? scoreOfRecord(loaded.record, now).recommendation;
    return ok({ status: loaded.record.status, recommendation, ...entryEventPosition(loaded.record.seq) });
  }
}
