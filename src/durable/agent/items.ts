// What an entry publishes, made in one place from the entry: its leaf for the agent's transparency
// log (tagged under the key of its owner epoch, committing to the entry and its score; the leaf of
// before for entries up to the agent's cut-over) and the ids of the events it tells.

import type { ControlWrite } from "../../db/shard-writes";
import type { AgentEvent } from "../../domain/events";
import { epochOf, type LogTags } from "../../domain/log/epochs";
import { entryCommit, entryTag, scoreCommit, type Leaf } from "../../domain/log/leaf";
import { logEpochKey, logTag } from "../../domain/log/tags";

/** What one entry publishes. */
export interface OutboxItem {
  n: number;
  leaf: Leaf;
  /** The owner epoch its tag is keyed by (the sequencer checks the tag with it); absent for a leaf of before. */
  epoch?: number;
  events: AgentEvent[];
  control: ControlWrite[];
}

/** An event told with entry `n` (the k-th of its events): the same id every time it is sent. */
export const entryEventId = (sid: string, n: number, k: number) => `evt_${sid.slice(6)}_0_${n * 16 + k}`;

/** Where the events of entries up to `seq` stand, for the status lists' ordering: after every event of them. */
export const entryEventPosition = (seq: number) => ({ epoch: "0", n: seq * 16 + 15 });

/**
 * The leaf of entry `n` (its hash, the composite that followed it, its nonce), and the epoch it is
 * tagged under: `{tag, commit}` after the agent's cut-over, the leaf of before up to it.
 */
export async function leafOf(
  env: { LOG_KEY?: string },
  sid: string,
  entry: { n: number; hash: string; composite: number; nonce: string },
  tags: LogTags | undefined,
): Promise<{ leaf: Leaf; epoch?: number }> {
  const epoch = epochOf(tags, entry.n);
  if (epoch === null)
    return { leaf: { agent: await logTag(env, sid), seq: entry.n, entry_hash: entry.hash, score_commit: await scoreCommit(entry.composite, entry.nonce) } };
  const tag = await entryTag(await logEpochKey(env, sid, epoch), entry.n);
  return { leaf: { tag, commit: await entryCommit(entry.n, entry.hash, entry.composite, entry.nonce) }, epoch };
}
