// Disputes as the control database lists them (the agents' objects write them), and as an agent's
// shard keeps them (its object's own reads).

import { and, asc, eq, gt, inArray, or } from "drizzle-orm";
import type { Dispute, DisputeStatus } from "../domain/disputes";
import { db, type Database } from "./client";
import { disputes } from "./control-schema";

export const getDispute = (d1: Database, id: number): Promise<Dispute | undefined> => db(d1).select().from(disputes).where(eq(disputes.id, id)).get();

/** One page of an operator's disputes: as the agent's owner, as the reporter, or both; oldest first. */
export function listDisputes(
  d1: Database,
  operatorId: number,
  filter: { role?: "owner" | "reporter"; status?: DisputeStatus },
  afterId: number,
  limit: number,
): Promise<Dispute[]> {
  const side =
    filter.role === "owner"
      ? eq(disputes.ownerOperatorId, operatorId)
      : filter.role === "reporter"
        ? eq(disputes.reporterOperatorId, operatorId)
        : or(eq(disputes.ownerOperatorId, operatorId), eq(disputes.reporterOperatorId, operatorId));
  return db(d1)
    .select()
    .from(disputes)
    .where(and(side, filter.status ? eq(disputes.status, filter.status) : undefined, gt(disputes.id, afterId)))
    .orderBy(asc(disputes.id))
    .limit(limit)
    .all();
}

/** The admins' queue: disputes by status, oldest first. */
export const disputesByStatus = (d1: Database, status: DisputeStatus | undefined, afterId: number, limit: number): Promise<Dispute[]> =>
  db(d1)
    .select()
    .from(disputes)
    .where(and(status ? eq(disputes.status, status) : undefined, gt(disputes.id, afterId)))
    .orderBy(asc(disputes.id))
    .limit(limit)
    .all();

/** The agent's disputes not yet resolved (the report view shows them). */
export const unresolvedDisputes = (d1: Database, sid: string): Promise<Dispute[]> =>
  db(d1)
    .select()
    .from(disputes)
    .where(and(eq(disputes.sid, sid), inArray(disputes.status, ["open", "escalated"])))
    .orderBy(asc(disputes.id))
    .all();

/** Every dispute of the agent, as its shard keeps them (the object's record of them). */
export async function shardDisputes(d1: Database, sid: string): Promise<Dispute[]> {
  const { results } = await d1.prepare("SELECT dispute FROM disputes WHERE sid = ? ORDER BY id").bind(sid).all<{ dispute: string }>();
  return results.map((r) => JSON.parse(r.dispute) as Dispute);
}
