// The agent's one outbox: its history entries after the row's `published` cursor. Whatever a change
// publishes is derived from its entry: the leaf for the agent's transparency log, and what the entry
// row keeps in `outbox` (events, control-database writes). After a batch the object sends the new
// entries' items to the queues and moves the cursor with its next batch, so the row's cursor is at
// most one batch behind what was sent; every batch has an alarm within a minute behind it (./commit),
// which, in an object life that did not send them, sends the entries after the cursor again, reading
// them from the shard. Consumers are idempotent by (sid, entry number) and event id, so an entry sent
// twice changes nothing.

import type { Loaded } from "../../db/agent-record";
import { controlStatements, type ControlWrite } from "../../db/shard-writes";
import type { AgentRef } from "../../domain/agent";
import type { AgentEvent } from "../../domain/events";
import { readPublished } from "../../db/history";
import { fnv1a } from "../../domain/identifiers";
import { sendLeaves } from "../../domain/log/messages";
import { sendAll } from "../../domain/queue-batches";
import type { Result } from "../../domain/results";
import { log } from "../../log";
import { ok, refuse, type AgentHost } from "./host";
import { leafOf } from "../../domain/log/tags";
import type { Leaf } from "../../domain/log/leaf";
import type { Timer } from "./timers";

/** What the outbox needs of the kernel: the host's face, a way to drop its cache, the alarm. */
export type OutboxHost = Pick<AgentHost, "env" | "now" | "failing" | "shard" | "exclusive" | "read"> & {
  forget(): void;
  readonly timers: { earlier(at: number): Promise<void> };
};

/** What one entry publishes. */
export interface OutboxItem {
  n: number;
  leaf: Leaf;
  /** The owner epoch its tag is keyed by (the sequencer checks the tag with it); absent for a leaf of before. */
  epoch?: number;
  events: AgentEvent[];
  control: ControlWrite[];
}

/** A send that keeps failing is tried again 5 s after the first failure, then doubled up to 5 minutes, spread ±20% by the agent. */
function retryDelay(failures: number, sid: string): number {
  const wait = Math.min(5_000 * 2 ** Math.max(0, failures - 1), 300_000);
  return failures <= 1 ? wait : Math.round(wait * (0.8 + 0.4 * (fnv1a(`${sid}/${failures}`) / 2 ** 32)));
}

/** Entries read from the shard per resend (an agent that was cut off from its queues for long has many). */
const RESEND_PAGE = 500;

export class Outbox {
  /** Entries up to this number were handed to the queues (in this object life; at least the row's cursor). */
  private sent = 0;
  /** Committed entries' items not yet sent, oldest first. */
  private waiting: OutboxItem[] = [];
  /** Failed sends in a row, and when the alarm tries again (memory: a new object life tries at once). */
  private failures = 0;
  private retryAt: number | null = null;

  constructor(private readonly kernel: OutboxHost) {}

  /**
   * Entries this object life has not handed to the queues: due at once (a new life after a crash),
   * or at the retry's time after a failed send. The row's cursor may lag what this life sent: the
   * next batch moves it, and a new life sends those entries again (consumers take repeats).
   */
  readonly timer: Timer = {
    name: "outbox",
    next: (loaded, now) => (this.sent >= loaded.record.seq ? null : (this.retryAt ?? now)),
    fire: async (loaded) => {
      await this.resend(loaded.record, loaded);
    },
  };

  /** The entries from `from` on sent again (the daily reconciliation found the log lacking them). */
  republish(ref: AgentRef, from: number): Promise<Result<{ sent: number }>> {
    return this.kernel.exclusive(async () => {
      const loaded = await this.kernel.read(ref);
      if (!loaded) return refuse("not_found");
      let sent = 0;
      for (let after = Math.max(0, from - 1); after < loaded.record.seq; after += RESEND_PAGE) {
        const items = await this.read(ref, loaded, after, Math.min(loaded.record.seq, after + RESEND_PAGE));
        if (!(await this.deliver(ref, loaded, items))) return refuse("unavailable");
        sent += items.length;
      }
      return ok({ sent });
    });
  }

  /** The agent was read from its shard: its cursor is at least where the row says. */
  loaded(loaded: Loaded): void {
    this.sent = Math.max(this.sent, loaded.published);
    this.waiting = this.waiting.filter((i) => i.n > this.sent);
  }

