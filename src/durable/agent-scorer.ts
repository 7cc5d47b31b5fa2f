import { DurableObject } from "cloudflare:workers";
import { configurationOf, findTransaction, readAgentRow } from "../db/agents";
import { getDispute, unresolvedDisputes } from "../db/disputes";
import { readHistory, readKeys } from "../db/history";
import {
  agentRow,
  configRow,
  controlStatements,
  keyAdded,
  keyRemoved,
  scoreColumns,
  scoreEventRow,
  shardStatements,
  transactionRow,
  type ControlWrite,
  type ShardWrite,
} from "../db/shard-writes";
import { IDENTITY_LABELS, identityLevelOf, MAX_AGENT_KEYS, type AgentKey } from "../domain/agent-keys";
import { scoreChangedData, scoreCrossed, type AgentEvent } from "../domain/events";
import { DISPUTE_WINDOW_MS, disputeEventData, MAX_OPEN_DISPUTES, RESPOND_WITHIN_MS, type Dispute } from "../domain/disputes";
import type { AgentConfiguration } from "../domain/configuration";
import {
  applyConfigTo,
  applyReportTo,
  newRecord,
  nextFaceChange,
  replayHistory,
  scoreEvent,
  scoreOfRecord,
  SEQUENCE_SPACE,
  type AgentRecord,
  type AgentRef,
  type AgentStatus,
  type Report,
} from "../domain/agent";
import type { Idempotency } from "../domain/idempotency";
import { evidenceFactor, MODEL, type AgentEvidence } from "../domain/model";
import { checkReceipt } from "../domain/receipts";
import type { Refusal, Result } from "../domain/results";
import type { ConfigUpdated, Registration, TransactionRecorded } from "../domain/views";
import { shardDatabases, shardName, type Env } from "../env";
import { AgentStorage } from "./agent-storage";
import { metering } from "../d1-meter";

export interface ReportInput extends Omit<Report, "evidenceFactor"> {
  idempotency?: Idempotency;
  /** A receipt the agent signed for the reporter (compact JWS), if the report carries one. */
  receipt?: string;
}

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

interface PendingReport {
  input: ReportInput;
  resolve: (outcome: Result<TransactionRecorded>) => void;
}

/** At most this many queued reports share one commit. */
const MAX_GROUP = 25;
const DAY_MS = 86_400_000;
/** A shard batch that failed is retried by the alarm after this long (and by the next change). */
const RETRY_MS = 5_000;

type Bookmarks = Record<string, string>;

/**
 * One object per agent (named by its SID): every change to the agent (its score, configuration,
 * owner, status and identity level) passes through here, one at a time.
 *
 * The agent's working state lives in this object's own SQLite storage (src/durable/agent-storage.ts):
 * its record and evidence, report times for damping, idempotency records, challenge tokens, and a
 * journal of the writes its shard has not applied yet. A change is one transaction there (the new
 * record and its journal entries together), then one batch on the agent's shard that applies the
 * journal. Reports queued while a batch runs share the next commit and the next batch. A crash or a
 * failed batch after the commit loses nothing: the journal stays, and the next change, or the alarm a
 * few seconds later, applies it; its statements are idempotent, so nothing is applied twice.
 *
 * An object that finds its storage empty (an agent from before this storage, or after a move) rebuilds
 * its working state once by replaying the agent's history from its shard.
 */
