// The archive of agents' history (R2, binding ARCHIVE_BUCKET): entry rows older than the retention
// window, moved out of the shard in order, as immutable gzip-compressed pages, one object per agent
// and run of entries: `history/<sid>/<first n, 12 digits>.json.gz`. A page is named by its first
// entry, so a move repeated after a crash between the put and the shard's delete writes the same
// object again (with as many rows or more) and never a second one. Only erasure rewrites a page.

import type { Database } from "./client";
import { unpackText } from "./entry-text";
import { ENTRY_COLUMNS, storedEntry, type EntrySqlRow, type StoredEntry } from "./history";

export const DEFAULT_WINDOW_DAYS = 400;
/** Never shorter: past the 90-day dispute window and the 180-day standing window, with room. */
export const MIN_WINDOW_DAYS = 200;

export function historyWindowDays(env: { HISTORY_WINDOW_DAYS?: string }): number {
  const days = Number(env.HISTORY_WINDOW_DAYS ?? DEFAULT_WINDOW_DAYS);
  if (!Number.isInteger(days) || days < MIN_WINDOW_DAYS) throw new Error(`HISTORY_WINDOW_DAYS must be a whole number of days, at least ${MIN_WINDOW_DAYS}`);
  return days;
}

/** Entries per page at most: a day's move of a busy agent is one page or a few. */
export const PAGE_ENTRIES = 1_000;

/** An entry row as a page holds it: its text columns as text, never the shard's stored form (./entry-text). */
export type ArchivedRow = Omit<EntrySqlRow, "body" | "private"> & { body: string; private: string | null };

export interface ArchivePage {
  v: 1;
  sid: string;
  first: number;
  last: number;
  /** The shard's entry rows as they were, oldest first (their salts and clear text until erased), their text columns in clear. */
  entries: ArchivedRow[];
}

export interface PageRef {
  key: string;
  first: number;
  last: number;
}

const prefixOf = (sid: string) => `history/${sid}/`;
export const pageKey = (sid: string, first: number) => `${prefixOf(sid)}${String(first).padStart(12, "0")}.json.gz`;

async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function gunzip(body: ReadableStream): Promise<string> {
  return new Response(body.pipeThrough(new DecompressionStream("gzip"))).text();
}

/** Writes one page of consecutive entry rows; its size in bytes. */
export async function writePage(bucket: R2Bucket, sid: string, entries: ArchivedRow[]): Promise<number> {
  const first = entries[0].n;
  const last = entries[entries.length - 1].n;
  // A page holding more of the run is never replaced by a shorter one (a move repeated from a
  // journal sent again after a restart); its rows are in it, and may leave the shard.
  const existing = await bucket.head(pageKey(sid, first));
  if (existing && Number(existing.customMetadata?.last) > last) return 0;
  const page: ArchivePage = { v: 1, sid, first, last, entries };
  const bytes = await gzip(JSON.stringify(page));
  await bucket.put(pageKey(sid, first), bytes, {
    httpMetadata: { contentType: "application/gzip" },
    customMetadata: { first: String(first), last: String(last), count: String(entries.length) },
  });
  return bytes.byteLength;
}

export async function readPage(bucket: R2Bucket, key: string): Promise<ArchivePage | null> {
  const object = await bucket.get(key);
  if (!object) return null;
  return JSON.parse(await gunzip(object.body)) as ArchivePage;
}

/** The agent's archived pages, oldest first. */
export async function listPages(bucket: R2Bucket, sid: string): Promise<PageRef[]> {
  const pages: PageRef[] = [];
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix: prefixOf(sid), cursor, include: ["customMetadata"] });
    for (const o of listed.objects) pages.push({ key: o.key, first: Number(o.customMetadata?.first), last: Number(o.customMetadata?.last) });
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
  return pages.sort((a, b) => a.first - b.first);
}

/**
 * Archived entries before number `before`, newest first, that `keep` keeps, at most `limit`: the pages
 * are read from the newest back, each once, only as far as the limit needs.
 */