  /** The cursor a batch writes: what was sent, never behind the row's. */
  publishedFor(before: Loaded | null): number {
    return Math.max(this.sent, before?.published ?? 0);
  }

  /** A committed batch's items, sent after its answers. */
  queue(items: readonly OutboxItem[]): void {
    this.waiting.push(...items);
  }

  /** How far this object life handed entries to the queues. */
  sentUpTo(): number {
    return this.sent;
  }

  /** Sends what waits (after the batch's answers), reading from the shard any entry before it that this life never sent. */
  async send(ref: AgentRef, loaded: Loaded): Promise<void> {
    // A send that failed waits for the alarm's retry: the batches in between only queue their items.
    if (this.retryAt !== null) return;
    if (this.kernel.failing("beforeSend")) {
      this.waiting = [];
      this.kernel.forget();
      throw new Error("injected crash before sending");
    }
    const first = this.waiting[0]?.n;
    if (first !== undefined && first > this.sent + 1) {
      // An earlier send failed (or came from another life): the entries in between go first.
      this.waiting = [...(await this.read(ref, loaded, this.sent, first - 1)), ...this.waiting];
    }
    await this.deliver(ref, loaded, this.waiting.splice(0));
  }

  /**
   * At the alarm: every entry after what this life sent goes out again (another life may have sent
   * some of them: consumers take repeats), page by page. The row's cursor is not written here: the
   * next batch moves it, and a life that starts before then sends the same entries once more, which
   * costs a queue message where writing the cursor would cost a row after every quiet spell.
   */
  async resend(ref: AgentRef, loaded: Loaded): Promise<boolean> {
    this.retryAt = null;
    while (this.sent < loaded.record.seq) {
      const items = await this.read(ref, loaded, this.sent, Math.min(loaded.record.seq, this.sent + RESEND_PAGE));
      if (items.length === 0) break;
      if (!(await this.deliver(ref, loaded, items))) return false;
    }
    return true;
  }

  /** The control database's bookmark after the last write the outbox made there. */
  controlBookmark: string | null = null;

  private async applyControl(writes: ControlWrite[]): Promise<void> {
    const d1 = this.kernel.env.DB.withSession("first-primary");
    await d1.batch(controlStatements(d1, writes));
    this.controlBookmark = d1.getBookmark();
  }

  /** Items of entries (after, to] from the shard, as their batch made them. */
  private async read(ref: AgentRef, loaded: Loaded, after: number, to: number): Promise<OutboxItem[]> {
    const published = await readPublished(this.kernel.shard(ref.shard).withSession("first-primary"), ref.sid, after, to);
    return Promise.all(published.map(async ({ told, ...e }) => ({ n: e.n, ...(await leafOf(this.kernel.env, ref.sid, e, loaded.record.logTags)), ...told })));
  }

  /**
   * The control database's writes first, then one send per queue; false
   * (and the alarm sends again) when any of them failed. The control database's bookmark, when it was
   * written, is the answer's.
   */
  private async deliver(ref: AgentRef, loaded: Loaded, items: OutboxItem[]): Promise<boolean> {
    if (items.length === 0) return true;
    const { env } = this.kernel;
    const events = items.flatMap((i) => i.events);
    const control = items.flatMap((i) => i.control);
    try {
      if (control.length > 0) await this.applyControl(control);
      if (env.LOG_QUEUE)
        await sendLeaves(
          env.LOG_QUEUE,
          items.map((i) => ({ log: loaded.record.log ?? ref.log, sid: ref.sid, n: i.n, epoch: i.epoch, leaf: i.leaf })),
        );
      if (env.EVENTS) await sendAll(env.EVENTS, events);
    } catch (err) {
      this.failures++;
      this.retryAt = this.kernel.now() + retryDelay(this.failures, ref.sid);
      this.waiting = [];
      log("error", "outbox not sent; the alarm sends it again", { sid: ref.sid, entries: items.length, failures: this.failures, error: String(err) });
      await this.kernel.timers.earlier(this.retryAt);
      return false;
    }
    this.sent = Math.max(this.sent, items[items.length - 1].n);
    this.failures = 0;
    this.retryAt = null;
    return true;
  }
}
