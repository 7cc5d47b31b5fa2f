import type { Database } from "./client";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Scope } from "../domain/scopes";
import type { ApplicationStatus } from "../domain/applications";
import type { Tier } from "../domain/limits";
import { db } from "./client";
import { apiKeys, applications, operators } from "./control-schema";

export const findKey = (d1: Database, keyHash: string) => keyQuery(d1, keyHash).get();

export function keyQuery(d1: Database, keyHash: string) {
  return db(d1)
    .select({
      keyId: apiKeys.id,
      operatorId: apiKeys.operatorId,
      scopes: apiKeys.scopes,
      keyPrefix: apiKeys.prefix,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      operatorName: operators.name,
      verified: operators.verified,
      tier: operators.tier,
      rateLimitPerMinute: operators.rateLimitPerMinute,
      rateLimitPerDay: operators.rateLimitPerDay,
      authEpoch: operators.authEpoch,
    })
    .from(apiKeys)
    .innerJoin(operators, eq(operators.id, apiKeys.operatorId))
    .where(eq(apiKeys.keyHash, keyHash));
}

export async function insertApplication(d1: Database, app: { name: string; email: string; company: string | null; reason: string | null; createdAt: string }) {
  return db(d1).insert(applications).values(app).returning({ id: applications.id }).get();
}

/** One page of applications, oldest first, after application id `afterId`. */
export async function listApplications(d1: Database, status: ApplicationStatus | undefined, afterId: number, limit: number) {
  return db(d1)
    .select()
    .from(applications)
    .where(and(gt(applications.id, afterId), status ? eq(applications.status, status) : undefined))
    .orderBy(asc(applications.id))
    .limit(limit)
    .all();
}

export const getApplication = (d1: Database, id: number) => db(d1).select().from(applications).where(eq(applications.id, id)).get();

/**
 * Approval in one batch (one SQL transaction): the application is marked approved, and the operator
 * and its first key are created with it. The unique operator e-mail makes a racing second approval
 * fail as a whole.
 */
export async function approveApplication(
  d1: Database,
  app: { id: number; name: string; email: string },
  key: { hash: string; prefix: string; scopes: readonly Scope[] },
  now: string,
) {
  const d = db(d1);
  const operatorId = sql<number>`(select ${operators.id} from ${operators} where ${operators.email} = ${app.email})`;
  const [, [operator]] = await d.batch([
    d.update(applications).set({ status: "approved", decidedAt: now }).where(eq(applications.id, app.id)),
    d.insert(operators).values({ name: app.name, email: app.email, createdAt: now }).returning(),
    d.update(applications).set({ operatorId }).where(eq(applications.id, app.id)),
    d.insert(apiKeys).values({
      operatorId,
      keyHash: key.hash,
      prefix: key.prefix,
      scopes: key.scopes.join(" "),
      createdAt: now,
    }),
  ]);
  return operator;
}

/** Undoes an approval whose key could not be delivered: nothing issued, the application pending again. */
export async function undoApproval(d1: Database, applicationId: number, operatorId: number) {
  const d = db(d1);
  await d.batch([
    d.delete(apiKeys).where(eq(apiKeys.operatorId, operatorId)),
    d.update(applications).set({ status: "pending", decidedAt: null, operatorId: null }).where(eq(applications.id, applicationId)),
    d.delete(operators).where(eq(operators.id, operatorId)),
  ]);
}

export async function rejectApplication(d1: Database, id: number, now: string) {
  return db(d1)
    .update(applications)
    .set({ status: "rejected", decidedAt: now })
    .where(and(eq(applications.id, id), eq(applications.status, "pending")))
    .returning()
    .get();
}

export async function updateOperator(
  d1: Database,
  id: number,
  changes: Partial<{ tier: Tier; verified: boolean; rateLimitPerMinute: number | null; rateLimitPerDay: number | null }>,
) {
  const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  if (Object.keys(set).length === 0) return getOperator(d1, id);
  return db(d1)
    .update(operators)
    .set({ ...set, authEpoch: sql`${operators.authEpoch} + 1` })
    .where(eq(operators.id, id))
    .returning()
    .get();
}

export const getOperator = (d1: Database, id: number) => db(d1).select().from(operators).where(eq(operators.id, id)).get();

/** One page of operators, oldest first, after operator id `afterId`. */
export const listOperators = (d1: Database, afterId: number, limit: number) =>
  db(d1).select().from(operators).where(gt(operators.id, afterId)).orderBy(asc(operators.id)).limit(limit).all();
