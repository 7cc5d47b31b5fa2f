// The agent directory in the control database: which shard each agent lives on, and its number.

import { and, asc, count, eq, gt, sql } from "drizzle-orm";
import { FIRST_DIRECTORY_NUMBER } from "../domain/agent";
import { db, type Database } from "./client";
import { agentDirectory } from "./control-schema";

export type DirectoryEntry = typeof agentDirectory.$inferSelect;

/** Enters a new agent; its number is the next free one, taken in the same statement. */
export async function enterAgent(d1: Database, entry: { sid: string; shard: number; log: number; operatorId: number | null; createdAt: string }) {
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
