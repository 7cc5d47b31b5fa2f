// Reads of an agent's history that follow into the archive (R2) when they pass the oldest entry its
// shard still keeps: the owner's list of reports, the owner's entries and the report's score history,
// paged as before. The shard holds every entry from its oldest on, so the archive is read only below
// that entry (and not at all for an agent that never archived, or whose move is half done). The shard
// is read first and the archive strictly below what it gave: a move that runs between the two reads
// (a page written, then its rows deleted) leaves neither a gap nor an entry twice.

import { SCORE_ENTRY_KINDS } from "../domain/entries";
import type { ScoreEvent, TransactionEntry } from "../domain/views";
import { scoreEventOf, transactionOfRow } from "./agents";
import type { Database } from "./client";
import { readEntries, type StoredEntry } from "./history";
import { firstOnShard, readArchived, readArchivedAfter } from "./history-archive";

const SCORE_KINDS = new Set<string>(SCORE_ENTRY_KINDS);

/** Below which entry number the archive holds the agent's history (null: it holds nothing the shard lacks). */
async function archivedBelow(d1: Database, sid: string): Promise<number | null> {
  const first = await firstOnShard(d1, sid);
  return first !== null && first.n > 1 ? first.n : null;
}

/**
 * The agent's entries after number `after`, oldest first, at most `limit`: from the archive while
 * they are older than the shard's oldest entry, then from the shard.
 */
export async function entriesAfter(d1: Database, bucket: R2Bucket, sid: string, after: number, limit: number): Promise<StoredEntry[]> {
  const onShard = await readEntries(d1, sid, after, limit);
  // Numbers run without a gap: when the shard starts later, the entries before its first are archived.
  // (The shard always keeps its newest entry, so none after `after` anywhere when it gives none.)
  if (onShard.length === 0 || onShard[0].n === after + 1) return onShard;
  const archived = await readArchivedAfter(bucket, sid, after, onShard[0].n, limit);
  return [...archived, ...onShard].slice(0, limit);
}

/**
 * Archived reports below entry number `below` (the last the shard's page gave, or the cursor), newest
 * first, at most `limit`: the owner's list past the shard's.
 */
export async function archivedTransactions(
  d1: Database,
  bucket: R2Bucket,
  sid: string,
  num: number,
  below: number,
  limit: number,
): Promise<(TransactionEntry & { n: number })[]> {
  if (limit <= 0 || (await archivedBelow(d1, sid)) === null) return [];
  const found = await readArchived(bucket, sid, below, limit, (e) => e.kind === "report");
  return found.map((e) =>
    transactionOfRow(num, { n: e.n, at: e.at, status: e.status, ref: e.ref, body: e.text, private: e.private === null ? null : JSON.stringify(e.private) }),
  );
}

/**
 * The archived part of reports' histories, per isolate: what lies below an agent's oldest entry on
 * the shard never changes (a status cannot change past the dispute window, erasure touches no score),
 * and each read of it lists and opens R2 objects. Keyed by that entry, so the next move is a miss.
 */
const archivedEvents = new Map<string, { events: ScoreEvent[]; at: number }>();
const ARCHIVED_TTL_MS = 10 * 60_000;
const ARCHIVED_MAX = 2_000;

/** Archived score-moving entries, newest first, at most `limit`: the report's history past the shard's. */
export async function archivedScoreEvents(d1: Database, bucket: R2Bucket, sid: string, num: number, limit: number): Promise<ScoreEvent[]> {
  const below = await archivedBelow(d1, sid);
  if (below === null || limit <= 0) return [];
  const key = `${sid}:${below}:${limit}`;
  const hit = archivedEvents.get(key);
  if (hit && Date.now() - hit.at < ARCHIVED_TTL_MS) return hit.events;
  const found = await readArchived(bucket, sid, below, limit, (e) => SCORE_KINDS.has(e.kind));
  const events = found.map((e) => scoreEventOf(num, { n: e.n, kind: e.kind, at: e.at, status: e.status, ref: e.ref, body: e.text }));
  if (archivedEvents.size >= ARCHIVED_MAX) archivedEvents.delete(archivedEvents.keys().next().value!);
  archivedEvents.set(key, { events, at: Date.now() });
  return events;
}
