// An agent's history: the chain of entries (src/domain/entries.ts) as the shard keeps it, and the
// tables from before the chain, which each agent's object reads once to build its chain.

import { and, asc, eq, gt, isNotNull, isNull } from "drizzle-orm";
import { legacyBase, type HistoryItem } from "../domain/agent";
import { type EntryWho } from "../domain/replay";
import type { AgentKey, PublicJwk } from "../domain/agent-keys";
import { MODEL, type ChangeType, type Outcome, type SignalDimension } from "../domain/model";
import { db, type Database } from "./client";
import { unpackText, type StoredText } from "./entry-text";
import type { Entry, EntryKind } from "../domain/entries";
import { agentKeys, configHistory, transactions } from "./shard-schema";

const PAGE = 5_000;

type TransactionRow = typeof transactions.$inferSelect;
type ConfigRow = typeof configHistory.$inferSelect;

function signalsOf(t: TransactionRow): Partial<Record<SignalDimension, number>> {
  const signals: Partial<Record<SignalDimension, number>> = {};
  if (t.reliabilitySignal !== null) signals.reliability = t.reliabilitySignal;
  if (t.qualitySignal !== null) signals.quality = t.qualitySignal;
  if (t.financialSignal !== null) signals.financial = t.financialSignal;
  if (t.securitySignal !== null) signals.security = t.securitySignal;
  return signals;
}

const changesOf = (c: ConfigRow): ChangeType[] =>
  c.changes ? (JSON.parse(c.changes) as ChangeType[]) : c.changeType ? [c.changeType as ChangeType] : [];

/** Every row of a keyed, ordered query, read page by page. */
async function allPages<T>(read: (after: number) => Promise<T[]>, keyOf: (row: T) => number): Promise<T[]> {
  const rows: T[] = [];
  let after = -1;
  for (;;) {
    const page = await read(after);
    rows.push(...page);
    if (page.length < PAGE) return rows;
    after = keyOf(page[page.length - 1]);
  }
}

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

export type EntrySqlRow = { n: number; kind: EntryKind; at: number; operator: number | null; status: StoredEntry["status"]; ref: number | null; body: StoredText; hash: string; salt: string | null; private: StoredText | null; composite: number | null };

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

/** What the service keeps beside a retention snapshot: each operator's number on the agent, and the owner then. */
export interface SnapshotPrivate {
  operators: Record<string, number>;
  owner: number | null;
}

/** Who an entry names, as the service replays it: its operator, or for a retention snapshot its operators' numbers by id. */
export const whoOf = (e: StoredEntry): EntryWho => (e.kind === "snapshot" ? ((e.private as SnapshotPrivate | null)?.operators ?? null) : e.operator);

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
  const row = await d1.prepare(ENTRY_READ).bind(sid, n - 1, 1).first<EntrySqlRow>();
  return row && row.n === n ? storedEntry(row) : null;
}

/** The newest stored entry of the agent (the head of its chain), or null before its first. */
export async function lastEntry(d1: Database, sid: string): Promise<{ n: number; hash: string } | null> {
  return d1.prepare("SELECT n, hash FROM entries WHERE sid = ? ORDER BY n DESC LIMIT 1").bind(sid).first<{ n: number; hash: string }>();
}

/**
 * The history from the tables before the chain. Rows written before sharding (no sequence number) come first, in the
 * order they were written; their weight's base is recovered from the weight they stored. Rows since
 * come in sequence order.
 */
export async function readLegacyHistory(d1: Database, sid: string): Promise<LegacyItem[]> {
  const d = db(d1);
  const active = eq(transactions.sid, sid);
  const [legacyReports, reports, legacyConfigs, configs] = await Promise.all([
    allPages((after) => d.select().from(transactions).where(and(active, isNull(transactions.seq), gt(transactions.id, after))).orderBy(asc(transactions.id)).limit(PAGE).all(), (t) => t.id),
    allPages((after) => d.select().from(transactions).where(and(active, isNotNull(transactions.seq), gt(transactions.seq, after))).orderBy(asc(transactions.seq)).limit(PAGE).all(), (t) => t.seq!),
    d.select().from(configHistory).where(and(eq(configHistory.sid, sid), isNull(configHistory.seq))).orderBy(asc(configHistory.id)).all(),
    d.select().from(configHistory).where(and(eq(configHistory.sid, sid), isNotNull(configHistory.seq))).orderBy(asc(configHistory.seq)).all(),
  ]);

  const legacy: { at: number; order: number; item: LegacyItem }[] = [];
  const recent = new Map<number, number[]>();
  for (const t of legacyReports) {
    const at = Date.parse(t.createdAt);
    const earlier = (recent.get(t.reporterOperatorId) ?? []).filter((x) => x > at - MODEL.dampingWindowMs);
    legacy.push({ at, order: t.id, item: { ...reportItem(t, t.base ?? legacyBase(t.weight, earlier.length)), row: t } });
    recent.set(t.reporterOperatorId, [...earlier, at]);
  }
  for (const c of legacyConfigs) {
    const changes = changesOf(c);
    if (changes.length > 0) legacy.push({ at: Date.parse(c.createdAt), order: c.id, item: { kind: "config", at: Date.parse(c.createdAt), changes, fingerprint: c.fingerprint } });
  }
  legacy.sort((x, y) => x.at - y.at || x.order - y.order);

  const sequenced: { seq: number; item: LegacyItem }[] = [
    ...reports.map((t) => ({ seq: t.seq!, item: { ...reportItem(t, t.base ?? 0), row: t } })),
    ...configs.filter((c) => changesOf(c).length > 0).map((c) => ({ seq: c.seq!, item: { kind: "config" as const, at: Date.parse(c.createdAt), changes: changesOf(c), fingerprint: c.fingerprint } })),
  ].sort((x, y) => x.seq - y.seq);

  return [...legacy.map((l) => l.item), ...sequenced.map((s) => s.item)];
}

/** A report or configuration change from before the chain; a report with its whole row (type, metadata, status). */
export type LegacyItem = (HistoryItem & { kind: "report"; row: TransactionRow }) | (HistoryItem & { kind: "config"; fingerprint: string });

function reportItem(t: TransactionRow, base: number): HistoryItem & { kind: "report" } {
  return {
    kind: "report",
    id: t.id,
    reporter: t.reporterOperatorId,
    at: Date.parse(t.createdAt),
    outcome: t.outcome as Outcome,
    signals: signalsOf(t),
    base,
    evidenceFactor: t.evidenceFactor,
    penalty: t.penalty,
  };
}

/** The agent's registered keys, as its shard keeps them (an object rebuilding its storage reads them). */
export async function readKeys(d1: Database, sid: string): Promise<AgentKey[]> {
  const rows = await db(d1).select().from(agentKeys).where(eq(agentKeys.sid, sid)).orderBy(asc(agentKeys.addedAt)).all();
  return rows.map((r) => ({ thumbprint: r.thumbprint, jwk: JSON.parse(r.jwk) as PublicJwk, directoryUrl: r.directoryUrl, addedAt: r.addedAt }));
}
