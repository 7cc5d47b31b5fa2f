// The agent's life outside reports: registration, configuration changes, a claim by an operator,
// an admin's status change, the owner's choice of what its public page shows. No tables of its own:
// the record is the kernel's.

import { agentRow, configRow, type ShardWrite } from "../../db/shard-writes";
import { applyConfigTo, localOf, newRecord, scoreOfRecord, SEQUENCE_SPACE, type AgentRecord, type AgentRef, type AgentStatus } from "../../domain/agent";
import type { AgentConfiguration } from "../../domain/configuration";
import { statusEvents } from "../../domain/events";
import type { Idempotency } from "../../domain/idempotency";
import type { Result } from "../../domain/results";
import type { Leaf } from "../../domain/log/leaf";
import type { ConfigUpdated, Registration } from "../../domain/views";
import { claimWrite, configWrite, registrationWrite, statusWrite } from "./entry-writes";
import { ok, refuse, replayedAnswer, type AgentHost } from "./host";
import { inheritanceOf, inheritanceStep, modelForNew, type Inherited } from "./model";

export interface RegistrationInput {
  operatorId: number | null;
  name: string;
  description: string | null;
  config: AgentConfiguration;
  fingerprint: string;
  claimTokenHash: string | null;
  now: number;
  /** R6: the negative evidence of a cautioned agent of the same owner and configuration. */
  inheritance?: Inherited | null;
  /** R6 across owners: the configuration matches a cautioned agent of another owner. */
  similarToCautioned?: boolean;
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

  /** R6: what this agent passes on to a new agent of its owner with its configuration (null: nothing). */
  inheritance(ref: AgentRef, now: number): Promise<Result<Inherited | null>> {
    return this.host.serial(async () => {
      const record = await this.host.load(ref);
      return record ? ok(inheritanceOf(record, now)) : refuse("not_found");
    });
  }

  register(ref: AgentRef, input: RegistrationInput): Promise<Result<Registration>> {
    const { host } = this;
    return host.serial(async () => {
      if (host.store.record()) return refuse("already_registered");
      const { inheritance: _inheritance, ...registration } = input;
      const created = newRecord(ref, registration, input.now, await modelForNew(host, ref.sid, input.now));
      const score = scoreOfRecord(created, input.now);
      const commitment = (op: number) => host.chain.commitment(ref.sid, op);
      const entries = [await registrationWrite(created, score, input.now, commitment)];
      // R6: a repeat of a cautioned agent of the same owner starts with its negative evidence (and in caution).
      let inheriting = { ...created, seq: created.seq + 1 };
      const inherited = input.inheritance ? await inheritanceStep(inheriting, input.inheritance, commitment) : null;
      if (inherited) {
        inheriting = inherited.record;
        entries.push(inherited.write);
      }
      const { record, shard, leaves } = await host.append({ ...inheriting, seq: created.seq }, entries);
      const writes = [agentRow(record, input.now), ...shard, configRow(record, record.seq, [], input.now)];
      const committed = host.commit(record, { shard: writes, leaves, at: input.now, also: () => host.store.setNotified({ composite: 500, recommendation: "review" }) });
      if (!committed) return refuse("write_failed");
      const bookmarks = await host.flush();
      return ok({ sid: record.sid, name: record.name, status: record.status, createdAt: record.createdAt, score, fingerprint: record.fingerprint }, bookmarks);
    });
  }

