// What an entry publishes, made in one place from the entry: its leaf for the agent's transparency
// log (the agent's tag and the score's commitment) and the ids of the events it tells.

import type { ControlWrite } from "../../db/shard-writes";
import type { AgentEvent } from "../../domain/events";
import { agentTag, logKey, scoreCommit, type Leaf } from "../../domain/log/leaf";

/** What one entry publishes. */
export interface OutboxItem {
  n: number;
  leaf: Leaf;
  events: AgentEvent[];
  control: ControlWrite[];
}

/** An event told with entry `n` (the k-th of its events): the same id every time it is sent. */
export const entryEventId = (sid: string, n: number, k: number) => `evt_${sid.slice(6)}_0_${n * 16 + k}`;

/** Where the events of entries up to `seq` stand, for the status lists' ordering: after every event of them. */
export const entryEventPosition = (seq: number) => ({ epoch: "0", n: seq * 16 + 15 });

const tags = new Map<string, Promise<string>>();

/** The agent's name in its log, HMAC-SHA256(LOG_KEY, sid): computed once per isolate and agent. */
export function logTag(env: { LOG_KEY?: string }, sid: string): Promise<string> {
  let tag = tags.get(sid);
  if (!tag) {
    tag = logKey(env.LOG_KEY).then((key) => {
      if (!key) throw new Error("LOG_KEY is not set (32 bytes, base64): history entries cannot be written");
      return agentTag(key, sid);
    });
    if (tags.size > 10_000) tags.clear();
    tags.set(sid, tag);
  }
  return tag;
}

/** The leaf of entry `n` (its hash, the composite that followed it, its nonce). */
export async function leafOf(env: { LOG_KEY?: string }, sid: string, entry: { n: number; hash: string; composite: number; nonce: string }): Promise<Leaf> {
  return { agent: await logTag(env, sid), seq: entry.n, entry_hash: entry.hash, score_commit: await scoreCommit(entry.composite, entry.nonce) };
}
