// An agent's history: the chain of entries (src/domain/entries.ts) as the shard keeps it.

import { replayOf, type EntryWho } from "../domain/replay";
import type { AgentRecord } from "../domain/agent";
import type { AgentModel } from "../domain/model";
import type { PairRow } from "./pairs";
import type { Database } from "./client";
import { unpackText, type StoredText } from "./entry-text";
import type { Entry, EntryDraft, EntryKind } from "../domain/entries";
import type { AgentEvent, ControlWrite } from "../domain/events";

const PAGE = 5_000;

/** An entry row as the service reads it back: the entry, and what the row keeps beside it. */
export interface StoredEntry {
  n: number;
  kind: EntryKind;
  at: number;
  /** The operator the entry names (owner or reporter); never shown. */
  operator: number | null;
  status: "active" | "disputed" | "withdrawn" | null;
  ref: number | null;
  entry: Entry;
  text: string;
  hash: string;
  salt: string | null;
  private: Record<string, unknown> | null;
  /** The composite its leaf commits to (null on rows from before it was kept). */
  composite: number | null;
}

export const ENTRY_COLUMNS = "n, kind, at, operator, status, ref, body, hash, salt, private, composite";
const ENTRY_READ = `SELECT ${ENTRY_COLUMNS} FROM entries WHERE sid = ? AND n > ? ORDER BY n LIMIT ?`;

export type EntrySqlRow = {
  n: number;
  kind: EntryKind;
  at: number;
  operator: number | null;
  status: StoredEntry["status"];
  ref: number | null;
  body: StoredText;
  hash: string;
  salt: string | null;
  private: StoredText | null;
  composite: number | null;
};

export const storedEntry = (r: EntrySqlRow): StoredEntry => {
  const text = unpackText(r.body);
  return {
    n: r.n,
    kind: r.kind,
    at: r.at,
    operator: r.operator,
    status: r.status,
    ref: r.ref,
    entry: JSON.parse(text) as Entry,
    text,
    hash: r.hash,
    salt: r.salt,
    private: r.private === null ? null : (JSON.parse(unpackText(r.private)) as Record<string, unknown>),
    composite: r.composite ?? null,
  };
};

/** What the service keeps beside a retention snapshot or an inheritance: the operator of each of its pairs, by key. */
export interface SnapshotPrivate {
  operators: Record<string, number>;
}

/** Who an entry names, as the service replays it: its operator, or for a retention snapshot its operators' numbers by id. */
export const whoOf = (e: StoredEntry): EntryWho =>
  e.kind === "snapshot" || e.kind === "inheritance" ? ((e.private as SnapshotPrivate | null)?.operators ?? null) : e.operator;

/** The agent's latest retention snapshot on its shard (null: none). */
export async function latestSnapshot(d1: Database, sid: string): Promise<(Entry & { kind: "snapshot" }) | null> {
  const row = await d1.prepare("SELECT body FROM entries WHERE sid = ? AND kind = 'snapshot' ORDER BY n DESC LIMIT 1").bind(sid).first<{ body: StoredText }>();
  return row ? (JSON.parse(unpackText(row.body)) as Entry & { kind: "snapshot" }) : null;
}

/** The agent's entries after number `after` (all of them by default), in order, read page by page. */
export async function readEntries(d1: Database, sid: string, after = 0, limit = Infinity): Promise<StoredEntry[]> {
  const rows: StoredEntry[] = [];
  let from = after;
  while (rows.length < limit) {
    const want = Math.min(PAGE, limit - rows.length);
    const page = await d1.prepare(ENTRY_READ).bind(sid, from, want).all<EntrySqlRow>();
    rows.push(...page.results.map(storedEntry));
    if (page.results.length < want) break;
    from = page.results[page.results.length - 1].n;
  }
  return rows;
}

/** The agent's entry number `n`, or null. */
export async function readEntry(d1: Database, sid: string, n: number): Promise<StoredEntry | null> {
  const row = await d1
    .prepare(ENTRY_READ)
    .bind(sid, n - 1, 1)
    .first<EntrySqlRow>();
  return row && row.n === n ? storedEntry(row) : null;
}

/** The newest stored entry of the agent (the head of its chain), or null before its first. */
export async function lastEntry(d1: Database, sid: string): Promise<{ n: number; hash: string } | null> {
  return d1.prepare("SELECT n, hash FROM entries WHERE sid = ? ORDER BY n DESC LIMIT 1").bind(sid).first<{ n: number; hash: string }>();
}

/**
 * The replay of an agent's whole history on its shard (from the snapshot it starts at), with the
 * entries of a change at hand after it (a claim re-weighs the claimer's reports as the owner's, a
 * withdrawal leaves its report out): the aggregates, and every pair with the operator of the entry
 * that made it.
 */
export async function replayOnShard(
  d1: Database,
  record: AgentRecord,
  pending: readonly { draft: EntryDraft; who: number | null }[] = [],
): Promise<{ evidence: AgentModel; pairs: PairRow[] }> {
  const stored = await readEntries(d1, record.sid);
  const after = pending.map(({ draft, who }, i) => ({
    entry: {
      v: 1,
      sid: record.sid,
      n: record.seq + 1 + i,
      kind: draft.kind,
      at: new Date(draft.at).toISOString(),
      prev: "",
      nonce: "",
      ...draft.body,
    } as Entry,
    who,
  }));
  const { state, operators } = replayOf([...stored.map((e) => ({ entry: e.entry, who: whoOf(e) })), ...after], Date.parse(record.createdAt));
  return { evidence: state.model, pairs: [...state.pairs.values()].map((pair) => ({ pair, operatorId: operators.get(pair.reporter) ?? -1 })) };
}

/** What entries (after, to] publish, as their batch recorded it: each one's leaf inputs and what it tells (events, control writes). */
export async function readPublished(d1: Database, sid: string, after: number, to: number) {
  const { results } = await d1
    .prepare("SELECT n, hash, composite, body, outbox FROM entries WHERE sid = ? AND n > ? AND n <= ? ORDER BY n")
    .bind(sid, after, to)
    .all<{ n: number; hash: string; composite: number | null; body: StoredText; outbox: StoredText | null }>();
  return results.map((r) => ({
    n: r.n,
    hash: r.hash,
    composite: r.composite ?? 0,
    nonce: (JSON.parse(unpackText(r.body)) as { nonce: string }).nonce,
    told: r.outbox ? (JSON.parse(unpackText(r.outbox)) as { events: AgentEvent[]; control: ControlWrite[] }) : { events: [], control: [] },
  }));
}
