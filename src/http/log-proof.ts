import type { Context } from "hono";
import { readEntry } from "../db/history";
import type { AgentRef } from "../domain/agent";
import type { AttestationLog } from "../domain/attestations";
import { parseCheckpointText } from "../domain/log/checkpoint";
import { agentTag, entryCommit, isTagged, logKey, scoreCommit } from "../domain/log/leaf";
import { toBase64 } from "../domain/log/bytes";
import { sequencerName } from "../domain/log/messages";
import type { AppEnv } from "./context";
import { inclusionFromBucket, leafFromBucket } from "./log-reads";

// The agent's place in its transparency log, as the service shows it: its constant name under the
// log key (the `agent` of its leaves before the cut-over, and the sequencer's private name for it)
// and the proof an attestation carries of the agent's latest sequenced leaf, which it opens.

/** The agent's constant name under the log key, HMAC-SHA256(LOG_KEY, sid); null when LOG_KEY is not configured. */
export async function agentTagOf(c: Context<AppEnv>, sid: string): Promise<string | null> {
  const key = await logKey(c.env.LOG_KEY);
  return key ? agentTag(key, sid) : null;
}

/**
 * The proof of the agent's latest sequenced leaf: the sequencer's status (which leaf, in which tree),
 * the entry it commits to from the shard, and the audit path from the tiles in R2. Null when nothing
 * of the agent is sequenced yet, or when the log cannot be read now (an attestation never waits on it).
 */
export async function latestLogProof(c: Context<AppEnv>, ref: AgentRef): Promise<AttestationLog | null> {
  const tag = await agentTagOf(c, ref.sid);
  if (!tag) return null;
  try {
    const status = await c.env.LOG_SEQUENCER.getByName(sequencerName(ref.log)).status(tag);
    const at = status.sequenced;
    if (!at) return null;
    const stored = await readEntry(c.get("sessions").shard(ref.shard), ref.sid, at.seq);
    const note = at.checkpoint;
    const parsed = parseCheckpointText(note.slice(0, note.lastIndexOf("\n\n") + 1));
    if (!stored || !parsed.ok) return null;
    const score = stored.composite ?? (stored.entry as { score?: { composite?: number } }).score?.composite;
    if (score === undefined) return null;
    const [proof, leaf] = await Promise.all([
      inclusionFromBucket(c.env.LOG_BUCKET, ref.log, at.index, at.tree_size),
      leafFromBucket(c.env.LOG_BUCKET, ref.log, at.index, at.tree_size),
    ]);
    // The leaf as the log holds it, shown only when the entry opens it (a mismatch is a fault, logged).
    const opens =
      leaf &&
      (isTagged(leaf)
        ? leaf.commit === (await entryCommit(at.seq, stored.hash, score, stored.entry.nonce))
        : leaf.agent === tag && leaf.seq === at.seq && leaf.entry_hash === stored.hash && leaf.score_commit === (await scoreCommit(score, stored.entry.nonce)));
    if (!opens) throw new Error(`the log's leaf at index ${at.index} is not the one entry ${at.seq} makes`);
    return {
      origin: parsed.checkpoint.origin,
      index: at.index,
      tree_size: at.tree_size,
      root: toBase64(parsed.checkpoint.root),
      inclusion: proof.map(toBase64),
      leaf,
      opening: { sid: ref.sid, n: at.seq, entry_hash: stored.hash, score, nonce: stored.entry.nonce },
      checkpoint: note,
    };
  } catch (err) {
    console.error(JSON.stringify({ level: "error", message: "log: the attestation's log proof is unavailable", sid: ref.sid, error: String(err) }));
    return null;
  }
}