export class AgentScorer extends DurableObject<Env> {
  private readonly store: AgentStorage;
  private tail: Promise<unknown> = Promise.resolve();
  /** The cached record; undefined until read from storage. */
  private record: AgentRecord | undefined;
  private recent = new Map<number, number[]>();
  private reports: PendingReport[] = [];
  private alarmAt: number | null | undefined;
  /**
   * Journal entries up to this id are on the shard; they are deleted with the next commit. After a
   * restart it is 0 and they are sent again once: their statements are idempotent.
   */
  private applied = 0;
  /** Outbox events up to this id were sent; deleted with the next commit. */
  private published = 0;
  /** Test hooks: a crash right after the commit, or a shard batch that fails, the next n times. */
  faults = { crashAfterCommit: 0, failShardBatch: 0, crashBeforePublish: 0 };
  /** Whether the last commit told score.changed: badges are purged with it (see faceMoved). */
  private crossed = false;
  /** The clock of alarms (tests move it). */
  clock: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, metering(env));
    this.store = new AgentStorage(ctx.storage);
    void ctx.blockConcurrencyWhile(async () => this.store.migrate());
  }

  register(ref: AgentRef, input: RegistrationInput): Promise<Result<Registration>> {
    return this.serial(async () => {
      if (this.store.record()) return refuse("already_registered");
      const record = newRecord(ref, input, input.now);
      const writes = [agentRow(record, input.now), configRow(record, 0, [], input.now)];
      const committed = this.commit(record, { shard: writes, at: input.now, also: () => this.store.setNotified({ composite: 500, recommendation: "review" }) });
      if (!committed) return refuse("write_failed");
      const bookmarks = await this.flush();
      const score = scoreOfRecord(record, input.now);
      return ok({ sid: record.sid, name: record.name, status: record.status, createdAt: record.createdAt, score, fingerprint: record.fingerprint }, bookmarks);
    });
  }

  reportTransaction(ref: AgentRef, input: ReportInput): Promise<Result<TransactionRecorded>> {
    return new Promise((resolve) => {
      this.reports.push({ input, resolve });
      // The first report of an empty queue schedules a drain; later ones join the same group.
      if (this.reports.length === 1) void this.serial(() => this.drainReports(ref));
    });
  }

  updateConfig(ref: AgentRef, input: ConfigInput): Promise<Result<ConfigUpdated>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      if (record.operatorId !== input.callerId) return refuse("forbidden");
      const replay = this.replayed<ConfigUpdated>(input.callerId, input.idempotency, input.now);
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
      const committed = this.commit(next, { shard: writes, at: input.now, also: () => this.keepAnswer(input.callerId, input.idempotency, result, input.now) });
      if (!committed) return refuse("write_failed");
      const bookmarks = await this.flush();
      return ok(result, bookmarks, this.faceMoved(record, next));
    });
  }

  /** An operator takes a self-registered agent with its claim token: the history is replayed with it as owner. */
  claim(ref: AgentRef, input: { operatorId: number; claimTokenHash: string; now: number }): Promise<Result<{ sid: string }>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      if (record.operatorId !== null) return refuse("already_claimed");
      if (!record.claimTokenHash || record.claimTokenHash !== input.claimTokenHash) return refuse("invalid_claim_token");
      const replayed = await this.replay(record, input.operatorId, input.now);
      if (!replayed) return refuse("write_failed");
      const next: AgentRecord = { ...record, operatorId: input.operatorId, claimTokenHash: null, evidence: replayed.evidence };
      const committed = this.commit(next, {
        shard: [agentRow(next, input.now)],
        control: [{ kind: "directoryOwner", sid: next.sid, operatorId: input.operatorId }],
        at: input.now,
        also: () => this.store.replaceRecent(replayed.recent),
      });
      if (!committed) return refuse("write_failed");
      this.recent = replayed.recent;
      const bookmarks = await this.flush();
      return ok({ sid: next.sid }, bookmarks, this.faceMoved(record, next));
    });
  }

  /** An admin's status change (a suspended agent accepts no transactions). */
  setStatus(ref: AgentRef, status: AgentStatus, now: number): Promise<Result<{ status: AgentStatus }>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      const next: AgentRecord = { ...record, status };
      const events = status === record.status ? [] : [{ type: "agent.status_changed" as const, data: { sid: next.sid, status, previous_status: record.status } }];
      if (!this.commit(next, { shard: [agentRow(next, now)], at: now, events })) return refuse("write_failed");
      return ok({ status }, await this.flush());
    });
  }

  /** Keeps a callback challenge token (hashed) for the owner to return within its lifetime. */
  addChallenge(ref: AgentRef, input: { tokenHash: string; expiresAt: number }): Promise<Result<null>> {
    return this.serial(async () => {
      if (!(await this.load(ref))) return refuse("not_found");
      this.store.addChallenge(input.tokenHash, input.expiresAt);
      return ok(null);
    });
  }

  /** A token whose delivery failed may have reached someone: it must never work. */
  voidChallenge(ref: AgentRef, tokenHash: string): Promise<void> {
    return this.serial(async () => {
      if (await this.load(ref)) this.store.voidChallenge(tokenHash);
    });
  }

  /** The owner returns a challenge token: consumed and the agent raised to level 1, or refused. */
  confirmIdentity(ref: AgentRef, input: { callerId: number; tokenHash: string; now: number }): Promise<Result<{ identityLevel: number }>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      if (record.operatorId !== input.callerId) return refuse("forbidden");
      const verified = { ...record, callbackVerified: true };
      const next: AgentRecord = { ...verified, identityLevel: identityLevelOf(verified) };
      let consumed = false;
      const committed = this.commit(next, {
        shard: [agentRow(next, input.now)],
        at: input.now,
        events: identityEvents(record, next),
        also: () => {
          consumed = this.store.consumeChallenge(input.tokenHash, input.now);
          // Nothing but the token's consumption may be stored when it fails: throwing rolls back.
          if (!consumed) throw new ChallengeRefused();
        },
      });
      if (!consumed) return refuse("invalid_challenge");
      if (!committed) return refuse("write_failed");
      return ok({ identityLevel: next.identityLevel }, await this.flush(), true);
    });
  }

  /** The owner registers keys (given as a JWK, or found in a key directory): at most 5 in all. */
  addKeys(
    ref: AgentRef,
    input: { callerId: number; keys: AgentKey[]; directoryUrl: string | null; now: number },
  ): Promise<Result<{ keys: AgentKey[]; identityKey: string | null }>> {
    return this.serial(async () => {
      const record = await this.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      const fresh = input.keys.filter((k) => !record.keys.some((have) => have.thumbprint === k.thumbprint));
      if (record.keys.length + fresh.length > MAX_AGENT_KEYS) return refuse("too_many_keys");
      const directories = input.directoryUrl ? { ...record.directories, [input.directoryUrl]: input.now } : record.directories;
      const next: AgentRecord = { ...record, keys: [...record.keys, ...fresh], directories };
      if (!this.commit(next, { shard: fresh.map((k) => keyAdded(next.sid, k)), at: input.now, events: fresh.length > 0 ? identityEvents(record, next, true) : [] })) {
        return refuse("write_failed");
      }
      const registered = input.keys.map((k) => next.keys.find((have) => have.thumbprint === k.thumbprint)!);
      // The proven key's thumbprint too: a key registered again may be it.
      return ok({ keys: registered, identityKey: next.identityKey }, await this.flush());
    });
  }

  listKeys(ref: AgentRef, callerId: number): Promise<Result<{ keys: AgentKey[]; identityKey: string | null }>> {
    return this.serial(async () => {
      const record = await this.owned(ref, callerId);
      if (!("sid" in record)) return record;
      return ok({ keys: record.keys, identityKey: record.identityKey });
    });
  }

  /** The owner removes a key; if it was the proven one, the agent drops to the level it still holds. */
  removeKey(ref: AgentRef, input: { callerId: number; thumbprint: string; now: number }): Promise<Result<{ identityLevel: number; identityKey: string | null }>> {
    return this.serial(async () => {
      const record = await this.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      if (!record.keys.some((k) => k.thumbprint === input.thumbprint)) return refuse("key_not_found");
      const next = this.withKeys(record, record.keys.filter((k) => k.thumbprint !== input.thumbprint));
      if (!this.commit(next, { shard: [keyRemoved(next.sid, input.thumbprint), agentRow(next, input.now)], at: input.now, events: identityEvents(record, next, true) })) {
        return refuse("write_failed");
      }
      return ok({ identityLevel: next.identityLevel, identityKey: next.identityKey }, await this.flush(), next.identityLevel !== record.identityLevel);
    });
  }

  /** A fresh nonce the agent must sign within its lifetime, once: nobody can borrow an old signature. */
  issueNonce(ref: AgentRef, input: { callerId: number; nonce: string; expiresAt: number; now: number }): Promise<Result<null>> {
    return this.serial(async () => {
      const record = await this.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      this.store.addNonce(input.nonce, input.expiresAt, input.now);
      return ok(null);
    });
  }

  /** A credential request's nonce, spent once: a replayed request is refused (invalid_nonce). */
  spendNonce(ref: AgentRef, input: { nonce: string; expiresAt: number; now: number }): Promise<Result<null>> {
    return this.serial(async () => {
      if (!(await this.load(ref))) return refuse("not_found");
      return this.store.spendNonce(input.nonce, input.expiresAt, input.now) ? ok(null) : refuse("invalid_nonce");
    });
  }

  /** What a signature proof is checked against: the keys, and when each key directory was fetched. */
  signatureKeys(ref: AgentRef): Promise<Result<{ keys: AgentKey[]; directories: Record<string, number> }>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      return ok({ keys: record.keys, directories: record.directories });
    });
  }

  /** A key directory fetched again: its keys replace the ones it gave before (a key it dropped goes). */
  refreshDirectory(ref: AgentRef, input: { url: string; keys: AgentKey[]; now: number }): Promise<Result<null>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      if (!(input.url in record.directories)) return ok(null);
      const others = record.keys.filter((k) => k.directoryUrl !== input.url);
      const kept = input.keys.filter((k) => !others.some((o) => o.thumbprint === k.thumbprint)).slice(0, MAX_AGENT_KEYS - others.length);
      const next = { ...this.withKeys(record, [...others, ...kept]), directories: { ...record.directories, [input.url]: input.now } };
      const before = new Set(record.keys.map((k) => k.thumbprint));
      const after = new Set(next.keys.map((k) => k.thumbprint));
      const writes = [
        ...record.keys.filter((k) => !after.has(k.thumbprint)).map((k) => keyRemoved(next.sid, k.thumbprint)),
        ...next.keys.filter((k) => !before.has(k.thumbprint)).map((k) => keyAdded(next.sid, k)),
        agentRow(next, input.now),
      ];
      const changed = writes.length > 1;
      if (!this.commit(next, { shard: writes, at: input.now, events: changed ? identityEvents(record, next, true) : [] })) return refuse("write_failed");
      return ok(null, await this.flush(), next.identityLevel !== record.identityLevel);
    });
  }

  /**
   * A verified signature over the agent's own challenge: the nonce is consumed (it never works
   * twice, whatever happens next) and, if it was issued, unexpired and the key is still registered,
   * the agent is at identity level 2 with that key.
   */
  proveSignature(ref: AgentRef, input: { nonce: string; thumbprint: string; now: number }): Promise<Result<{ identityLevel: number; identityKey: string }>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      const nonceOk = this.store.consumeNonce(input.nonce, input.now);
      if (!nonceOk) return refuse("invalid_nonce");
      if (!record.keys.some((k) => k.thumbprint === input.thumbprint)) return refuse("key_not_registered");
      const proven = { ...record, identityKey: input.thumbprint };
      const next: AgentRecord = { ...proven, identityLevel: identityLevelOf(proven) };
      if (!this.commit(next, { shard: [agentRow(next, input.now)], at: input.now, events: identityEvents(record, next) })) return refuse("write_failed");
      return ok({ identityLevel: next.identityLevel, identityKey: input.thumbprint }, await this.flush(), next.identityLevel !== record.identityLevel);
    });
  }

  /**
   * The owner disputes one of its agent's reports, within 90 days of it: one dispute per report,
   * ever, and at most 5 open at once. The report keeps counting, marked disputed.
   */
  openDispute(ref: AgentRef, input: { callerId: number; transactionId: number; reason: string; statement: string | null; now: number }): Promise<Result<Dispute>> {
    return this.serial(async () => {
      const record = await this.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      const report = await findTransaction(this.shard(record.shard).withSession("first-primary"), input.transactionId);
      if (!report || report.sid !== record.sid) return refuse("transaction_not_found");
      if (this.store.dispute(input.transactionId)) return refuse("already_disputed");
      // A rebuilt storage holds only unresolved disputes: a resolved one is in the control database.
      if (await getDispute(this.env.DB.withSession("first-primary"), input.transactionId)) return refuse("already_disputed");
      if (input.now - Date.parse(report.createdAt) > DISPUTE_WINDOW_MS) return refuse("dispute_window_closed");
      if (this.store.disputes().filter((d) => d.status !== "resolved").length >= MAX_OPEN_DISPUTES) return refuse("too_many_disputes");
      const dispute: Dispute = {
        id: report.id,
        sid: record.sid,
        ownerOperatorId: input.callerId,
        reporterOperatorId: report.reporterOperatorId,
        status: "open",
        reason: input.reason,
        statement: input.statement,
        openedAt: new Date(input.now).toISOString(),
        respondBy: new Date(input.now + RESPOND_WITHIN_MS).toISOString(),
        resolvedAt: null,
        outcome: null,
        resolvedBy: null,
        reporterNote: null,
        adminNote: null,
      };
      const committed = this.commit(record, {
        shard: [{ kind: "transactionStatus", sid: record.sid, id: report.id, status: "disputed" }],
        control: [{ kind: "dispute", dispute }],
        events: [disputeEvent("dispute.opened", dispute)],
        at: input.now,
        also: () => this.store.saveDispute(dispute),
      });
      if (!committed) return refuse("write_failed");
      await this.scheduleAlarm(Date.parse(dispute.respondBy));
      return ok(dispute, await this.flush());
    });
  }

  /** The reporter answers within 14 days: it stands by its report (kept), or withdraws it. */
  answerDispute(ref: AgentRef, input: { callerId: number; disputeId: number; stand: boolean; note: string | null; now: number }): Promise<Result<Dispute>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      const dispute = this.store.dispute(input.disputeId);
      if (!dispute || dispute.reporterOperatorId !== input.callerId) return refuse("dispute_not_found");
      if (dispute.status === "resolved") return refuse("dispute_resolved");
      if (dispute.status === "escalated" || input.now >= Date.parse(dispute.respondBy)) return refuse("response_window_closed");
      const answered = { ...dispute, reporterNote: input.note };
      return this.resolve(record, answered, input.stand ? "kept" : "withdrawn", "reporter", input.now, [disputeEvent("dispute.answered", answered)]);
    });
  }

  /** An admin decides a dispute the reporter let lapse: the report withdrawn, or kept. */
  decideDispute(ref: AgentRef, input: { disputeId: number; outcome: "withdraw" | "keep"; note: string | null; now: number }): Promise<Result<Dispute>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      const dispute = this.store.dispute(input.disputeId);
      if (!dispute) return refuse("dispute_not_found");
      if (dispute.status === "resolved") return refuse("dispute_resolved");
      if (dispute.status !== "escalated") return refuse("dispute_not_escalated");
      return this.resolve(record, { ...dispute, adminNote: input.note }, input.outcome === "withdraw" ? "withdrawn" : "kept", "admin", input.now, []);
    });
  }

  /**
   * Resolves a dispute. A withdrawn report leaves the agent's evidence exactly as if it had never
   * been sent: the history is replayed without it (with the journal applied first, so the shard
   * has all of it). The withdrawal counts toward the reporter's penalty.
   */
  private async resolve(
    record: AgentRecord,
    dispute: Dispute,
    outcome: "withdrawn" | "kept",
    resolvedBy: "reporter" | "admin",
    now: number,
    events: EventDraft[],
  ): Promise<Result<Dispute>> {
    const resolved: Dispute = { ...dispute, status: "resolved", outcome, resolvedBy, resolvedAt: new Date(now).toISOString() };
    let next = record;
    let recent: Map<number, number[]> | null = null;
    const shard: ShardWrite[] = [{ kind: "transactionStatus", sid: record.sid, id: dispute.id, status: outcome === "withdrawn" ? "withdrawn" : "active" }];
    const control: ControlWrite[] = [{ kind: "dispute", dispute: resolved }];
    if (outcome === "withdrawn") {
      if ((await this.flush()) === null) return refuse("write_failed");
      const session = this.shard(record.shard).withSession("first-primary");
      const [history, report] = await Promise.all([readHistory(session, record.sid), findTransaction(session, dispute.id)]);
      const replayed = replayHistory(
        history.filter((h) => h.kind !== "report" || h.id !== dispute.id),
        record.operatorId,
        Date.parse(record.createdAt),
        now,
      );
      const outcomes = { ...record.outcomes };
      if (report && outcomes[report.outcome]) outcomes[report.outcome] -= 1;
      // The withdrawal is an event of the history too: the score it left behind is recorded.
      next = { ...record, evidence: replayed.evidence, outcomes, seq: record.seq + 1 };
      recent = replayed.recent;
      shard.push(agentRow(next, now), scoreEventRow(next.sid, next.seq, scoreEvent.withdrawal, scoreOfRecord(next, now), now, dispute.id));
      control.push({ kind: "withdrawal", operatorId: dispute.reporterOperatorId, transactionId: dispute.id, at: resolved.resolvedAt! });
    }
    const committed = this.commit(next, {
      shard,
      control,
      events: [...events, disputeEvent("dispute.resolved", resolved)],
      at: now,
      also: () => {
        this.store.saveDispute(resolved);
        if (recent) this.store.replaceRecent(recent);
      },
    });
    if (!committed) return refuse("write_failed");
    if (recent) this.recent = recent;
    const bookmarks = await this.flush();
    if (outcome === "withdrawn") await this.announcePenaltyFacts(dispute.reporterOperatorId);
    return ok(resolved, bookmarks, this.faceMoved(record, next));
  }

  /** The reporter's key facts changed (penalty): every isolate reloads them before its next report. */
  private async announcePenaltyFacts(operatorId: number): Promise<void> {
    try {
      const row = await this.env.DB.withSession("first-primary").prepare("SELECT auth_epoch FROM operators WHERE id = ?").bind(operatorId).first<{ auth_epoch: number }>();
      if (row) await this.env.RATE_LIMITER.getByName(`operator:${operatorId}`).raiseEpoch(row.auth_epoch);
    } catch (err) {
      // Cached facts live at most 5 minutes: the penalty applies then at the latest.
      log("error", "penalty not announced", { operatorId, error: String(err) });
    }
  }

  /**
   * The agent's status and the recommendation its row shows, with where its events stand: the
   * starting point of its entry in a status list (src/durable/status-list.ts), which its later
   * events then keep current.
   */
  statusFacts(ref: AgentRef): Promise<Result<{ status: AgentStatus; recommendation: string; epoch: string; n: number }>> {
    return this.serial(async () => {
      const record = await this.load(ref);
      if (!record) return refuse("not_found");
      const recommendation = this.store.shown()?.recommendation ?? scoreOfRecord(record, this.clock()).recommendation;
      return ok({ status: record.status, recommendation, ...this.store.eventPosition() });
    });
  }

  /**
   * Brings the agent's row up to date: applies journal entries a failed batch left, and moves a
   * pre-sharding agent to the current scoring model. Readers call it when the row is missing or old.
   */
  sync(ref: AgentRef): Promise<Result<null>> {
    return this.serial(async () => ((await this.load(ref)) ? ok(null, await this.flush()) : refuse("not_found")));
  }

  /** The agent's working state for tests and operators: the record, and the shard writes not applied yet. */
  inspect(): Promise<{ record: AgentRecord | null; pending: number }> {
    return this.serial(async () => ({ record: this.store.record(), pending: this.store.pending(this.applied).length }));
  }

  /**
   * The alarm applies journal entries a failed batch left behind, and keeps the agent's row current
   * as time alone moves its score (forgetting, the 90-day reporter window): daily while it holds
   * evidence, and whenever its public face or confidence would differ from what its row shows.
   */
  override async alarm(): Promise<void> {
    this.alarmAt = null;
    await this.serial(async () => {
      const record = this.record ?? this.store.record();
      if (!record) return;
      // A cold object: the report times for damping come with the record, as load() takes them.
      if (!this.record) this.recent = this.store.recentReports();
      this.record = record;
      const now = this.clock();
      this.store.forgetExpired(now);
      // Disputes the reporter let lapse go to the admins; the report keeps counting until they decide.
      const lapsed = this.store.disputes().filter((d) => d.status === "open" && Date.parse(d.respondBy) <= now);
      if (lapsed.length > 0) {
        const escalated = lapsed.map((d): Dispute => ({ ...d, status: "escalated" }));
        this.commit(record, {
          at: now,
          control: escalated.map((dispute) => ({ kind: "dispute" as const, dispute })),
          also: () => escalated.forEach((d) => this.store.saveDispute(d)),
        });
      }
      const shown = this.store.shown();
      const score = scoreOfRecord(record, now);
      if (!shown || shown.composite !== score.composite || shown.confidence !== score.confidence || shown.recommendation !== score.recommendation) {
        this.commit(record, { shard: [agentRow(record, now)], at: now });
      }
      if ((await this.flush()) !== null) {
        // The object may be evicted before its next change: drop what the shard and the queue now have.
        this.store.applied(this.applied);
        await this.scheduleRefresh(record);
      }
    });
  }

  /** The record when the caller owns the agent, else the refusal. */
  private async owned(ref: AgentRef, callerId: number): Promise<AgentRecord | { ok: false; refusal: Refusal }> {
    const record = await this.load(ref);
    if (!record) return refuse("not_found");
    if (record.operatorId !== callerId) return refuse("forbidden");
    return record;
  }

  /** The record with these keys; a proven key no longer among them takes level 2 away. */
  private withKeys(record: AgentRecord, keys: AgentKey[]): AgentRecord {
    const identityKey = record.identityKey && keys.some((k) => k.thumbprint === record.identityKey) ? record.identityKey : null;
    const next = { ...record, keys, identityKey };
    return { ...next, identityLevel: identityLevelOf(next) };
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async load(ref: AgentRef): Promise<AgentRecord | null> {
    if (this.record) return this.record;
    const stored = this.store.record();
    if (stored) {
      this.record = stored;
      this.recent = this.store.recentReports();
      return stored;
    }
    return this.rebuild(ref);
  }

  /**
   * Empty storage: the agent's row and history on its shard are the truth. Its history is replayed
   * under the current scoring model, and the result becomes this object's working state. Its disputes
   * not yet resolved come back from the control database, with the alarm at the first open deadline.
   */
  private async rebuild(ref: AgentRef): Promise<AgentRecord | null> {
    const shard = this.shard(ref.shard);
    const row = await readAgentRow(shard, ref.sid);
    if (!row) return null;
    const now = Date.now();
    // The disputes still to decide are in the control database: this storage decides them again.
    const [history, keys, disputes] = await Promise.all([
      readHistory(shard, ref.sid),
      readKeys(shard, ref.sid),
      unresolvedDisputes(this.env.DB.withSession("first-primary"), ref.sid),
    ]);
    const replayed = replayHistory(history, row.operatorId, Date.parse(row.createdAt), now);
    const record: AgentRecord = {
      ...ref,
      operatorId: row.operatorId,
      name: row.name,
      description: row.description,
      status: row.status,
      config: configurationOf(row),
      fingerprint: row.fingerprint,
      configVersion: row.configVersion,
      lastConfigChangeAt: row.lastConfigChangeAt,
      identityLevel: row.identityLevel,
      callbackVerified: row.callbackVerified,
      identityKey: row.identityKey,
      keys,
      directories: {},
      claimTokenHash: row.claimTokenHash,
      evidence: replayed.evidence,
      outcomes: JSON.parse(row.outcomeCounts) as Record<string, number>,
      seq: row.seq,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
    // Written back at once: the row now carries the current model's evidence. Not stored, it must not
    // be used either: a later commit would store the record without the disputes and report times.
    const stored = this.commit(record, {
      shard: [agentRow(record, now)],
      at: now,
      also: () => {
        this.store.replaceRecent(replayed.recent);
        for (const d of disputes) this.store.saveDispute(d);
      },
    });
    if (!stored) throw new Error(`the rebuilt state of ${ref.sid} could not be stored`);
    this.recent = replayed.recent;
    // An open dispute escalates at its deadline, as when it was opened.
    const deadlines = disputes.filter((d) => d.status === "open").map((d) => Date.parse(d.respondBy));
    if (deadlines.length > 0) await this.scheduleAlarm(Math.min(...deadlines));
    return record;
  }

  /** The agent's evidence replayed from its complete history (the journal applied first), with `ownerId` as owner. */
  private async replay(record: AgentRecord, ownerId: number | null, now: number): Promise<{ evidence: AgentEvidence; recent: Map<number, number[]> } | null> {
    if ((await this.flush()) === null) return null;
    const history = await readHistory(this.shard(record.shard).withSession("first-primary"), record.sid);
    return replayHistory(history, ownerId, Date.parse(record.createdAt), now);
  }

  /**
   * Group commit: the reports queued while the previous change was being written are applied in
   * order, in memory, committed in one storage transaction and written in one shard batch (each keeps
   * its own transaction row, score event and idempotency record).
   */
  private async drainReports(ref: AgentRef): Promise<void> {
    const group = this.reports.splice(0, MAX_GROUP);
    if (this.reports.length > 0) void this.serial(() => this.drainReports(ref));
    try {
      await this.writeReports(ref, group);
    } catch (err) {
      // Storage may or may not hold the group: a repeat with the same Idempotency-Key finds out.
      log("error", "report group interrupted", { sid: ref.sid, error: String(err) });
      this.forget();
      for (const report of group) report.resolve(refuse("interrupted"));
    }
  }

  private async writeReports(ref: AgentRef, group: PendingReport[]): Promise<void> {
    const record = await this.load(ref);
    if (!record || record.status === "suspended") {
      for (const report of group) report.resolve(refuse(record ? "suspended" : "not_found"));
      return;
    }
    // Receipts are checked first (their signatures need no order); single use of their jti is
    // decided in order below, against the stored ones and those earlier in the group.
    const receipts = await Promise.all(
      group.map((p) => (p.input.receipt === undefined ? null : checkReceipt(p.input.receipt, { sid: record.sid, reporter: p.input.reporter, keys: record.keys, now: p.input.at }))),
    );
    // Receipt ids credited in this group, with when each may be forgotten.
    const jtis = new Map<string, number>();
    let current = record;
    const writes: ShardWrite[] = [];
    const times: { reporter: number; at: number }[] = [];
    const answers: { operatorId: number; idempotency: Idempotency; result: TransactionRecorded; at: number }[] = [];
    // Each report's answer: settled now (a replay or a refusal), or applied and answered after the batch.
    const settled: { report: PendingReport; answer: Result<TransactionRecorded> | { applied: TransactionRecorded } }[] = [];
    const inGroup = new Map<string, { requestHash: string; result: TransactionRecorded }>();

    for (const [i, report] of group.entries()) {
      const { input } = report;
      const idem = input.idempotency;
      const groupKey = idem && `${input.reporter}\n${idem.key}`;
      const prior = groupKey ? (inGroup.get(groupKey) ?? this.store.answer(input.reporter, idem!.key, input.at)) : null;
      if (prior) {
        settled.push({ report, answer: prior.requestHash === idem!.requestHash ? ok(prior.result as TransactionRecorded) : refuse("idempotency_mismatch") });
        continue;
      }
      if (current.seq + 1 >= SEQUENCE_SPACE) {
        settled.push({ report, answer: refuse("history_full") });
        continue;
      }
      const since = input.at - MODEL.dampingWindowMs;
      const earlier = this.recentOf(input.reporter, times).filter((t) => t > since).length;
      let receipt = receipts[i];
      if (receipt?.accepted && (jtis.has(receipt.jti) || this.store.seenReceipt(receipt.jti))) receipt = { accepted: false, reason: "reused" };
      if (receipt?.accepted) jtis.set(receipt.jti, receipt.forgetAt);
      const applied = applyReportTo(current, { ...input, evidenceFactor: evidenceFactor(receipt?.accepted === true) }, earlier);
      current = applied.record;
      const { recorded } = applied;
      writes.push(
        transactionRow(current.sid, recorded, receipt?.accepted === true),
        scoreEventRow(current.sid, recorded.seq, scoreEvent.transaction(recorded.outcome), applied.score, recorded.at, recorded.id),
      );
      times.push({ reporter: input.reporter, at: input.at });
      const result: TransactionRecorded = {
        transactionId: recorded.id,
        score: applied.score,
        ...(receipt ? { receipt: receipt.accepted ? { accepted: true } : { accepted: false, reason: receipt.reason } } : {}),
      };
      if (idem) {
        answers.push({ operatorId: input.reporter, idempotency: idem, result, at: input.at });
        inGroup.set(groupKey!, { requestHash: idem.requestHash, result });
      }
      settled.push({ report, answer: { applied: result } });
    }

    const last = group[group.length - 1].input.at;
    if (times.length > 0) {
      writes.push(scoreColumns(current, last));
      const committed = this.commit(current, {
        shard: writes,
        at: last,
        also: () => {
          this.store.rememberReports(times, last);
          for (const [jti, forgetAt] of jtis) this.store.keepReceipt(jti, last, forgetAt);
          for (const a of answers) this.store.keepAnswer(a.operatorId, a.idempotency.key, a.idempotency.requestHash, a.result, a.at);
        },
      });
      if (!committed) {
        for (const report of group) report.resolve(refuse("write_failed"));
        return;
      }
      for (const t of times) this.recent.set(t.reporter, [...(this.recent.get(t.reporter) ?? []).filter((x) => x > last - 2 * MODEL.dampingWindowMs), t.at]);
    }
    const bookmarks = times.length > 0 ? await this.flush() : {};
    const faceChanged = times.length > 0 && this.faceMoved(record, current);
    for (const { report, answer } of settled) report.resolve("applied" in answer ? ok(answer.applied, bookmarks, faceChanged) : answer);
  }

  /** Report times of a reporter: stored ones and those of the group being applied. */
  private recentOf(reporter: number, group: { reporter: number; at: number }[]): number[] {
    return [...(this.recent.get(reporter) ?? []), ...group.filter((t) => t.reporter === reporter).map((t) => t.at)];
  }

  private replayed<T>(operatorId: number, idempotency: Idempotency | undefined, now: number): Result<T> | null {
    if (!idempotency) return null;
    const prior = this.store.answer(operatorId, idempotency.key, now);
    if (!prior) return null;
    return prior.requestHash === idempotency.requestHash ? ok(prior.result as T) : refuse("idempotency_mismatch");
  }

  private keepAnswer(operatorId: number, idempotency: Idempotency | undefined, result: unknown, now: number) {
    if (idempotency) this.store.keepAnswer(operatorId, idempotency.key, idempotency.requestHash, result, now);
  }

  /**
   * Stores the new record, its journal entries and its events in one storage transaction (with
   * `also`, other storage of the same change). When what the row shows crossed the notification
   * threshold, a score.changed event joins them. False when the transaction failed: nothing was stored.
   */
  private commit(record: AgentRecord, change: Change): boolean {
    const shard = change.shard ?? [];
    this.crossed = false;
    let crossed = false;
    try {
      this.store.atomically(() => {
        // Idempotency records and receipt ids past their time go, at most once an hour.
        this.store.forgetExpiredHourly(change.at);
        change.also?.();
        const last = shard.findLast((w) => w.kind === "agent" || w.kind === "score");
        const row = last?.kind === "agent" ? last.row : last?.kind === "score" ? last.columns : null;
        const shown = row && { composite: row.composite!, confidence: row.confidence!, recommendation: row.recommendation! };
        this.store.saveRecord(record, shown);
        this.store.journal(shard, change.control ?? []);
        const events = [...(change.events ?? [])];
        const notified = this.store.notified();
        if (shown && notified && scoreCrossed(notified, shown)) {
          events.push({ type: "score.changed", data: scoreChangedData(record.sid, scoreOfRecord(record, change.at), notified, record.identityLevel) });
          this.store.setNotified({ composite: shown.composite, recommendation: shown.recommendation });
          crossed = true;
        } else if (shown && !notified) {
          // An agent from before notifications: what it shows now is where they start.
          this.store.setNotified({ composite: shown.composite, recommendation: shown.recommendation });
        }
        const timestamp = new Date(change.at).toISOString();
        for (const e of events) this.store.addEvent({ ...e, sid: record.sid, ownerId: record.operatorId, timestamp });
        // Journal entries and events already out go in the same transaction, not in one of their own.
        if (this.applied > 0) this.store.applied(this.applied);
      });
    } catch (err) {
      // A refused challenge rolled back a change that never happened: memory is still right.
      if (err instanceof ChallengeRefused) return false;
      log("error", "agent storage commit failed", { sid: record.sid, error: String(err) });
      this.forget();
      return false;
    }
    this.record = record;
    this.crossed = crossed;
    if (this.faults.crashAfterCommit > 0) {
      this.faults.crashAfterCommit--;
      // What a crash leaves: storage as committed, nothing in memory, no batch sent.
      this.forget();
      throw new Error("injected crash after commit");
    }
    return true;
  }

  /**
   * Applies every journal entry to the shard (and the control database) in one batch each, oldest
   * first, then drops them. On failure they stay for the next change or the alarm. Returns the
   * bookmarks of the batches, or null when one failed.
   */
  private async flush(): Promise<Bookmarks | null> {
    const record = this.record ?? this.store.record();
    if (!record) return {};
    const pending = this.store.pending(this.applied);
    if (pending.length === 0) {
      await this.publish(record);
      return {};
    }
    const bookmarks: Bookmarks = {};
    try {
      if (this.faults.failShardBatch > 0) {
        this.faults.failShardBatch--;
        throw new Error("injected shard batch failure");
      }
      const shardWrites = pending.flatMap((j) => j.shard);
      const controlWrites = pending.flatMap((j) => j.control);
      if (shardWrites.length > 0) {
        const session = this.shard(record.shard).withSession("first-primary");
        await session.batch(shardStatements(session, shardWrites));
        bookmarks[shardName(record.shard)] = session.getBookmark() ?? "";
      }
      if (controlWrites.length > 0) {
        const session = this.env.DB.withSession("first-primary");
        await session.batch(controlStatements(session, controlWrites));
        bookmarks.DB = session.getBookmark() ?? "";
      }
    } catch (err) {
      log("error", "shard batch failed; the journal keeps it", { sid: record.sid, pending: pending.length, error: String(err) });
      await this.scheduleAlarm(Date.now() + RETRY_MS);
      return null;
    }
    this.applied = pending[pending.length - 1].id;
    await this.publish(record);
    await this.scheduleRefresh(record);
    return Object.fromEntries(Object.entries(bookmarks).filter(([, v]) => v !== ""));
  }

  /**
   * Sends the outbox's events to the events queue, after the shard has the change they report. An
   * event committed but not sent (a crash, a queue that failed) goes with the next change or the
   * alarm: events go out at least once, each with its stable id.
   */
  private async publish(record: AgentRecord): Promise<void> {
    const events = this.store.outbox(this.published);
    if (events.length === 0 || !this.env.EVENTS) return;
    if (this.faults.crashBeforePublish > 0) {
      this.faults.crashBeforePublish--;
      this.forget();
      throw new Error("injected crash before publishing");
    }
    try {
      await this.env.EVENTS.sendBatch(events.map((e) => ({ body: e.event, contentType: "json" as const })));
    } catch (err) {
      log("error", "events not sent; the outbox keeps them", { sid: record.sid, events: events.length, error: String(err) });
      await this.scheduleAlarm(Date.now() + RETRY_MS);
      return;
    }
    this.published = events[events.length - 1].id;
    // Gone from storage at once: an object evicted before its next change would otherwise send them
    // again, after their deliveries' records (which dedupe repeats) may have been pruned.
    this.store.published(this.published);
  }

  /**
   * While the agent holds evidence, the alarm comes when time alone next changes its confidence or
   * recommendation, and at least daily (the row's composite and the operator sums move too).
   */
  private async scheduleRefresh(record: AgentRecord): Promise<void> {
    if (Object.keys(record.evidence.reporters).length > 0) await this.scheduleAlarm(nextFaceChange(record, this.clock(), DAY_MS));
    const deadlines = this.store.disputes().filter((d) => d.status === "open").map((d) => Date.parse(d.respondBy));
    if (deadlines.length > 0) await this.scheduleAlarm(Math.min(...deadlines));
  }

  /** Moves the alarm earlier when needed; never later (a pending retry keeps its time). */
  private async scheduleAlarm(at: number): Promise<void> {
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    await this.ctx.storage.setAlarm(at);
  }

  private shard(n: number): D1Database {
    const shard = shardDatabases(this.env)[n];
    if (!shard) throw new Error(`no shard ${n}`);
    return shard;
  }

  /**
   * Whether the agent's cached badges should go: when the change told score.changed (its
   * recommendation changed, or its composite moved 25 points or more since the last one) or moved
   * its identity level. Smaller moves of the number show once the cached badge expires (5 minutes,
   * the same as any browser or CDN that holds it): purging the edge cache on every report cost the
   * report path two cache round trips for a freshness no client is promised.
   */
  private faceMoved(before: AgentRecord, after: AgentRecord): boolean {
    return this.crossed || before.identityLevel !== after.identityLevel;
  }

  /** Drops what memory holds; the next call reads storage again. */
  private forget() {
    this.record = undefined;
    this.recent = new Map();
    this.store.forget();
  }
}

class ChallengeRefused extends Error {}

/** One change to store: its shard and control writes, its events, other storage, and when it happened. */
interface Change {
  shard?: ShardWrite[];
  control?: ControlWrite[];
  events?: EventDraft[];
  also?: () => void;
  at: number;
}

type EventDraft = Pick<AgentEvent, "type" | "data" | "counterpartId">;

/** A dispute event: both sides get it (the reporter as the counterpart), neither learns more than its own. */
const disputeEvent = (type: "dispute.opened" | "dispute.answered" | "dispute.resolved", d: Dispute): EventDraft => ({
  type,
  data: disputeEventData(d),
  counterpartId: d.reporterOperatorId,
});

/** agent.identity_changed, when the level or (with `keysChanged`) the keys moved. */
function identityEvents(before: AgentRecord, after: AgentRecord, keysChanged = false): EventDraft[] {
  if (!keysChanged && before.identityLevel === after.identityLevel && before.identityKey === after.identityKey) return [];
  return [
    {
      type: "agent.identity_changed",
      data: {
        sid: after.sid,
        identity_level: after.identityLevel,
        identity_label: IDENTITY_LABELS[after.identityLevel as 0 | 1 | 2],
        identity_key: after.identityKey,
        previous_identity_level: before.identityLevel,
        keys: after.keys.map((k) => k.thumbprint),
      },
    },
  ];
}

const ok = <T>(result: T, bookmarks: Bookmarks | null = {}, faceChanged = false): Result<T> => ({
  ok: true,
  result,
  bookmarks: bookmarks ?? {},
  faceChanged,
});
const refuse = (refusal: Refusal): { ok: false; refusal: Refusal } => ({ ok: false, refusal });

function log(level: "error" | "info", message: string, fields: Record<string, unknown>) {
  console[level](JSON.stringify({ level, message, ...fields }));
}
