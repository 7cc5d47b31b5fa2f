// What the agent object's kernel offers its feature modules, and what a feature may tell the kernel.
// Feature modules (./reports, ./profile, ./identity, ./disputes) import this and the lower floors
// (domain, db), never the object's class or each other's internals.

import type { ControlWrite, ShardWrite } from "../../db/shard-writes";
import type { AgentRecord, AgentRef } from "../../domain/agent";
import type { EventDraft } from "../../domain/events";
import type { Refusal, Result } from "../../domain/results";
import type { Env } from "../../env";
import type { Entry } from "../../domain/entries";
import type { Leaf } from "../../domain/log/leaf";
import type { LogItem } from "../../domain/log/messages";
import type { Appended, Chain, EntryWrite } from "./chain";
import type { KernelStorage } from "./storage";

export type { Feature } from "./feature";

export type Bookmarks = Record<string, string>;

/** One change to store: its shard and control writes, its events, other storage, and when it happened. */
export interface Change {
  shard?: ShardWrite[];
  control?: ControlWrite[];
  events?: EventDraft[];
  /** Other storage of the same change, inside its transaction (throwing rolls all of it back). */
  also?: () => void;
  /** Leaves of the change's entries for the agent's log (kept until the log has them). */
  leaves?: Leaf[];
  at: number;
}

/**
 * A batch's change on this agent, left to the caller: the journal's shard writes up to `upTo`, which
 * it applies with other agents' in one batch per shard, and the leaves it may send with theirs (past
 * `after`); it acknowledges both.
 */
export interface Deferred {
  upTo: number;
  shard: ShardWrite[];
  leaves?: { after: number; to: number; items: LogItem[] };
}

export type Refused = { ok: false; refusal: Refusal };

/** The narrow face of the kernel that feature modules use. */
export interface AgentHost {
  readonly env: Env;
  readonly store: KernelStorage;
  /** Runs `work` after every change queued before it: one change at a time. */
  serial<T>(work: () => Promise<T>): Promise<T>;
  /** The agent's record (rebuilt from its shard when the storage is empty); null for an unknown agent. */
  load(ref: AgentRef): Promise<AgentRecord | null>;
  /** The record when the caller owns the agent, else the refusal. */
  owned(ref: AgentRef, callerId: number): Promise<AgentRecord | Refused>;
  /** Stores the change in one storage transaction; false when nothing was stored. */
  commit(record: AgentRecord, change: Change): boolean;
  /** Applies the journal to the shard and the control database, then publishes; null when a batch failed. */
  flush(): Promise<Bookmarks | null>;
  /** Drops the journal entries the shard has, with their clear text (after an erasure or a move). */
  dropApplied(): void;
  /** The journal's shard writes for a caller to apply (null: this object applied them itself). */
  deferred(): Promise<Deferred | null>;
  /** Moves the alarm earlier when needed; never later. */
  scheduleAlarm(at: number): Promise<void>;
  shard(n: number): D1Database;
  /** Whether the change moved what public faces (badges) show: their caches must go. */
  faceMoved(before: AgentRecord, after: AgentRecord): boolean;
  /** Drops what memory holds; the next call reads storage again. */
  forget(): void;
  /** The agent's chain: reporters' commitments, and the log outbox. */
  readonly chain: Chain;
  /** Chains a change's entries after the record's head (the rows and leaves go into its commit). */
  append(record: AgentRecord, writes: readonly EntryWrite[]): Promise<Appended>;
  /**
   * The replay of the agent's whole chain (journal applied first), with `pending` entries of the
   * change at hand after it: the evidence as of `now` under `version` (by default the record's
   * model), report times for damping, and the operators' numbers. Null when the shard failed.
   */
  replay(record: AgentRecord, now: number, pending?: readonly { entry: Entry; who: number | null }[], version?: 2 | 3): Promise<Replayed | null>;
  /** The object's clock (the probes' in tests). */
  now(): number;
  /** The report times kept for damping, by reporter (memory, in step with storage). */
  recent: Map<number, number[]>;
  /** Whether a test asked this point to fail (production: never). */
  failing(point: FaultPoint): boolean;
}

/** Where tests reach in: the clock of alarms and rebuilds, and injected failures. Production has none. */
export interface Probes {
  now(): number;
  /** True to fail at this point once: a crash right after the commit, a shard batch, a crash before publishing. */
  fail(point: FaultPoint): boolean;
}
export const NO_PROBES: Probes = { now: Date.now, fail: () => false };

