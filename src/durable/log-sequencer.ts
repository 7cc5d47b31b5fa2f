import { DurableObject } from "cloudflare:workers";
import { createHash } from "node:crypto";
import { useSha256, type Bytes } from "../domain/log/bytes";
import { accept, compact, decide, NEW_AGENT, sequenced, type AgentLog } from "../domain/log/acceptance";
import { agentTag, checkLeaf, entryTag, epochKey, isTagged, leafBytes, logKey, type Leaf, type LogKey } from "../domain/log/leaf";
import type { LeafItem } from "../domain/log/messages";
import { noteSigner, parseLogSigningKeys } from "../domain/log/keys";
import type { NoteSigner } from "../domain/log/note";
import { logOrigin, type Env } from "../env";
import { InjectedFailure, MAX_BATCH_LEAVES, runBatch, type BatchResult, type FailurePoint } from "./log/publish";
import { SequencerStore } from "./log/store";

// workerd's native SHA-256 (node:crypto, synchronous) for the tree's hashes: about ten times faster
// here than the portable one (the digests are the same, checked by the tests' reference vectors).
useSha256((...parts) => {
  const hash = createHash("sha256");
  for (const p of parts) hash.update(p);
  return new Uint8Array(hash.digest()) as Bytes;
});

/** How long an accepted leaf waits at most before its batch starts. */
export const INTEGRATE_EVERY_MS = 1000;
/** After a failed batch (R2, keys), the next try. */
const RETRY_MS = 5000;

/** A leaf named by its agent and entry number (never published: the sequencer's answers go to the queue's consumer only). */
export interface LeafRef {
  sid: string;
  seq: number;
}

export interface AppendResult {
  accepted: LeafRef[];
  refused: (LeafRef & { reason: string })[];
  /** Past the agent's next entry number: not taken now; the consumer retries them later. */
  ahead: LeafRef[];
}

export interface LogStatus {
  /** The highest seq s such that every seq 1..s of the agent is accepted. */
  acknowledged: number;
  /** The agent's published leaf with the highest seq, the size of the tree that holds it, and that tree's signed checkpoint. */
  sequenced: { seq: number; index: number; tree_size: number; checkpoint: string } | null;
}

export interface SequencerProbes {
  now(): number;
  fail(point: FailurePoint): boolean;
}
const NO_PROBES: SequencerProbes = { now: Date.now, fail: () => false };

export { sequencerName } from "../domain/log/messages";

/**
 * One object per log (named `log:<n>`): accepts leaves durably, each agent's in entry-number order
 * (per-agent high-water marks), idempotently on (agent, seq), and integrates them in batches at least once a second (its alarm), writing tiles,
 * entry bundles and the signed checkpoint to R2. It answers no public reads: GET /log/... reads R2.
 */
export class LogSequencer extends DurableObject<Env> {
  private readonly store: SequencerStore;
  private signers: Promise<NoteSigner[] | string> | undefined;

  constructor(
    ctx: DurableObjectState,
    env: Env,
    private readonly probes: SequencerProbes = NO_PROBES,
  ) {
    super(ctx, env);
    this.store = new SequencerStore(ctx.storage);
    void ctx.blockConcurrencyWhile(async () => this.store.migrate());
  }

  /** This log's number, from the object's name. */
  private logNumber(): number {
    const m = /^log:(0|[1-9][0-9]*)$/.exec(this.ctx.id.name ?? "");
    if (!m) throw new Error(`a log sequencer is named log:<n>, not ${this.ctx.id.name ?? "(no name)"}`);
    return Number(m[1]);
  }

