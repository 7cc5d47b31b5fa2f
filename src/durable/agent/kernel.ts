// The agent object's kernel: one change at a time, the record in memory and in storage, each change
// stored in one storage transaction (commit) and then applied to the agent's shard and the control
// database in one batch each (flush), its events published after, and the alarm (an empty storage is
// rebuilt from the shard by ./rebuild). Its atomicity is reviewed here, in one place; feature modules
// (reports, profile, identity, disputes) decide what a change is and hand it to `commit`.

import { readEntries, whoOf } from "../../db/history";
import { agentRow, controlStatements, current, journaled, shardStatements } from "../../db/shard-writes";
import { modelOf, nextFaceChange, scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
import { replayOf } from "../../domain/replay";
import type { Entry } from "../../domain/entries";
import { scoreChangedData, scoreCrossed } from "../../domain/events";
import { meteredSql } from "../../d1-meter";
import { shardDatabases, shardName, type Env } from "../../env";
import { Chain, type EntryWrite } from "./chain";
import { Backoff, Handouts, log, refuse, Rollback, type AgentHost, type Bookmarks, type Change, type Deferred, type FaultPoint, type Feature, type Probes, type Refused, type Replayed } from "./host";
import { migrateChain } from "./legacy";
import { rebuild } from "./rebuild";
import { KernelStorage } from "./storage";
import { refreshCredibility, switchIfDue } from "./model";

const DAY_MS = 86_400_000;
/** The resolution of a face change's time: an alarm due within it also recomputes the next one. */
const MINUTE_MS = 60_000;

export class Kernel implements AgentHost {
  readonly store: KernelStorage;
  readonly chain: Chain;
  recent = new Map<number, number[]>();
  private tail: Promise<unknown> = Promise.resolve();
  /** The cached record; undefined until read from storage. */
  private record: AgentRecord | undefined;
  private alarmAt: number | null | undefined;
  /** Journal entries up to this id are on the shard (0 after a restart: sent again once, idempotently). */
  private applied = 0;
  /** The greatest journal id handed to a caller by `deferred` in this object's life: what an acknowledgement may name. */
  private handedOut = 0;
  /** The hand-outs awaiting an acknowledgement, and the alarm set for one that may never come (null: none). */
  private readonly handouts = new Handouts();
  private retryAt: number | null = null;
  /** Outbox events up to this id were sent. */
  private published = 0;
  /** Failed shard batches and queue sends in a row: the alarm's retry waits longer after each. */
  private readonly backoff: Backoff;
  /** Whether the last commit told score.changed: badges are purged with it (see faceMoved). */
  private crossed = false;

  private features: readonly Feature[] = [];

  constructor(
    private readonly ctx: DurableObjectState,
    readonly env: Env,
    private readonly probes: Probes,
  ) {
    this.store = new KernelStorage(ctx.storage, meteredSql(env, "do:AGENT storage", ctx.storage.sql));
    this.chain = new Chain(env, () => this.store.sql, this.store);
    this.backoff = new Backoff(this.store, "retry_failures");
  }

  /** Takes the feature modules (made with this kernel as their host) and creates every table. */
  start(features: readonly Feature[]): void {
    this.features = this.store.features = [this.chain, ...features];
    void this.ctx.blockConcurrencyWhile(async () => this.store.migrate());
  }

  serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The record, switched to scoring model version 3 first when its switch time has passed (./model). */
  async load(ref: AgentRef): Promise<AgentRecord | null> {
    const record = await this.loadStored(ref);
    if (!record || modelOf(record) === 3) return record;
    return switchIfDue(this, record, this.probes.now());
  }

  private async loadStored(ref: AgentRef): Promise<AgentRecord | null> {
    if (this.record) return this.record;
    const stored = this.store.record();
    if (!stored) return rebuild(this, this.features, ref, (record) => this.scheduleRefresh(record));
    // A record from before the chain, or whose move into it was interrupted: the move goes on first.
    if (stored.chainHash === undefined || stored.migrating) return migrateChain(this, { ...ref, ...stored, log: stored.log ?? ref.log }, [], 2);
    this.record = stored.log === undefined ? { ...stored, log: ref.log } : stored;
    this.recent = this.store.recentReports();
    return this.record;
  }

  async owned(ref: AgentRef, callerId: number): Promise<AgentRecord | Refused> {
    const record = await this.load(ref);
    if (!record) return refuse("not_found");
    if (record.operatorId !== callerId) return refuse("forbidden");
    return record;
  }

  /** The record as storage holds it, without a rebuild: null when there is none. */
  stored(): AgentRecord | null {
    return this.record ?? this.store.record();
  }

  /**
   * Stores the new record, its journal entries and its events (and `also`, other storage of the change) in one
   * storage transaction; a score.changed joins them when what the row shows crossed the notification threshold.
   * False when the transaction failed: nothing was stored.
   */
  commit(record: AgentRecord, change: Change): boolean {
    const shard = change.shard ?? [];
    this.crossed = false;
    let crossed = false;
    try {
      this.store.atomically(() => {
        this.store.forgetExpiredHourly(change.at);
        change.also?.();
        const last = shard.findLast((w) => w.kind === "agent" || w.kind === "score");
        const row = last?.kind === "agent" ? last.row : last?.kind === "score" ? last.columns : null;
        const shown = row && { composite: row.composite!, confidence: row.confidence!, recommendation: row.recommendation! };
        if (change.leaves) this.chain.keep(change.leaves);
        this.store.save(record, shown, journaled(shard), change.control ?? [], this.applied);
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
      });
    } catch (err) {
      // A refused change rolled back before anything happened: memory is still right.
      if (err instanceof Rollback) return false;
      log("error", "agent storage commit failed", { sid: record.sid, error: String(err) });
      this.forget();
      return false;
    }
    this.record = record;
    this.crossed = crossed;
    if (this.probes.fail("afterCommit")) {
      // What a crash leaves: storage as committed, nothing in memory, no batch sent.
      this.forget();
      throw new Error("injected crash after commit");
    }
    return true;
  }

  append(record: AgentRecord, writes: readonly EntryWrite[]) {
    return this.chain.append(record, writes);
  }

  /**
   * Applies every journal entry to the shard (and the control database), one batch each, oldest first. On failure
   * they stay for the next change or the alarm (later after each failure in a row): null. Else the bookmarks.
   */
  async flush(): Promise<Bookmarks | null> {
    const record = this.stored();
    if (!record) return {};
    const pending = this.store.pending(this.applied);
    if (pending.length === 0) {
      await this.publish(record);
      return {};
    }
    const bookmarks: Bookmarks = {};
    try {
      if (this.probes.fail("shardBatch")) throw new Error("injected shard batch failure");
      const shardWrites = current(pending.flatMap((j) => j.shard), record);
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
      await this.scheduleAlarm(Date.now() + this.backoff.failed(record.sid));
      return null;
    }
    this.backoff.succeeded();
    this.applied = pending[pending.length - 1].id;
    this.store.appliedRows(this.applied);
    this.handouts.settle(this.applied); // applied here: their acknowledgements are no longer awaited
    // A retry's alarm nothing waits for now would fire before the next hand-out's acknowledgement.
    const idle = this.retryAt !== null && this.alarmAt === this.retryAt;
    if (idle) this.retryAt = this.alarmAt = null;
    await this.publish(record);
    await this.scheduleRefresh(record);
    if (idle && this.alarmAt === null) await this.ctx.storage.deleteAlarm();
    return Object.fromEntries(Object.entries(bookmarks).filter(([, v]) => v !== ""));
  }

  /**
   * The journal's shard writes, for a caller that applies them in one batch with other agents' (a batch of
   * reports): they stay in the journal until `acknowledge`, or the alarm applies them (Handouts). Null when the
   * journal holds control writes: then this object flushes at once, as every other change does.
   */
  async deferred(): Promise<Deferred | null> {
    const pending = this.store.pending(this.applied);
    const record = this.stored()!;
    if (pending.length === 0) return { upTo: this.applied, shard: [] };
    if (pending.some((j) => j.control.length > 0)) {
      await this.flush();
      return null;
    }
    this.handedOut = pending[pending.length - 1].id;
    this.handouts.add(this.handedOut, Date.now());
    this.retryAt = this.handouts.deadline();
    await this.scheduleAlarm(this.retryAt!);
    const leaves = this.chain.handOut(record) ?? undefined;
    return { upTo: this.handedOut, shard: current(pending.flatMap((j) => j.shard), record), leaves };
  }

  /** The caller applied the journal up to `upTo` (or its batch failed: `failed`) and sent the leaves handed out, per `sent`. */
  acknowledge(upTo: number, sent?: { after: number; to: number }, failed = false): Promise<void> {
    return this.serial(async () => {
      const record = this.stored();
      if (!record) return;
      // An acknowledgement names only what this object handed out (one from before a restart could
      // name ids given since, which the caller never applied).
      const named = Math.min(upTo, this.handedOut);
      this.handouts.settle(named);
      // A failed batch, when something it held is still unapplied: the alarm applies the journal at the backoff's wait.
      if (failed) return named > this.applied ? this.scheduleAlarm(Date.now() + this.backoff.failed(record.sid)) : undefined;
      if (named > this.applied) this.backoff.succeeded(); // the caller's batch reached the shard
      this.applied = Math.max(this.applied, named);
      this.store.appliedRows(this.applied);
      if (sent && this.chain.sentBy(sent.after, sent.to)) await this.scheduleAlarm(this.chain.checkLater(this.probes.now()));
      await this.publish(record);
      // With nothing left for the shard or the queue (whose retry it also is) but what later hand-outs
      // cover, the retry's alarm (a full alarm's work, applying those twice) moves to the oldest's.
      const covered = this.handouts.covered();
      const moved = this.retryAt !== null && this.alarmAt === this.retryAt && this.store.pending(this.applied).every((j) => j.id <= covered) && this.store.outbox(this.published).length === 0;
      if (moved) [this.alarmAt, this.retryAt] = [null, this.handouts.deadline()];
      await this.scheduleRefresh(record);
      if (moved && this.retryAt !== null) await this.scheduleAlarm(this.retryAt);
      if (moved && this.alarmAt === null) await this.ctx.storage.deleteAlarm();
    });
  }

  /**
   * Sends the outbox's events to the events queue, after the shard has the change they report. One committed but
   * not sent (a crash, a queue that failed) goes with the next change or the alarm: at least once, by stable id.
   */
  private async publish(record: AgentRecord): Promise<void> {
    await this.publishEvents(record);
    // Leaves go to the log (./chain); the alarm checks on them and sends again what it lacks.
    if (await this.chain.publish(record)) await this.scheduleAlarm(this.chain.checkLater(this.probes.now()));
  }

  private async publishEvents(record: AgentRecord): Promise<void> {
    const events = this.store.outbox(this.published);
    if (events.length === 0 || !this.env.EVENTS) return;
    if (this.probes.fail("beforePublish")) {
      this.forget();
      throw new Error("injected crash before publishing");
    }
    try {
      await this.env.EVENTS.sendBatch(events.map((e) => ({ body: e.event, contentType: "json" as const })));
    } catch (err) {
      log("error", "events not sent; the outbox keeps them", { sid: record.sid, events: events.length, error: String(err) });
      await this.scheduleAlarm(Date.now() + this.backoff.failed(record.sid));
      return;
    }
    this.published = events[events.length - 1].id;
    this.backoff.succeeded();
    // Gone from storage at once: an object evicted before its next change would otherwise send them
    // again, after their deliveries' records (which dedupe repeats) may have been pruned.
    this.store.published(this.published);
  }

  /**
   * While the agent holds evidence, the alarm comes when time alone next changes its confidence or recommendation,
   * and at least daily (the row's composite and the operator sums move too); and at each feature's next deadline.
   */
  private async scheduleRefresh(record: AgentRecord): Promise<void> {
    const now = this.probes.now();
    for (const f of this.features) {
      const at = f.deadline?.();
      if (at != null) await this.scheduleAlarm(at);
    }
    // Scoring the day ahead costs as much as a report: an alarm due within the minute does it when it runs.
    const soon = this.alarmAt != null && this.alarmAt <= now + MINUTE_MS;
    if (!soon && Object.keys(record.evidence.reporters).length > 0) await this.scheduleAlarm(nextFaceChange(record, now, DAY_MS));
  }

  async scheduleAlarm(at: number): Promise<void> {
    if (this.alarmAt === undefined) this.alarmAt = await this.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= at) return;
    this.alarmAt = at;
    await this.ctx.storage.setAlarm(at);
  }

  shard(n: number): D1Database {
    const shard = shardDatabases(this.env)[n];
    if (!shard) throw new Error(`no shard ${n}`);
    return shard;
  }

  /**
   * Whether the agent's cached badges should go: the change told score.changed or moved the identity level. Smaller
   * moves show once a cached badge expires (5 minutes): purging on every report cost two cache round trips for a
   * freshness no client is promised.
   */
  faceMoved(before: AgentRecord, after: AgentRecord): boolean {
    return this.crossed || before.identityLevel !== after.identityLevel;
  }

  forget(): void {
    this.record = undefined;
    this.recent = new Map();
    this.store.forget();
  }

  async replay(record: AgentRecord, now: number, pending: readonly { entry: Entry; who: number | null }[] = [], version = modelOf(record)): Promise<Replayed | null> {
    if ((await this.flush()) === null) return null;
    const stored = await readEntries(this.shard(record.shard).withSession("first-primary"), record.sid);
    return replayOf([...stored.map((e) => ({ entry: e.entry, who: whoOf(e) })), ...pending], Date.parse(record.createdAt), now, version);
  }

  /** Drops the journal entries the shard has, with their clear text (after an erasure or a move). */
  dropApplied(): void {
    this.store.applied(this.applied);
  }

  /** Test and operator view: the record, and how many journal entries the shard still lacks. */
  inspect(): Promise<{ record: AgentRecord | null; pending: number }> {
    return this.serial(async () => ({ record: this.store.record(), pending: this.store.pending(this.applied).length }));
  }

  /**
   * The alarm applies journal entries a failed batch left behind, lets each feature do its timed work (disputes
   * escalate), and keeps the agent's row current as time alone moves its score (forgetting, the 90-day reporter
   * window): daily while it holds evidence, and when its face or confidence moves. Its housekeeping writes to the
   * object's own row are held and made one update at its end.
   */
  async alarm(): Promise<void> {
    this.alarmAt = null;
    this.retryAt = null;
    this.handouts.settle(this.handedOut); // this alarm applies them: none is awaited past it
    await this.serial(async () => {
      const stored = this.stored();
      if (!stored) return;
      // A cold object: the report times for damping come with the record, as load() takes them.
      if (!this.record) this.recent = this.store.recentReports();
      this.record = stored;
      const now = this.probes.now();
      // Decided before this alarm publishes anything: a new object life sends every waiting leaf again, and still asks.
      const check = this.chain.checkDue(now);
      // Taken now, or the flush below sets the alarm to its past time (put back if the alarm throws).
      if (check === true) this.chain.checking();
      this.store.holdRow();
      try {
        // The model: the switch when its time has passed, else the credibility in force brought up to date.
        const record = modelOf(stored) === 2 ? await switchIfDue(this, stored, now) : await refreshCredibility(this, stored, now);
        this.store.forgetExpiredHourly(now);
        this.store.forgetPastReports(now);
        for (const f of this.features) await f.alarm?.(record, now);
        const shown = this.store.shown();
        const score = scoreOfRecord(record, now);
        if (!shown || shown.composite !== score.composite || shown.confidence !== score.confidence || shown.recommendation !== score.recommendation) {
          this.commit(record, { shard: [agentRow(record, now)], at: now });
        }
        if ((await this.flush()) !== null) {
          // The object may be evicted before its next change: drop what the shard and the queue now have.
          this.store.applied(this.applied);
          // What this alarm's publish set is covered by the ask below.
          if (check === true) this.chain.checking();
          // A check not yet due is the chain's deadline: an earlier alarm (a batch's retry) replaced its own.
          await this.scheduleRefresh(record);
          if (check === true && (await this.chain.resend(record))) await this.scheduleAlarm(this.chain.checkLater(now));
        } else if (check === true) {
          this.chain.checkLater(now); // the shard failed before the log was asked: a minute on
        }
      } catch (err) {
        if (check === true) this.chain.checkLater(now);
        throw err;
      } finally {
        this.store.releaseRow();
      }
    });
  }

  /** Takes a record a migration built (it was committed): memory follows storage. */
  adopt(record: AgentRecord, recent: Map<number, number[]>): void {
    this.record = record;
    this.recent = recent;
  }

  /** The probes' clock (alarms, rebuilds), and whether a test asked a point to fail. */
  readonly now = (): number => this.probes.now();
  readonly failing = (point: FaultPoint): boolean => this.probes.fail(point);
}