/** A shard batch (or queue send) that failed is retried by the alarm after this long (and by the next change). */
export const RETRY_MS = 5_000;
/** The wait between retries of an outbound write that keeps failing stops doubling here (then spread ±20%). */
export const MAX_RETRY_MS = 300_000;

/**
 * The wait before the alarm's retry after `failures` failures in a row: RETRY_MS, then doubled per
 * failure up to MAX_RETRY_MS, so a shard or queue that is down for an hour gets about 17 tries from
 * each waiting object instead of 720. Past the first, each wait is spread over ±20% by the agent's
 * SID (fixed per agent and failure, so tests can tell it): objects that failed together come back apart.
 */
export function retryDelay(failures: number, sid: string): number {
  if (failures <= 1) return RETRY_MS;
  const wait = Math.min(RETRY_MS * 2 ** (failures - 1), MAX_RETRY_MS);
  let h = 0x811c9dc5; // FNV-1a
  for (const ch of `${sid}/${failures}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return Math.round(wait * (0.8 + 0.4 * ((h >>> 0) / 2 ** 32)));
}

/**
 * How long the object waits for a batch route to acknowledge the journal it handed out before its
 * alarm applies the journal itself (idempotently: the route's batch may have landed, its answer lost
 * with a Worker that died). A route whose batch failed says so at once, so this covers only a lost
 * acknowledgement; an acknowledgement that comes late under load costs a second application when it
 * comes after this.
 */
export const ACK_WAIT_MS = 15_000;

/**
 * The journal hand-outs (`deferred`) not yet acknowledged in this object's life, oldest first. Each
 * covers every entry pending up to its `upTo` (a hand-out takes the whole pending journal), so entries
 * up to the greatest one wait for an acknowledgement, not for the alarm, and the alarm is due
 * ACK_WAIT_MS after the oldest: in a stream of batches each acknowledgement moves it on.
 */
export class Handouts {
  private waiting: { upTo: number; at: number }[] = [];

  add(upTo: number, at: number): void {
    this.waiting.push({ upTo, at });
  }

  /** Answered up to `upTo` (acknowledged, failed, or applied by the object itself): none of those is awaited. */
  settle(upTo: number): void {
    this.waiting = this.waiting.filter((h) => h.upTo > upTo);
  }

  /** The greatest journal id an acknowledgement is still awaited for (0: none). */
  covered(): number {
    return this.waiting.reduce((max, h) => Math.max(max, h.upTo), 0);
  }

  /** When the alarm stops waiting and applies the journal itself (null: no acknowledgement awaited). */
  deadline(): number | null {
    return this.waiting.length > 0 ? this.waiting[0].at + ACK_WAIT_MS : null;
  }
}

/**
 * Failures in a row of an object's writes to its shard or queue, kept as a fact in its storage: an
 * object evicted between its retries (idle objects go within minutes) waits as long as it would have.
 */
export class Backoff {
  constructor(
    private readonly facts: { fact<T>(key: string): T | null; setFact(key: string, value: unknown): void },
    private readonly key: string,
  ) {}

  /** One more failure: how long until the retry. */
  failed(sid: string): number {
    const failures = (this.facts.fact<number>(this.key) ?? 0) + 1;
    this.facts.setFact(this.key, failures);
    return retryDelay(failures, sid);
  }

  /** A write went through: the count starts over (a storage write only when there was one). */
  succeeded(): void {
    if ((this.facts.fact<number>(this.key) ?? 0) > 0) this.facts.setFact(this.key, 0);
  }
}

export type FaultPoint = "afterCommit" | "shardBatch" | "beforePublish" | "migrationChunk" | "archiveAfterPut";

export interface Replayed {
  evidence: AgentRecord["evidence"];
  recent: Map<number, number[]>;
  locals: Record<string, number>;
}

export const ok = <T>(result: T, bookmarks: Bookmarks | null = {}, faceChanged = false): Result<T> => ({
  ok: true,
  result,
  bookmarks: bookmarks ?? {},
  faceChanged,
});
export const refuse = (refusal: Refusal): Refused => ({ ok: false, refusal });

export function log(level: "error" | "info", message: string, fields: Record<string, unknown>) {
  console[level](JSON.stringify({ level, message, ...fields }));
}

/** Thrown inside a change's `also` to refuse it: the transaction rolls back, and memory stays right. */
export class Rollback extends Error {}

/** A repeat under an Idempotency-Key: the answer given replayed, or a request that is not the same refused (null: no record). */
export function replayedAnswer<T>(prior: { requestHash: string; result: unknown } | null, requestHash: string): Result<T> | null {
  if (!prior) return null;
  return prior.requestHash === requestHash ? ok(prior.result as T) : refuse("idempotency_mismatch");
}