  /**
   * Accepts leaves durably, each agent's in entry-number order: a leaf is taken when its entry number
   * is the agent's high-water mark + 1 (every earlier one integrated), a repeat of an accepted one
   * changes nothing, another commitment for an accepted entry is refused and logged as a rewrite
   * attempt, and a leaf further ahead is answered `ahead` (its queue retries it once the gap arrived).
   */
  async append(items: LeafItem[]): Promise<AppendResult> {
    const result: AppendResult = { accepted: [], refused: [], ahead: [] };
    const key = await logKey(this.env.LOG_KEY);
    const checked: { mark: string; ref: LeafRef; hash: string; leaf: Leaf }[] = [];
    const marks = new Map<string, string>();
    for (const item of items) {
      const sid = String(item?.sid);
      const check = checkLeaf(item?.leaf);
      const legacy = check.ok && !isTagged(check.leaf) ? check.leaf : null;
      const ref = { sid, seq: Number(item?.n ?? legacy?.seq) };
      if (!check.ok) result.refused.push({ ...ref, reason: check.problem });
      else if (!key) result.refused.push({ ...ref, reason: "LOG_KEY is not configured" });
      else if (!Number.isSafeInteger(ref.seq) || ref.seq < 1) result.refused.push({ ...ref, reason: "n must be an integer ≥ 1" });
      else {
        const leaf = check.leaf;
        if (!marks.has(sid)) marks.set(sid, await agentTag(key, sid));
        const mark = marks.get(sid)!;
        const problem = isTagged(leaf)
          ? await this.tagProblem(key, sid, ref.seq, item.epoch, leaf.tag)
          : leaf.agent !== mark
            ? "leaf.agent is not HMAC(LOG_KEY, sid)"
            : leaf.seq !== ref.seq
              ? "leaf.seq is not n"
              : null;
        if (problem) result.refused.push({ ...ref, reason: problem });
        else checked.push({ mark, ref, hash: isTagged(leaf) ? leaf.commit : leaf.entry_hash, leaf });
      }
    }
    if (checked.length === 0) return result;
    // Each agent's leaves in entry-number order (a batch that brings n+1 before n takes both), the
    // agents in the order the batch first names them.
    const firstSeen = new Map<string, number>();
    for (const [i, c] of checked.entries()) if (!firstSeen.has(c.mark)) firstSeen.set(c.mark, i);
    checked.sort((x, y) => firstSeen.get(x.mark)! - firstSeen.get(y.mark)! || x.ref.seq - y.ref.seq);

    const n = this.logNumber();
    this.origin(); // a log's first leaf creates it: its origin is fixed now
    let added = 0;
    this.store.transaction(() => {
      let { accepted: next, published } = this.store.counters();
      const agents = new Map<string, AgentLog>();
      const first = next;
      const fresh: string[] = [];
      for (const { mark, ref, hash, leaf } of checked) {
        const agent = agents.get(mark) ?? this.store.agent(mark) ?? NEW_AGENT;
        const decision = decide(agent, ref.seq, hash);
        if (decision.kind === "rewrite") {
          console.error(
            JSON.stringify({
              level: "error",
              message: "log: another entry for an accepted (agent, seq), refused: a rewrite attempt",
              log: n,
              ...ref,
              accepted_entry_hash: decision.accepted,
              offered_entry_hash: hash,
            }),
          );
          result.refused.push({ ...ref, reason: "another entry hash was accepted for this (agent, seq)" });
        } else if (decision.kind === "ahead") {
          result.ahead.push(ref);
        } else if (decision.kind === "new") {
          fresh.push(new TextDecoder().decode(leafBytes(leaf)));
          agents.set(mark, accept(agent, ref.seq, next++, hash));
          result.accepted.push(ref);
        } else {
          if (decision.kind === "stale")
            console.warn(JSON.stringify({ level: "warn", message: "log: a repeat of an old leaf, no longer compared", log: n, ...ref }));
          result.accepted.push(ref);
        }
      }
      for (const [mark, agent] of agents) this.store.putAgent(mark, compact(agent, published));
      if (fresh.length > 0) this.store.addLeaves(first, fresh);
      added = fresh.length;
    });
    if (added > 0 && (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(this.probes.now() + INTEGRATE_EVERY_MS);
    return result;
  }

  /** Why a tagged leaf's tag is not HMAC(k, n) under the agent's key of `epoch`, or null when it is. */
  private async tagProblem(key: LogKey, sid: string, n: number, epoch: number | undefined, tag: string): Promise<string | null> {
    if (epoch === undefined || !Number.isSafeInteger(epoch) || epoch < 0) return "a tagged leaf comes with its epoch, an integer ≥ 0";
    return (await entryTag(await epochKey(key, sid, epoch), n)) === tag ? null : "leaf.tag is not HMAC(k_sid, n) for the epoch given";
  }

  /** The log's origin, fixed when the log was created: configuration read later never renames it. */
  origin(): string {
    return this.store.origin(() => logOrigin(this.env, this.logNumber()));
  }

  /** What the log has of an agent (by its private tag, HMAC(LOG_KEY, sid)): its high-water mark, and its latest published leaf. */
  status(agent: string): LogStatus {
    const state = this.store.agent(agent);
    const { published } = this.store.counters();
    const checkpoint = this.store.checkpoint();
    const latest = state ? sequenced(state, published) : null;
    return {
      acknowledged: state?.acked ?? 0,
      sequenced: latest && checkpoint ? { ...latest, tree_size: published, checkpoint } : null,
    };
  }

  /**
   * How far the log holds each agent's leaves without a gap (by its tag; 0 for an agent it has never
   * heard of): the daily reconciliation compares these marks with the shards' last entry numbers.
   * Never published.
   */
  marks(tags: readonly string[]): number[] {
    return tags.map((tag) => this.store.agent(tag)?.acked ?? 0);
  }

  /** The log's counters, for operators and the benchmark: leaves accepted and published, batches, R2 writes, the object's storage. */
  stats(): { accepted: number; published: number; batches: number; r2_writes: number; storage_bytes: number; rows_written_since_start: number } {
    const { accepted, published } = this.store.counters();
    const { batches, r2Writes } = this.store.totals();
    return {
      accepted,
      published,
      batches,
      r2_writes: r2Writes,
      storage_bytes: this.ctx.storage.sql.databaseSize,
      rows_written_since_start: this.store.rowsWritten,
    };
  }

  /** Integrates one batch; comes back at once while more wait, within a second when more arrive. */
  override async alarm(): Promise<void> {
    const started = this.probes.now();
    let result: BatchResult | null;
    try {
      const signers = await this.noteSigners();
      if (typeof signers === "string") throw new Error(signers);
      const n = this.logNumber();
      result = await runBatch({
        store: this.store,
        bucket: this.env.LOG_BUCKET,
        prefix: `log/${n}/`,
        origin: this.origin(),
        signers,
        fail: (p) => this.probes.fail(p),
      });
    } catch (err) {
      if (!(err instanceof InjectedFailure))
        console.error(
          JSON.stringify({ level: "error", message: "log: batch failed, retried", name: this.ctx.id.name, error: String((err as Error)?.stack ?? err) }),
        );
      await this.ctx.storage.setAlarm(this.probes.now() + RETRY_MS);
      return;
    }
    const { accepted, published } = this.store.counters();
    if (result === null || accepted === published) return;
    // A backlog of a full batch or more goes on at once; otherwise the next batch starts a second after this one did.
    const backlog = accepted - published >= MAX_BATCH_LEAVES;
    await this.ctx.storage.setAlarm(backlog ? this.probes.now() : Math.max(this.probes.now(), started + INTEGRATE_EVERY_MS));
  }

  private noteSigners(): Promise<NoteSigner[] | string> {
    this.signers ??= (async () => {
      const keys = await parseLogSigningKeys(this.env.LOG_SIGNING_KEYS);
      if (!keys.ok) return keys.problem;
      const origin = this.origin();
      return Promise.all(keys.keys.map((k) => noteSigner(k, origin)));
    })();
    return this.signers;
  }
}
