// The keys an agent's log leaves are made with, derived from the service's LOG_KEY once per isolate:
// the agent's name in its log (leaves of before the cut-over) and the key of each owner epoch
// (tagged leaves). The agent's object makes leaves with them; the log's reconciliation names agents
// by them.

import { agentTag, epochKey, logKey } from "./leaf";

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

const epochKeys = new Map<string, Promise<string>>();

/** The agent's key of owner epoch `epoch`, HMAC-SHA256(LOG_KEY, "<sid>:<epoch>"): computed once per isolate, agent and epoch. */
export function logEpochKey(env: { LOG_KEY?: string }, sid: string, epoch: number): Promise<string> {
  const name = `${sid}:${epoch}`;
  let key = epochKeys.get(name);
  if (!key) {
    key = logKey(env.LOG_KEY).then((k) => {
      if (!k) throw new Error("LOG_KEY is not set (32 bytes, base64): history entries cannot be written");
      return epochKey(k, sid, epoch);
    });
    if (epochKeys.size > 10_000) epochKeys.clear();
    epochKeys.set(name, key);
  }
  return key;
}
