import type { Database } from "../db/client";
import { findKey } from "../db/operators";
import { sha256Hex } from "../domain/identifiers";

export type KeyFacts = NonNullable<Awaited<ReturnType<typeof findKey>>>;

export interface KeyEntry {
  facts: KeyFacts;
  /** The operator's auth_epoch these facts were read at (compared with RateLimiter's epoch). */
  epoch: number;
  loadedAt: number;
}

// Per isolate. Keyed by the presented key, so a warm request neither hashes nor reads D1. Only
// known keys are cached (unknown ones would let anyone fill memory). Staleness is bounded twice:
// every request's limiter answer carries the operator's newest announced auth_epoch (raised on
// revocation, rotation and admin changes, in the same D1 batch as the change), and an entry lives at
// most MAX_AGE_MS.
const MAX_AGE_MS = 5 * 60_000;
const MAX_ENTRIES = 10_000;
const entries = new Map<string, KeyEntry>();

export async function lookupKey(d1: Database, key: string): Promise<KeyEntry | null> {
  const hit = entries.get(key);
  if (hit && Date.now() - hit.loadedAt < MAX_AGE_MS) return hit;
  return reloadKey(d1, key);
}

/** Reads the key and its operator from D1 and caches them with the epoch they were read at. */
export async function reloadKey(d1: Database, key: string): Promise<KeyEntry | null> {
  const facts = await findKey(d1, await sha256Hex(key));
  if (!facts) {
    entries.delete(key);
    return null;
  }
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  const entry = { facts, epoch: facts.authEpoch, loadedAt: Date.now() };
  entries.set(key, entry);
  return entry;
}
