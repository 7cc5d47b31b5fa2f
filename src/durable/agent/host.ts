// What the agent object's kernel offers its feature modules, and what a feature hands the kernel: a
// change (the record after it, its entries and rows, what it tells) and the answer to give once the
// change is on the shard. Feature modules import this and the lower floors (domain, db), never the
// object's class, the kernel, or each other.

import type { PairRow } from "../../db/pairs";
import type { ControlWrite, ShardWrite } from "../../db/shard-writes";
import type { Loaded } from "../../db/agent-record";
import type { AgentRecord, AgentRef } from "../../domain/agent";
import type { EventDraft, Notified } from "../../domain/events";
import type { Idempotency } from "../../domain/idempotency";
import type { Leaf } from "../../domain/log/leaf";
import type { Refusal, Result } from "../../domain/results";
import type { Chained } from "../../domain/entries";
import type { Env } from "../../env";
import type { EntryWrite } from "../../db/entry-writes";

/** One change of the agent: what it does to the record and the shard, and what it tells. */
export interface Change {
  /** The record after the change (its `seq` and `chainHash` are the kernel's: the entries move them). */
  record: AgentRecord;
  /** Its history entries, in order. */
  entries?: EntryWrite[];
  /** Its other rows on the shard. */
  rows?: ShardWrite[];
  /** The pairs it moved (written whole). */
  pairs?: PairRow[];
  /** Every pair of the agent, made again by a replay: the agent's pairs are these and no others. */
  pairsReplaced?: PairRow[];
  /** Events and control-database writes it tells, published from its last entry (a change that tells something has one). */
  events?: EventDraft[];
  control?: ControlWrite[];
  /** The agent row's every column changes (profile, identity, owner), not only its report columns. */
  whole?: boolean;
  /** A keyed change: its answer is recorded with its last entry and replayed to a repeat within 24 hours. */
  keyed?: { operatorId: number; idempotency: Idempotency };
  /** A receipt id it spends (single use per agent). */
  jti?: string;
  /** False: the agent's own row does not change (a challenge or nonce kept or spent). */
  row?: false;
  /** What score.changed was last told, when the change told it itself (time alone moved the face). */
  notified?: Notified;
  /** What public faces show moved (their caches go). */
  faceMoved?: boolean;
}

/** A change's own entries once chained, and their leaves: what its answer may name. */
export interface Told {
  chained: Chained[];
  leaves: Leaf[];
}

/** What a queued job of a feature comes to: an answer now (a refusal, a repeat, nothing to change), or a change. */
export type Outcome<T> =
  | { answer: Result<T> }
  /** `refusal`: the change is recorded, and the caller refused all the same (a nonce spent by a proof that failed). */
  | { change: Change; answer: (told: Told) => T; refusal?: Refusal }
  | { sameAs: Idempotency & { operatorId: number } };

/** The changes of one batch, as jobs see it: the record as the jobs before this one left it. */
export interface GroupView {
  /** The record before the group (null: the agent is not registered). */
  readonly before: Loaded | null;
  /** The record as the group's changes so far left it (null: not registered). */
  readonly record: AgentRecord | null;
  /** A keyed change's recorded answer (this group's, or the last 24 hours'), null for a new key. */
  answered(operatorId: number, idempotency: Idempotency, now: number): Promise<{ requestHash: string; result: unknown } | "pending" | null>;
  /** Whether a receipt id was spent (this group, or within the window receipts are accepted). */
  spent(jti: string, now: number): Promise<boolean>;
  /** The agent's pairs of these reporters (by key), as the group's changes so far left them; absent: none yet. */
  pairs(keys: readonly string[]): Promise<Map<string, PairRow>>;
  /** Every pair of the agent, as the group's changes so far left them. */
  allPairs(): Promise<Map<string, PairRow>>;
}

/** A feature's job: runs against the group's record when its turn comes. */
export interface Job<T> {
  run(group: GroupView): Promise<Outcome<T>>;
  /** Jobs that replay the history from the shard run in a batch of their own, after the ones queued before them. */
  alone?: boolean;
}

/** The narrow face of the kernel that feature modules use. */
export interface AgentHost {
  readonly env: Env;
  /** Queues a job; its answer once its batch committed (or why not). */
  change<T>(ref: AgentRef, job: Job<T>): Promise<Result<T>>;
  /** The agent as its shard holds it (loaded once per object life, kept in step with each batch); null: not registered. */
  read(ref: AgentRef): Promise<Loaded | null>;
  /** Runs `work` after every job queued before it, alone (a read that must not see half a group). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** The agent's shard database (its primary: every read of the object is of its own writes). */
  shard(n: number): D1Database;
  /** The reporter's (or owner's) commitment on this agent. */
  commitment(sid: string, operatorId: number): Promise<string>;
  /** The object's clock (a test's in tests). */
  now(): number;
  /** Whether a test asked this point to fail (production: never). */
  failing(point: FaultPoint): boolean;
}

/** A batch that fails before it reaches the shard; one whose answer is lost after it committed; a crash before the outbox sends; a failure between an archive page's put and its rows' delete. */
export type FaultPoint = "beforeBatch" | "afterBatch" | "beforeSend" | "archiveAfterPut";

/** Where tests reach in: the clock, and injected failures. Production has none. */
export interface Probes {
  now(): number;
  /** True to fail at this point once. */
  fail(point: FaultPoint): boolean;
}
export const NO_PROBES: Probes = { now: Date.now, fail: () => false };

export type Refused = { ok: false; refusal: Refusal };

export const ok = <T>(result: T, bookmarks: Record<string, string> = {}, faceChanged = false): Result<T> => ({ ok: true, result, bookmarks, faceChanged });
export const refuse = (refusal: Refusal): Refused => ({ ok: false, refusal });
/** A job's outcome that changes nothing. */
export const answer = <T>(result: Result<T>): Outcome<T> => ({ answer: result });

/** The record when the caller owns the agent, else the refusal. */
export function owned(group: GroupView, callerId: number): AgentRecord | Refused {
  if (!group.record) return refuse("not_found");
  if (group.record.operatorId !== callerId) return refuse("forbidden");
  return group.record;
}

/** A repeat under an Idempotency-Key: the answer given replayed, or a request that is not the same refused (null: a new key). */
export async function replayed<T>(group: GroupView, operatorId: number, idempotency: Idempotency | undefined, now: number): Promise<Outcome<T> | null> {
  if (!idempotency) return null;
  const prior = await group.answered(operatorId, idempotency, now);
  if (prior === null) return null;
  if (prior === "pending") return { sameAs: { ...idempotency, operatorId } };
  return answer(prior.requestHash === idempotency.requestHash ? ok(prior.result as T) : refuse("idempotency_mismatch"));
}
