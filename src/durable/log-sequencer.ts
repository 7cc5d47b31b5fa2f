import { DurableObject } from "cloudflare:workers";
import { createHash } from "node:crypto";
import { useSha256, type Bytes } from "../domain/log/bytes";
import { accept, compact, decide, MAX_AHEAD, NEW_AGENT, sequenced, type AgentLog } from "../domain/log/acceptance";
import { agentTag, checkLeaf, leafBytes, logKey, type Leaf } from "../domain/log/leaf";
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

export interface AppendResult {
  accepted: { agent: string; seq: number }[];
  refused: { agent: string; seq: number; reason: string }[];
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
 * One object per log (named `log:<n>`): accepts leaves durably, in arrival order, idempotently on
 * (agent, seq), and integrates them in batches at least once a second (its alarm), writing tiles,
 * entry bundles and the signed checkpoint to R2. It answers no public reads: GET /log/... reads R2.
 */
export class LogSequencer extends DurableObject<Env> {
  private readonly store: SequencerStore;
  private signers: Promise<NoteSigner[] | string> | undefined;

  constructor(ctx: DurableObjectState, env: Env, private readonly probes: SequencerProbes = NO_PROBES) {
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
   * Accepts leaves durably. A leaf already accepted changes nothing; another entry hash for an
   * accepted (agent, seq) is refused and logged as a rewrite attempt. Returns what was accepted
   * (new or repeated) and what was refused, with why.
   */
  async append(leaves: { sid: string; leaf: Leaf }[]): Promise<AppendResult> {
    const result: AppendResult = { accepted: [], refused: [] };
    const key = await logKey(this.env.LOG_KEY);
    const checked: Leaf[] = [];
    for (const { sid, leaf } of leaves) {
      const check = checkLeaf(leaf);
      const agent = String((leaf as Partial<Leaf> | null)?.agent);
      const seq = Number((leaf as Partial<Leaf> | null)?.seq);
      if (!check.ok) result.refused.push({ agent, seq, reason: check.problem });
      else if (!key) result.refused.push({ agent, seq, reason: "LOG_KEY is not configured" });
      else if ((await agentTag(key, String(sid))) !== check.leaf.agent) result.refused.push({ agent, seq, reason: "leaf.agent is not HMAC(LOG_KEY, sid)" });
      else checked.push(check.leaf);
    }
    if (checked.length === 0) return result;

    const n = this.logNumber();
    this.origin(); // a log's first leaf creates it: its origin is fixed now
    const sids = new Map(leaves.map(({ sid, leaf }) => [`${leaf?.agent}/${leaf?.seq}`, sid]));
    let added = 0;
    this.store.transaction(() => {
      let { accepted: next, published } = this.store.counters();
      const agents = new Map<string, AgentLog>();
      const first = next;
      const fresh: string[] = [];
      for (const leaf of checked) {
        const agent = agents.get(leaf.agent) ?? this.store.agent(leaf.agent) ?? NEW_AGENT;
        const decision = decide(agent, leaf.seq, leaf.entry_hash);
        const ref = { agent: leaf.agent, seq: leaf.seq };
        if (decision.kind === "rewrite") {
          console.error(JSON.stringify({ level: "error", message: "log: another entry for an accepted (agent, seq), refused: a rewrite attempt", log: n, sid: sids.get(`${leaf.agent}/${leaf.seq}`), ...ref, accepted_entry_hash: decision.accepted, offered_entry_hash: leaf.entry_hash }));
          result.refused.push({ ...ref, reason: "another entry hash was accepted for this (agent, seq)" });
        } else if (decision.kind === "ahead") {
          result.refused.push({ ...ref, reason: `seq is more than ${MAX_AHEAD} past the agent's acknowledged seq` });
        } else if (decision.kind === "new") {
          fresh.push(new TextDecoder().decode(leafBytes(leaf)));
          agents.set(leaf.agent, accept(agent, leaf.seq, next++, leaf.entry_hash));
          result.accepted.push(ref);
        } else {
          if (decision.kind === "stale") console.warn(JSON.stringify({ level: "warn", message: "log: a repeat of an old leaf, no longer compared", log: n, ...ref }));
          result.accepted.push(ref);
        }
      }
      for (const [tag, agent] of agents) this.store.putAgent(tag, compact(agent, published));
      if (fresh.length > 0) this.store.addLeaves(first, fresh);
      added = fresh.length;
    });
    if (added > 0 && (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(this.probes.now() + INTEGRATE_EVERY_MS);
    return result;
  }

  /** The log's origin, fixed when the log was created: configuration read later never renames it. */
  origin(): string {
    return this.store.origin(() => logOrigin(this.env, this.logNumber()));
  }

  /** What the log has of an agent (by its tag, HMAC(LOG_KEY, sid)): how far it is acknowledged, and its latest published leaf. */
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
    return { accepted, published, batches, r2_writes: r2Writes, storage_bytes: this.ctx.storage.sql.databaseSize, rows_written_since_start: this.store.rowsWritten };
  }

  /** Integrates one batch; comes back at once while more wait, within a second when more arrive. */
  override async alarm(): Promise<void> {
    const started = this.probes.now();
    let result: BatchResult | null;
    try {
      const signers = await this.noteSigners();
      if (typeof signers === "string") throw new Error(signers);
      const n = this.logNumber();
      result = await runBatch({ store: this.store, bucket: this.env.LOG_BUCKET, prefix: `log/${n}/`, origin: this.origin(), signers, fail: (p) => this.probes.fail(p) });
    } catch (err) {
      if (!(err instanceof InjectedFailure)) console.error(JSON.stringify({ level: "error", message: "log: batch failed, retried", name: this.ctx.id.name, error: String((err as Error)?.stack ?? err) }));
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
