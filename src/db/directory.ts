// The agent directory in the control database: which shard each agent lives on, and its number.

import { and, asc, count, eq, gt, isNull, sql } from "drizzle-orm";
import { FIRST_DIRECTORY_NUMBER } from "../domain/agent";
import { db, type Database } from "./client";
import { agentDirectory } from "./control-schema";
import { inJson } from "./json-rows";

export type DirectoryEntry = typeof agentDirectory.$inferSelect;

/** Enters a new agent; its number is the next free one, taken in the same statement. */
export async function enterAgent(
  d1: Database,
  entry: { sid: string; shard: number; log: number; operatorId: number | null; createdAt: string; statusList?: number; statusIdx?: number },
) {
  const next = sql<number>`(select coalesce(max(${agentDirectory.num}), ${FIRST_DIRECTORY_NUMBER - 1}) + 1 from ${agentDirectory})`;
  return db(d1)
    .insert(agentDirectory)
    .values({ num: next, ...entry })
    .returning()
    .get();
}

// The hottest control read (every request naming an agent, on a cache miss): constant SQL.
export const BY_SID = "SELECT num, sid, shard, operator_id AS operatorId, created_at AS createdAt, log FROM agent_directory WHERE sid = ?";
export const findAgent = (d1: Database, sid: string) => d1.prepare(BY_SID).bind(sid).first<DirectoryEntry>();

export const findAgentByNumber = (d1: Database, num: number) => db(d1).select().from(agentDirectory).where(eq(agentDirectory.num, num)).get();

/** One page of the operator's agents, in registration order, after directory number `afterNum`. */
export const operatorAgentsQuery = (d1: Database, operatorId: number, afterNum: number, limit: number) =>
  db(d1)
    .select()
    .from(agentDirectory)
    .where(and(eq(agentDirectory.operatorId, operatorId), gt(agentDirectory.num, afterNum)))
    .orderBy(asc(agentDirectory.num))
    .limit(limit);
export const listOperatorAgents = (d1: Database, operatorId: number, afterNum: number, limit: number) =>
  operatorAgentsQuery(d1, operatorId, afterNum, limit).all();

export async function countOperatorAgents(d1: Database, operatorId: number): Promise<number> {
  const row = await db(d1).select({ n: count() }).from(agentDirectory).where(eq(agentDirectory.operatorId, operatorId)).get();
  return row?.n ?? 0;
}

/** How many agents each shard holds (placement and the capacity figures). */
export const agentsPerShard = (d1: Database) =>
  db(d1).select({ shard: agentDirectory.shard, agents: count() }).from(agentDirectory).groupBy(agentDirectory.shard).all();

/** Where an agent is in the status lists: null when it is not listed yet. */
export async function statusEntryOf(d1: Database, sid: string): Promise<{ list: number; idx: number } | null> {
  const row = await d1
    .prepare("SELECT status_list AS list, status_idx AS idx FROM agent_directory WHERE sid = ?")
    .bind(sid)
    .first<{ list: number | null; idx: number | null }>();
  return row && row.list !== null && row.idx !== null ? { list: row.list, idx: row.idx } : null;
}

/** Places a listed agent; false when it had a place already (which stays: a place never changes). */
export async function setStatusEntry(d1: Database, sid: string, list: number, idx: number): Promise<boolean> {
  const out = await d1.prepare("UPDATE agent_directory SET status_list = ?, status_idx = ? WHERE sid = ? AND status_list IS NULL").bind(list, idx, sid).run();
  return out.meta.changes === 1;
}

/** The highest list any agent is in (0 when none is): new agents go there until it is full. */
export async function highestStatusList(d1: Database): Promise<number> {
  const row = await d1.prepare("SELECT coalesce(max(status_list), 0) AS n FROM agent_directory").first<{ n: number }>();
  return row?.n ?? 0;
}

/** Status entries of these agents (the listed ones). */
export async function statusEntriesOf(d1: Database, sids: string[]): Promise<Map<string, { list: number; idx: number }>> {
  if (sids.length === 0) return new Map();
  const rows = await db(d1)
    .select({ sid: agentDirectory.sid, list: agentDirectory.statusList, idx: agentDirectory.statusIdx })
    .from(agentDirectory)
    .where(inJson(agentDirectory.sid, sids))
    .all();
  return new Map(rows.flatMap((r) => (r.list === null || r.idx === null ? [] : [[r.sid, { list: r.list, idx: r.idx }] as const])));
}

/** One page of agents not listed yet, in directory order after `afterNum` (the backfill). */
/** How many agents have no place in the status lists yet, after directory number `afterNum`. */
export const countUnlisted = async (d1: Database, afterNum: number) =>
  (
    await db(d1)
      .select({ n: count() })
      .from(agentDirectory)
      .where(and(isNull(agentDirectory.statusList), gt(agentDirectory.num, afterNum)))
      .get()
  )?.n ?? 0;

export const unlistedAgents = (d1: Database, afterNum: number, limit: number) =>
  db(d1)
    .select()
    .from(agentDirectory)
    .where(and(isNull(agentDirectory.statusList), gt(agentDirectory.num, afterNum)))
    .orderBy(asc(agentDirectory.num))
    .limit(limit)
    .all();

/** Every agent in the directory (the sweep's total). */
export async function countAgents(d1: Database): Promise<number> {
  const row = await db(d1).select({ n: count() }).from(agentDirectory).get();
  return row?.n ?? 0;
}

/** One page of the whole directory in number order, after `afterNum` (the sweep's). */
export const agentsAfter = (d1: Database, afterNum: number, limit: number) =>
  db(d1).select().from(agentDirectory).where(gt(agentDirectory.num, afterNum)).orderBy(asc(agentDirectory.num)).limit(limit).all();
