// An agent's history as the scoring model replays it: its reports (withdrawn ones left out) and its
// configuration changes, in the order they were applied.

import { and, asc, eq, gt, isNotNull, isNull, ne } from "drizzle-orm";
import { legacyBase, type HistoryItem } from "../domain/agent";
import type { AgentKey, PublicJwk } from "../domain/agent-keys";
import { MODEL, type ChangeType, type Outcome, type SignalDimension } from "../domain/model";
import { db, type Database } from "./client";
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

/**
 * The history from the shard. Rows written before sharding (no sequence number) come first, in the
 * order they were written; their weight's base is recovered from the weight they stored. Rows since
 * come in sequence order.
 */
export async function readHistory(d1: Database, sid: string): Promise<HistoryItem[]> {
  const d = db(d1);
  const active = and(eq(transactions.sid, sid), ne(transactions.status, "withdrawn"));
  const [legacyReports, reports, legacyConfigs, configs] = await Promise.all([
    allPages((after) => d.select().from(transactions).where(and(active, isNull(transactions.seq), gt(transactions.id, after))).orderBy(asc(transactions.id)).limit(PAGE).all(), (t) => t.id),
    allPages((after) => d.select().from(transactions).where(and(active, isNotNull(transactions.seq), gt(transactions.seq, after))).orderBy(asc(transactions.seq)).limit(PAGE).all(), (t) => t.seq!),
    d.select().from(configHistory).where(and(eq(configHistory.sid, sid), isNull(configHistory.seq))).orderBy(asc(configHistory.id)).all(),
    d.select().from(configHistory).where(and(eq(configHistory.sid, sid), isNotNull(configHistory.seq))).orderBy(asc(configHistory.seq)).all(),
  ]);

  const legacy: { at: number; order: number; item: HistoryItem }[] = [];
  const recent = new Map<number, number[]>();
  for (const t of legacyReports) {
    const at = Date.parse(t.createdAt);
    const earlier = (recent.get(t.reporterOperatorId) ?? []).filter((x) => x > at - MODEL.dampingWindowMs);
    legacy.push({ at, order: t.id, item: reportItem(t, t.base ?? legacyBase(t.weight, earlier.length)) });
    recent.set(t.reporterOperatorId, [...earlier, at]);
  }
  for (const c of legacyConfigs) {
    const changes = changesOf(c);
    if (changes.length > 0) legacy.push({ at: Date.parse(c.createdAt), order: c.id, item: { kind: "config", at: Date.parse(c.createdAt), changes } });
  }
  legacy.sort((x, y) => x.at - y.at || x.order - y.order);

  const sequenced: { seq: number; item: HistoryItem }[] = [
    ...reports.map((t) => ({ seq: t.seq!, item: reportItem(t, t.base ?? 0) })),
    ...configs.filter((c) => changesOf(c).length > 0).map((c) => ({ seq: c.seq!, item: { kind: "config" as const, at: Date.parse(c.createdAt), changes: changesOf(c) } })),
  ].sort((x, y) => x.seq - y.seq);

  return [...legacy.map((l) => l.item), ...sequenced.map((s) => s.item)];
}

function reportItem(t: TransactionRow, base: number): HistoryItem {
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
