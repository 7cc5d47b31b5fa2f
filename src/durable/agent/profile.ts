// The agent's life outside reports: registration, configuration changes, a claim by an operator,
// an admin's status change. No tables of its own: the record is the kernel's.

import { agentRow, configRow, scoreEventRow, type ShardWrite } from "../../db/shard-writes";
import { applyConfigTo, newRecord, scoreEvent, scoreOfRecord, SEQUENCE_SPACE, type AgentRecord, type AgentRef, type AgentStatus } from "../../domain/agent";
import type { AgentConfiguration } from "../../domain/configuration";
import { statusEvents } from "../../domain/events";
import type { Idempotency } from "../../domain/idempotency";
import type { Result } from "../../domain/results";
import type { ConfigUpdated, Registration } from "../../domain/views";
import { ok, refuse, type AgentHost } from "./host";

export interface RegistrationInput {
  operatorId: number | null;
  name: string;
  description: string | null;
  config: AgentConfiguration;
  fingerprint: string;
  claimTokenHash: string | null;
  now: number;
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

  register(ref: AgentRef, input: RegistrationInput): Promise<Result<Registration>> {
    const { host } = this;
    return host.serial(async () => {
      if (host.store.record()) return refuse("already_registered");
      const record = newRecord(ref, input, input.now);
      const writes = [agentRow(record, input.now), configRow(record, 0, [], input.now)];
      const committed = host.commit(record, { shard: writes, at: input.now, also: () => host.store.setNotified({ composite: 500, recommendation: "review" }) });
      if (!committed) return refuse("write_failed");
      const bookmarks = await host.flush();
      const score = scoreOfRecord(record, input.now);
      return ok({ sid: record.sid, name: record.name, status: record.status, createdAt: record.createdAt, score, fingerprint: record.fingerprint }, bookmarks);
    });
  }

  updateConfig(ref: AgentRef, input: ConfigInput): Promise<Result<ConfigUpdated>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      const replay = host.replayed<ConfigUpdated>(input.callerId, input.idempotency, input.now);
      if (replay) return replay;
      const changed = applyConfigTo(record, input.config, input.fingerprint, input.now);
      const result: ConfigUpdated = changed
        ? { changeDetected: true, changeType: changed.changeType, fingerprint: input.fingerprint, score: changed.score }
        : { changeDetected: false, changeType: null, fingerprint: record.fingerprint, score: scoreOfRecord(record, input.now) };
      const next = changed?.record ?? record;
      if (next.seq >= SEQUENCE_SPACE) return refuse("history_full");
      const writes: ShardWrite[] = changed
        ? [
            configRow(next, changed.seq, changed.changes, input.now),
            scoreEventRow(next.sid, changed.seq, scoreEvent.configChange(changed.changeType), changed.score, input.now),
            agentRow(next, input.now),
          ]
        : [];
      const committed = host.commit(next, { shard: writes, at: input.now, also: () => host.keepAnswer(input.callerId, input.idempotency, result, input.now) });
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
      const replayed = await host.replay(record, input.operatorId, input.now);
      if (!replayed) return refuse("write_failed");
      const next: AgentRecord = { ...record, operatorId: input.operatorId, claimTokenHash: null, evidence: replayed.evidence };
      const committed = host.commit(next, {
        shard: [agentRow(next, input.now)],
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
      const next: AgentRecord = { ...record, status };
      if (!host.commit(next, { shard: [agentRow(next, now)], at: now, events: statusEvents(record, next) })) return refuse("write_failed");
      return ok({ status }, await host.flush());
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
