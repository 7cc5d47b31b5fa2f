// What the sequencer remembers of each agent, and how it decides on a leaf it is offered. It keeps
// per agent a handful of numbers, not every leaf: a log takes billions of leaves and an object's
// storage is 10 GB. The agent's high-water mark `acked` is the highest entry number integrated with
// every one before it. A leaf (agent, seq) is new when seq = acked + 1, a repeat of an accepted one
// (nothing changes), a rewrite (another commitment for an accepted seq: refused and logged loudly),
// or ahead (seq > acked + 1: not taken now, retried by its queue until the gap arrives). The
// agent is named by its private tag, HMAC(log key, sid); `hash` is what the leaf commits to (its
// entry hash before the tag cut-over, its `commit` after).

/** One accepted leaf the sequencer still tracks: seq, index in the log, entry hash. */
export type OpenLeaf = [seq: number, index: number, entryHash: string];

export interface AgentLog {
  /** Every seq 1..acked is accepted. */
  acked: number;
  /** The entry hash of seq `acked` (kept to compare repeats of it). */
  ackedHash: string | null;
  /** Accepted leaves not yet published (the batch in flight; out-of-order ones accepted before high-water marks). */
  open: OpenLeaf[];
  /** The published leaf with the highest seq among those no longer open, and its index. */
  seq: number | null;
  index: number | null;
}

export const NEW_AGENT: AgentLog = { acked: 0, ackedHash: null, open: [], seq: null, index: null };

export type Decision =
  | { kind: "new" }
  /** Already accepted with this entry hash. */
  | { kind: "repeat" }
  /** Older than anything the sequencer still compares: accepted long ago, its hash no longer kept. */
  | { kind: "stale" }
  | { kind: "rewrite"; accepted: string }
  /** Past the next entry number: retried later, never dropped. */
  | { kind: "ahead" };

export function decide(agent: AgentLog, seq: number, entryHash: string): Decision {
  const known = seq === agent.acked ? agent.ackedHash : (agent.open.find(([s]) => s === seq)?.[2] ?? null);
  if (known !== null) return known === entryHash ? { kind: "repeat" } : { kind: "rewrite", accepted: known };
  if (seq <= agent.acked) return { kind: "stale" };
  if (seq > agent.acked + 1) return { kind: "ahead" };
  return { kind: "new" };
}

/** The agent after a new leaf `seq` was given `index`: acknowledged as far as its seqs run without a gap. */
export function accept(agent: AgentLog, seq: number, index: number, entryHash: string): AgentLog {
  const open: OpenLeaf[] = [...agent.open, [seq, index, entryHash]];
  let { acked, ackedHash } = agent;
  for (let next = open.find(([s]) => s === acked + 1); next; next = open.find(([s]) => s === acked + 1)) {
    acked = next[0];
    ackedHash = next[2];
  }
  return { ...agent, acked, ackedHash, open };
}

/** Forgets the open leaves that are acknowledged and in the published tree of `published` leaves. */
export function compact(agent: AgentLog, published: number): AgentLog {
  let { seq, index } = agent;
  const open = agent.open.filter(([s, i]) => {
    if (s > agent.acked || i >= published) return true;
    if (seq === null || s > seq) [seq, index] = [s, i];
    return false;
  });
  return { ...agent, open, seq, index };
}

/** The agent's published leaf with the highest seq, or null before any. */
export function sequenced(agent: AgentLog, published: number): { seq: number; index: number } | null {
  let best = agent.seq === null || agent.index === null ? null : { seq: agent.seq, index: agent.index };
  for (const [s, i] of agent.open) if (i < published && (best === null || s > best.seq)) best = { seq: s, index: i };
  return best;
}