  updateConfig(ref: AgentRef, input: ConfigInput): Promise<Result<ConfigUpdated>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      const { idempotency: idem } = input;
      const replay = idem ? replayedAnswer<ConfigUpdated>(host.store.answer(input.callerId, idem.key, input.now), idem.requestHash) : null;
      if (replay) return replay;
      const changed = applyConfigTo(record, input.config, input.fingerprint, input.now);
      const result: ConfigUpdated = changed
        ? { changeDetected: true, changeType: changed.changeType, fingerprint: input.fingerprint, score: changed.score }
        : { changeDetected: false, changeType: null, fingerprint: record.fingerprint, score: scoreOfRecord(record, input.now) };
      if (record.seq + 1 >= SEQUENCE_SPACE) return refuse("history_full");
      let next = record;
      const writes: ShardWrite[] = [];
      let leaves: Leaf[] = [];
      if (changed) {
        const appended = await host.append({ ...changed.record, seq: record.seq }, [configWrite(changed.changes, input.fingerprint, changed.score, input.now)]);
        next = appended.record;
        leaves = appended.leaves;
        writes.push(...appended.shard, configRow(next, next.seq, changed.changes, input.now), agentRow(next, input.now));
      }
      const committed = host.commit(next, { shard: writes, leaves, at: input.now, also: () => idem && host.store.keepAnswer(input.callerId, idem.key, idem.requestHash, result, input.now) });
      if (!committed) return refuse("write_failed");
      const bookmarks = await host.flush();
      return ok(result, bookmarks, host.faceMoved(record, next));
    });
  }

  /** An operator takes a self-registered agent with its claim token: the history is replayed with it as owner. */
  claim(ref: AgentRef, input: { operatorId: number; claimTokenHash: string; now: number }): Promise<Result<{ sid: string }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.load(ref);
      if (!record) return refuse("not_found");
      if (record.operatorId !== null) return refuse("already_claimed");
      if (!record.claimTokenHash || record.claimTokenHash !== input.claimTokenHash) return refuse("invalid_claim_token");
      const claimed = localOf({ ...record, operatorId: input.operatorId, claimTokenHash: null }, input.operatorId).record;
      const write = await claimWrite(input.operatorId, scoreOfRecord(record, input.now).composite, input.now, (op) => host.chain.commitment(ref.sid, op));
      const appended = await host.append(claimed, [write]);
      // The history replayed with the claimer as owner: its own earlier reports now weigh as the owner's.
      const replayed = await host.replay(record, input.now, appended.chained.map((c) => ({ entry: c.entry, who: input.operatorId })));
      if (!replayed) return refuse("write_failed");
      const next: AgentRecord = { ...appended.record, evidence: replayed.evidence, locals: replayed.locals };
      const committed = host.commit(next, {
        shard: [...appended.shard, agentRow(next, input.now)],
        leaves: appended.leaves,
        control: [{ kind: "directoryOwner", sid: next.sid, operatorId: input.operatorId }],
        at: input.now,
        also: () => host.store.replaceRecent(replayed.recent),
      });
      if (!committed) return refuse("write_failed");
      host.recent = replayed.recent;
      const bookmarks = await host.flush();
      return ok({ sid: next.sid }, bookmarks, host.faceMoved(record, next));
    });
  }

  /** An admin's status change (a suspended agent accepts no transactions). */
  setStatus(ref: AgentRef, status: AgentStatus, now: number): Promise<Result<{ status: AgentStatus }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.load(ref);
      if (!record) return refuse("not_found");
      if (status === record.status) return ok({ status });
      const appended = await host.append({ ...record, status }, [statusWrite(status, scoreOfRecord(record, now).composite, now)]);
      const next = appended.record;
      const change = { shard: [...appended.shard, agentRow(next, now)], leaves: appended.leaves, at: now, events: statusEvents(record, next) };
      if (!host.commit(next, change)) return refuse("write_failed");
      return ok({ status }, await host.flush());
    });
  }

  /** The owner opts its agent's public page in to (or out of) reasons, dimensions, history and open disputes. */
  setPublicProfile(ref: AgentRef, input: { callerId: number; publicProfile: boolean; now: number }): Promise<Result<{ publicProfile: boolean }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      if ((record.publicProfile ?? false) === input.publicProfile) return ok({ publicProfile: input.publicProfile });
      const next: AgentRecord = { ...record, publicProfile: input.publicProfile };
      if (!host.commit(next, { shard: [agentRow(next, input.now)], at: input.now })) return refuse("write_failed");
      return ok({ publicProfile: input.publicProfile }, await host.flush());
    });
  }

  /**
   * Brings the agent's row up to date: applies journal entries a failed batch left, and moves a
   * pre-sharding agent to the current scoring model. Readers call it when the row is missing or old.
   */
  sync(ref: AgentRef): Promise<Result<null>> {
    return this.host.serial(async () => ((await this.host.load(ref)) ? ok(null, await this.host.flush()) : refuse("not_found")));
  }

  /**
   * The agent's status and the recommendation its row shows, with where its events stand: the
   * starting point of its entry in a status list (src/durable/status-list.ts), which its later
   * events keep current.
   */
  statusFacts(ref: AgentRef, now: number): Promise<Result<{ status: AgentStatus; recommendation: string; epoch: string; n: number }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.load(ref);
      if (!record) return refuse("not_found");
      const recommendation = host.store.shown()?.recommendation ?? scoreOfRecord(record, now).recommendation;
      return ok({ status: record.status, recommendation, ...host.store.eventPosition() });
    });
  }
}
