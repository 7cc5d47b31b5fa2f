// The agent object's kernel: it serialises the agent's changes, loads the agent from its shard once
// per object life, commits each group of queued changes as one D1 batch on the shard (group commit),
// and hands what they tell to the outbox. The shard is the record; the kernel keeps a cache of it and
// nothing durable of its own. What happens after a failed batch is decided here, in one place.

import { readRecord, RECORD_CONTRACT, type Loaded } from "../../db/agent-record";
import { PairCache } from "../../db/pairs";
import { findAgent } from "../../db/directory";
import type { AgentRef } from "../../domain/agent";
import type { Result } from "../../domain/results";
import { shardDatabases, type Env } from "../../env";
import { reporterCommitment } from "../../domain/entries";
import { commitGroup, isConstraintError, type Committed } from "./commit";
import { RecentWindow } from "../../db/recent-window";
import { Group, type PairSource, type Queued } from "./group";
import { log } from "../../log";
import { refuse, type AgentHost, type FaultPoint, type Job, type Probes } from "./host";
import { Outbox } from "./outbox";
import { Timers } from "./timers";

/** At most this many queued changes share one batch (a batch of 100 reports on one agent is one group). */
const MAX_GROUP = 100;

export class Kernel implements AgentHost {
  readonly outbox: Outbox;
  readonly timers: Timers;
  readonly recent = new RecentWindow();
  private tail: Promise<unknown> = Promise.resolve();
  private queue: Queued[] = [];
  /** The agent as the shard holds it: undefined until read in this object life, null for an agent not registered. */
  private loaded: Loaded | null | undefined;
  /** Where the agent lives, from the last call that named it (the alarm's agent). */
  ref: AgentRef | null = null;
  private commitments = new Map<number, Promise<string>>();
  private pairs = new PairCache();
  /** Runs before a contract-1 agent is first used (./sweep): its object's storage moves to the shard. */
  upgrade: ((loaded: Loaded) => Promise<Loaded>) | null = null;

  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Env,
    private readonly probes: Probes,
  ) {
    this.timers = new Timers(ctx.storage);
    this.outbox = new Outbox(this);
  }

  readonly now = (): number => this.probes.now();
  readonly failing = (point: FaultPoint): boolean => this.probes.fail(point);

  /** Runs `work` after everything queued before it, one at a time. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  change<T>(ref: AgentRef, job: Job<T>): Promise<Result<T>> {
    return new Promise((resolve) => {
      this.queue.push({ job: job as Job<unknown>, resolve: resolve as Queued["resolve"] });
      // The first job of an empty queue schedules a drain; later ones join its group or the next.
      if (this.queue.length === 1) void this.exclusive(() => this.drain(ref));
    });
  }

  shard(n: number): D1Database {
    const shard = shardDatabases(this.env)[n];
    if (!shard) throw new Error(`no shard ${n}`);
    return shard;
  }

  commitment(sid: string, operatorId: number): Promise<string> {
    let c = this.commitments.get(operatorId);
    if (!c) {
      const secret = this.env.REPORTER_KEY;
      if (!secret || secret.length < 16) return Promise.reject(new Error("REPORTER_KEY is not set: history entries cannot be written"));
      this.commitments.set(operatorId, (c = reporterCommitment(secret, sid, operatorId)));
    }
    return c;
  }

  /** The agent from its shard's primary, once per object life (and after any failed batch). */
  async read(ref: AgentRef): Promise<Loaded | null> {
    this.ref = ref;
    if (this.loaded !== undefined) return this.loaded;
    const d1 = this.shard(ref.shard).withSession("first-primary");
    let loaded = await readRecord(d1, ref);
    if (loaded && loaded.contract < RECORD_CONTRACT && this.upgrade) loaded = await this.upgrade(loaded);
    await this.recent.load(d1, ref.sid, loaded, this.now());
    if (loaded) this.outbox.loaded(loaded);
    this.loaded = loaded;
    return loaded;
  }

  /** The tests' view: the record as this object holds it (null: not registered), the row's cursor, what this life sent. */
  inspect(): Promise<{ record: Loaded["record"] | null; published: number; sent: number }> {
    return this.exclusive(async () => {
      const ref = this.ref ?? (await this.locate());
      const held = this.loaded ?? (ref && (await this.read(ref)));
      return { record: held?.record ?? null, published: held?.published ?? 0, sent: this.outbox.sentUpTo() };
    });
  }

  /** Where this object's agent lives, from the directory (a cold alarm's, or an inspection's). */
  async locate(): Promise<AgentRef | null> {
    const sid = this.ctx.id.name;
    const entry = sid ? await findAgent(this.env.DB.withSession("first-primary"), sid) : null;
    return entry ? { sid: entry.sid, num: entry.num, shard: entry.shard, log: entry.log } : null;
  }

  /** Drops the cache: the next job reads the shard again. */
  forget(): void {
    this.loaded = undefined;
    this.recent.forget();
    this.pairs = new PairCache();
  }

  /** Where a group reads the pairs it has not moved: this object life's cache, else the shard's primary. */
  private pairSource(ref: AgentRef): PairSource {
    const d1 = () => this.shard(ref.shard).withSession("first-primary");
    return { get: (keys) => this.pairs.get(d1(), ref.sid, keys), all: () => this.pairs.all(d1(), ref.sid) };
  }

  private async drain(ref: AgentRef): Promise<void> {
    // A job that replays the history goes alone: the shard must hold every change before it.
    let take = 1;
    if (!this.queue[0].job.alone) while (take < this.queue.length && take < MAX_GROUP && !this.queue[take].job.alone) take++;
    const jobs = this.queue.splice(0, take);
    if (this.queue.length > 0) void this.exclusive(() => this.drain(ref));
    await this.runGroup(ref, jobs, true);
  }

  /**
   * Runs the jobs against the cached record, in order, and commits what they change as one batch.
   * After a batch that failed: on a constraint (another instance of this object wrote the agent) the
   * jobs run again from the shard's primary, one batch each; on any other error the agent's row tells
   * whether the batch committed, else the jobs are answered 503 (a keyed repeat is safe).
   */
  private async runGroup(ref: AgentRef, jobs: Queued[], retry: boolean): Promise<void> {
    let group: Group;
    try {
      group = new Group(await this.read(ref), this.recent, this.pairSource(ref));
      for (const q of jobs) await group.run(q);
    } catch (err) {
      log("error", "agent change failed before its batch", { sid: ref.sid, error: String(err) });
      this.forget();
      for (const q of jobs) q.resolve(refuse("unavailable"));
      return;
    }
    if (group.applied.length === 0) return group.answerAll({}, false);
    let committed: Committed;
    try {
      committed = await commitGroup(this, ref, group);
    } catch (err) {
      this.forget();
      if (retry && isConstraintError(err)) {
        log("warn", "agent batch collided (another instance wrote the agent): its changes run again", { sid: ref.sid, error: String(err) });
        for (const q of group.queued()) await this.runGroup(ref, [q], false);
        return;
      }
      const landed = await this.landed(ref, group).catch(() => false);
      if (!landed) {
        log("error", "agent batch failed; its changes were not recorded", { sid: ref.sid, error: String(err) });
        return group.refuseAll("unavailable");
      }
      log("warn", "agent batch answered with an error but committed", { sid: ref.sid, error: String(err) });
      committed = { bookmarks: {}, loaded: (await this.read(ref))! };
    }
    this.loaded = committed.loaded;
    const recorded = group.applied.map((a) => ({
      at: a.change.entries?.at(-1)?.draft.at ?? 0,
      keyed: a.change.keyed && a.to > a.from ? { ...a.change.keyed, result: a.result } : undefined,
      jti: a.change.jti,
    }));
    this.recent.committed(committed.loaded.record.sid, recorded);
    this.pairs.written(group.moved, group.replaced);
    // Answered once what the batch tells is on its way: a caller that reads on (its own agents after a
    // claim, its disputes, a webhook test) finds it, and what the control database must show is there.
    try {
      await this.outbox.send(ref, committed.loaded);
    } finally {
      const bookmark = this.outbox.controlBookmark;
      const control = group.applied.some((a) => a.change.control?.length);
      group.answerAll({ ...committed.bookmarks, ...(control && bookmark ? { DB: bookmark } : {}) }, group.faceMoved(committed.loaded));
    }
    const next = this.timers.next(committed.loaded, this.now());
    if (next !== null) await this.timers.earlier(next);
  }

  /** Whether the group's batch is on the shard after all (its last entry is there, with its hash). */
  private async landed(ref: AgentRef, group: Group): Promise<boolean> {
    const head = group.head();
    if (!head) return false;
    const row = await this.shard(ref.shard)
      .withSession("first-primary")
      .prepare("SELECT hash FROM entries WHERE sid = ? AND n = ?")
      .bind(ref.sid, head.n)
      .first<{ hash: string }>();
    return row?.hash === head.hash;
  }
}
