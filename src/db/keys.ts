import type { Database } from "./client";
import { and, asc, count, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import type { Scope } from "../domain/scopes";
import { db } from "./client";
import { apiKeys, operators } from "./control-schema";

export type KeyRow = typeof apiKeys.$inferSelect;

export async function insertKey(d1: Database, k: { operatorId: number; hash: string; prefix: string; scopes: readonly Scope[]; now: string }) {
  return db(d1)
    .insert(apiKeys)
    .values({ operatorId: k.operatorId, keyHash: k.hash, prefix: k.prefix, scopes: k.scopes.join(" "), createdAt: k.now })
    .returning()
    .get();
}

/**
 * Rotation in one batch: the new key is created and the calling key gets its end of grace (kept if
 * it already had an earlier one, so rotating twice never extends an old key's life).
 */
export async function rotateKey(
  d1: Database,
  current: { keyId: number; operatorId: number },
  next: { hash: string; prefix: string; scopes: readonly Scope[] },
  now: string,
  graceEnds: string,
) {
  const d = db(d1);
  const [[created], [old], [operator]] = await d.batch([
    d
      .insert(apiKeys)
      .values({ operatorId: current.operatorId, keyHash: next.hash, prefix: next.prefix, scopes: next.scopes.join(" "), createdAt: now })
      .returning(),
    d
      .update(apiKeys)
      .set({ expiresAt: sql`coalesce(min(${apiKeys.expiresAt}, ${graceEnds}), ${graceEnds})` })
      .where(eq(apiKeys.id, current.keyId))
      .returning(),
    bumpEpoch(d1, current.operatorId),
  ]);
  return { created, old, epoch: operator.authEpoch };
}

/** One page of the operator's keys, oldest first, after key id `afterId`. */
export const listKeys = (d1: Database, operatorId: number, afterId: number, limit: number) =>
  db(d1)
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.operatorId, operatorId), gt(apiKeys.id, afterId)))
    .orderBy(asc(apiKeys.id))
    .limit(limit)
    .all();

/** Takes back a key that was never delivered (its e-mail failed). */
export const deleteKey = (d1: Database, keyId: number) => db(d1).delete(apiKeys).where(eq(apiKeys.id, keyId)).run();

/** Revokes every other key of the operator at once (admin recovery), and marks cached facts stale. */
export async function revokeOtherKeys(d1: Database, operatorId: number, keepKeyId: number, now: string) {
  const d = db(d1);
  const [revoked, [operator]] = await d.batch([
    d
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.operatorId, operatorId), ne(apiKeys.id, keepKeyId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id }),
    bumpEpoch(d1, operatorId),
  ]);
  return { revoked: revoked.length, epoch: operator.authEpoch };
}

/**
 * Revokes one of the operator's keys at once, unless it would leave the operator without a key
 * that lasts (valid, not revoked, not in a rotation grace period): checked in the same statement.
 */
export async function revokeKey(d1: Database, operatorId: number, keyId: number, now: string) {
  const d = db(d1);
  const [[revoked], [operator]] = await d.batch([revokeStatement(d1, operatorId, keyId, now), bumpEpoch(d1, operatorId)]);
  return { revoked, epoch: operator.authEpoch };
}

/**
 * An admin's revocation of one of the operator's keys, its last lasting key included (an admin can
 * issue a recovery key); how many of the operator's keys still authenticate at `now`.
 */
export async function revokeKeyByAdmin(d1: Database, operatorId: number, keyId: number, now: string) {
  const d = db(d1);
  const [[revoked], [operator], [left]] = await d.batch([
    d
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.operatorId, operatorId), isNull(apiKeys.revokedAt)))
      .returning(),
    bumpEpoch(d1, operatorId),
    d
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.operatorId, operatorId), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)))),
  ]);
  return { revoked, epoch: operator?.authEpoch, validKeys: left.n };
}

/** Marks cached facts about the operator's keys stale (see src/http/key-cache.ts). */
const bumpEpoch = (d1: Database, operatorId: number) =>
  db(d1)
    .update(operators)
    .set({ authEpoch: sql`${operators.authEpoch} + 1` })
    .where(eq(operators.id, operatorId))
    .returning({ authEpoch: operators.authEpoch });

function revokeStatement(d1: Database, operatorId: number, keyId: number, now: string) {
  return db(d1)
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(
      and(
        eq(apiKeys.id, keyId),
        eq(apiKeys.operatorId, operatorId),
        isNull(apiKeys.revokedAt),
        sql`exists (select 1 from ${apiKeys} k where k.operator_id = ${operatorId} and k.id != ${keyId}
              and k.revoked_at is null and k.expires_at is null)`,
      ),
    )
    .returning();
}

export const getKey = (d1: Database, operatorId: number, keyId: number) =>
  db(d1)
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.operatorId, operatorId)))
    .get();
