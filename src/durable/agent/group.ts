// A group of queued changes of one agent, run in order against the record in memory and committed as
// one batch (./commit): what each job changed, where its entries sit in the batch, what it tells,
// and each job's answer once the batch is on the shard.

import type { Loaded } from "../../db/agent-record";
import type { PairRow } from "../../db/pairs";
import type { AgentRecord } from "../../domain/agent";
import type { Idempotency } from "../../domain/idempotency";
import type { Refusal, Result } from "../../domain/results";
import type { ChainHead } from "../../domain/entries";
import type { RecentWindow } from "../../db/recent-window";
import { ok, refuse, type Change, type GroupView, type Job, type Told } from "./host";

export interface Queued {
  job: Job<unknown>;
  resolve: (result: Result<unknown>) => void;
}

/** A job's change in the group: its entries are `entries[from, to)` of the group's. */
export interface Applied {
  queued: Queued;
  change: Change;
  from: number;
  to: number;
  answer: (told: Told) => unknown;
  refusal?: Refusal;
  /** Its answer, made once the entries are chained (./commit). */
  result?: unknown;
}

/** Where a group reads the agent's pairs it has not moved: the kernel's cache of the shard. */
export interface PairSource {
  get(keys: readonly string[]): Promise<Map<string, PairRow>>;
  all(): Promise<Map<string, PairRow>>;
}

type Settled =
  { queued: Queued; result: Result<unknown> } | { queued: Queued; same: Idempotency & { operatorId: number } } | { queued: Queued; applied: Applied };

const keyOf = (operatorId: number, key: string) => `${operatorId}\n${key}`;

export class Group implements GroupView {
  record: AgentRecord | null;
  readonly applied: Applied[] = [];
  private readonly settled: Settled[] = [];
  private readonly keyed = new Map<string, Applied>();
  private readonly jtis = new Set<string>();
  private entryCount = 0;
  /** The chain's head after the batch (./commit sets it once the entries are chained). */
  chainHead: ChainHead | null = null;
  /** Whether the batch told score.changed (./commit): badges are purged with it. */
  crossed = false;
  /** The pairs the group's changes moved, by key; `replaced`: they are every pair of the agent. */
  readonly moved = new Map<string, PairRow>();
  replaced = false;

  constructor(
    readonly before: Loaded | null,
    private readonly recent: RecentWindow,
    private readonly source: PairSource,
  ) {
    this.record = before?.record ?? null;
  }

  async answered(operatorId: number, idempotency: Idempotency, now: number) {
    if (this.keyed.has(keyOf(operatorId, idempotency.key))) return "pending" as const;
    return this.recent.find(operatorId, idempotency, now);
  }

  async pairs(keys: readonly string[]): Promise<Map<string, PairRow>> {
    const out = new Map<string, PairRow>();
    const missing = keys.filter((k) => {
      const moved = this.moved.get(k);
      if (moved) out.set(k, moved);
      return !moved && !this.replaced;
    });
    if (missing.length > 0) for (const [k, row] of await this.source.get(missing)) out.set(k, row);
    return out;
  }

  async allPairs(): Promise<Map<string, PairRow>> {
    const out = this.replaced ? new Map<string, PairRow>() : new Map(await this.source.all());
    for (const [k, row] of this.moved) out.set(k, row);
    return out;
  }

  async spent(jti: string, now: number): Promise<boolean> {
    return this.jtis.has(jti) || this.recent.spent(jti, now);
  }

  async run(queued: Queued): Promise<void> {
    const outcome = await queued.job.run(this);
    if ("answer" in outcome && !("change" in outcome)) {
      this.settled.push({ queued, result: outcome.answer });
      return;
    }
    if ("sameAs" in outcome) {
      this.settled.push({ queued, same: outcome.sameAs });
      return;
    }
    const { change } = outcome;
    const entries = change.entries?.length ?? 0;
    // Each entry moves the record's number by one: the domain numbers reports by it.
    if (change.record.seq !== (this.record?.seq ?? 0) + entries)
      throw new Error(`a change of ${entries} entries moved seq from ${this.record?.seq} to ${change.record.seq}`);
    if (entries === 0 && (change.events?.length || change.control?.length))
      throw new Error("a change that tells something must append an entry to tell it from");
    const applied: Applied = { queued, change, from: this.entryCount, to: this.entryCount + entries, answer: outcome.answer, refusal: outcome.refusal };
    this.entryCount += entries;
    this.record = change.record;
    if (change.pairsReplaced) {
      this.moved.clear();
      this.replaced = true;
      for (const row of change.pairsReplaced) this.moved.set(row.pair.reporter, row);
    }
    for (const row of change.pairs ?? []) this.moved.set(row.pair.reporter, row);
    this.applied.push(applied);
    this.settled.push({ queued, applied });
    if (change.keyed) this.keyed.set(keyOf(change.keyed.operatorId, change.keyed.idempotency.key), applied);
    if (change.jti) this.jtis.add(change.jti);
  }

  /** Whether the agent's own row is written (not when every change only keeps or spends a challenge). */
  rowChanges(): boolean {
    return this.before === null || this.applied.some((a) => a.change.row !== false);
  }

  /** The queued jobs whose changes the batch holds, in order (to run again after a collision). */
  queued(): Queued[] {
    return this.settled.map((s) => s.queued);
  }

  /** The chain's head after the batch: null when the batch appends no entry. */
  head(): ChainHead | null {
    return this.entryCount > 0 ? this.chainHead : null;
  }

  /** Whether what public faces show moved: a score.changed told, or the identity level. */
  faceMoved(after: Loaded): boolean {
    return this.crossed || (this.before?.record.identityLevel ?? 0) !== after.record.identityLevel;
  }

  /** Every job's answer, once the batch is on the shard. */
  answerAll(bookmarks: Record<string, string>, faceChanged: boolean): void {
    for (const s of this.settled) {
      if ("result" in s) s.queued.resolve(s.result);
      else if ("applied" in s) s.queued.resolve(s.applied.refusal ? refuse(s.applied.refusal) : ok(s.applied.result, bookmarks, faceChanged));
      else {
        const first = this.keyed.get(keyOf(s.same.operatorId, s.same.key))!;
        const same = first.change.keyed!.idempotency.requestHash === s.same.requestHash;
        s.queued.resolve(same ? ok(first.result, bookmarks, faceChanged) : refuse("idempotency_mismatch"));
      }
    }
  }

  /** Every job refused (a batch that failed before it was recorded); answers settled before it stand. */
  refuseAll(refusal: "unavailable"): void {
    for (const s of this.settled) s.queued.resolve("result" in s ? s.result : refuse(refusal));
  }
}