export async function readArchived(bucket: R2Bucket, sid: string, before: number, limit: number, keep: (e: StoredEntry) => boolean): Promise<StoredEntry[]> {
  const found: StoredEntry[] = [];
  if (limit <= 0) return found;
  const pages = (await listPages(bucket, sid)).filter((p) => p.first < before).reverse();
  for (const ref of pages) {
    const page = await readPage(bucket, ref.key);
    for (const row of [...(page?.entries ?? [])].reverse()) {
      if (row.n >= before) continue;
      const e = storedEntry(row);
      if (!keep(e)) continue;
      found.push(e);
      if (found.length >= limit) return found;
    }
  }
  return found;
}

/** Archived entries after number `after` and before `below`, oldest first, at most `limit`: the owner's entries from the start. */
export async function readArchivedAfter(bucket: R2Bucket, sid: string, after: number, below: number, limit: number): Promise<StoredEntry[]> {
  const found: StoredEntry[] = [];
  const pages = (await listPages(bucket, sid)).filter((p) => p.last > after && p.first < below);
  for (const ref of pages) {
    const page = await readPage(bucket, ref.key);
    for (const row of page?.entries ?? []) {
      if (row.n <= after || row.n >= below) continue;
      found.push(storedEntry(row));
      if (found.length >= limit) return found;
    }
  }
  return found;
}

/** The shard's oldest entry rows up to number `through`, at most `limit`, as they are but for their text columns in clear (a page's format). */
export async function rowsThrough(d1: Database, sid: string, through: number, limit: number): Promise<ArchivedRow[]> {
  const page = await d1
    .prepare(`SELECT ${ENTRY_COLUMNS} FROM entries WHERE sid = ? AND n <= ? ORDER BY n LIMIT ?`)
    .bind(sid, through, limit)
    .all<EntrySqlRow>();
  return page.results.map((r) => ({ ...r, body: unpackText(r.body), private: r.private === null ? null : unpackText(r.private) }));
}

/** Drops rows a written page now holds. */
export async function deleteRows(d1: Database, sid: string, first: number, last: number): Promise<void> {
  await d1.prepare("DELETE FROM entries WHERE sid = ? AND n BETWEEN ? AND ?").bind(sid, first, last).run();
}

/** The agent's oldest entry still on the shard: its number and time (null: none). */
export async function firstOnShard(d1: Database, sid: string): Promise<{ n: number; at: number } | null> {
  return d1.prepare("SELECT n, at FROM entries WHERE sid = ? ORDER BY n LIMIT 1").bind(sid).first<{ n: number; at: number }>();
}

/**
 * Erases the free text of the agent's entries (one, by entry number or transaction ref, or all):
 * its salt and clear text go, from the shard's rows and from archived pages alike. The entries'
 * hashes cover only the salted hashes, so the chain still verifies. How many entries lost text, and
 * whether the entry named was found at all.
 */
export async function eraseText(
  d1: Database,
  bucket: R2Bucket,
  sid: string,
  target: { n: number | null; ref: number | null } | null,
): Promise<{ found: boolean; erased: number }> {
  // A transaction id names a report: never the registration or another entry of the same number.
  const match = (r: { n: number; ref: number | null; kind: string }) =>
    target === null || (r.kind === "report" && (r.n === target.n || (target.ref !== null && r.ref === target.ref)));
  const where = target === null ? "" : " AND kind = 'report' AND (n = ? OR ref = ?)";
  const params = target === null ? [sid] : [sid, target.n ?? -1, target.ref ?? -1];
  const present = await d1
    .prepare(`SELECT count(*) AS c FROM entries WHERE sid = ?${where}`)
    .bind(...params)
    .first<{ c: number }>();
  const updated = await d1
    .prepare(`UPDATE entries SET salt = NULL, private = NULL WHERE sid = ? AND salt IS NOT NULL${where}`)
    .bind(...params)
    .run();
  let found = (present?.c ?? 0) > 0;
  let erased = updated.meta.changes ?? 0;
  for (const ref of await listPages(bucket, sid)) {
    if (target !== null && target.ref === null && (target.n! < ref.first || target.n! > ref.last)) continue;
    const page = await readPage(bucket, ref.key);
    if (!page) continue;
    let changed = 0;
    for (const row of page.entries) {
      if (!match(row)) continue;
      found = true;
      // Only free text has a salt (a snapshot's private column is its operators' numbers, kept).
      if (row.salt === null) continue;
      row.salt = null;
      row.private = null;
      changed++;
    }
    if (changed > 0) await writePage(bucket, sid, page.entries);
    erased += changed;
  }
  return { found, erased };
}
