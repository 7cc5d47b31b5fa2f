// The keys an agent's log leaves are made with, derived from the service's LOG_KEY once per isolate:
// the agent's name in its log (leaves of before the cut-over) and the key of each owner epoch
// (tagged leaves). The agent's object makes leaves with them; the log's reconciliation names agents
// by them.

import { epochOf, type LogTags } from "./epochs";
import { agentTag, entryCommit, entryTag, epochKey, logKey, scoreCommit, type Leaf, type LogKey } from "./leaf";

/** A key derived from LOG_KEY under `name`, computed once per isolate (at most 10,000 kept per kind). */
function derived(cache: Map<string, Promise<string>>, name: string, env: { LOG_KEY?: string }, derive: (key: LogKey) => Promise<string>): Promise<string> {
  let value = cache.get(name);
  if (!value) {
    value = logKey(env.LOG_KEY).then((key) => {
      if (!key) throw new Error("LOG_KEY is not set (32 bytes, base64): history entries cannot be written");
      return derive(key);
    });
    if (cache.size > 10_000) cache.clear();
    cache.set(name, value);
  }
  return value;
}

const tags = new Map<string, Promise<string>>();
const epochKeys = new Map<string, Promise<string>>();

/** The agent's name in its log, HMAC-SHA256(LOG_KEY, sid). */
export const logTag = (env: { LOG_KEY?: string }, sid: string): Promise<string> => derived(tags, sid, env, (key) => agentTag(key, sid));

/** The agent's key of owner epoch `epoch`, HMAC-SHA256(LOG_KEY, "<sid>:<epoch>"). */
export const logEpochKey = (env: { LOG_KEY?: string }, sid: string, epoch: number): Promise<string> =>
  derived(epochKeys, `${sid}:${epoch}`, env, (key) => epochKey(key, sid, epoch));

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
