import type { Database } from "./client";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { db } from "./client";
import { agents, challenges } from "./schema";

export async function insertChallenge(d1: Database, c: { sid: string; tokenHash: string; now: number; ttlSeconds: number }) {
  await db(d1)
    .insert(challenges)
    .values({
      sid: c.sid,
      tokenHash: c.tokenHash,
      createdAt: new Date(c.now).toISOString(),
      expiresAt: new Date(c.now + c.ttlSeconds * 1000).toISOString(),
    });
}

export async function invalidateChallenge(d1: Database, tokenHash: string, now: number) {
  await db(d1).update(challenges).set({ usedAt: new Date(now).toISOString() }).where(eq(challenges.tokenHash, tokenHash));
}

/**
 * Consumes an unexpired, unused token of this agent and raises the agent to level 1, in one batch:
 * the level rises only if this very statement consumed the token, so a token works once even when
 * two confirmations race.
 */
export async function confirmChallenge(d1: Database, sid: string, tokenHash: string, now: number): Promise<boolean> {
  const d = db(d1);
  const nowIso = new Date(now).toISOString();
  const [consumed] = await d.batch([
    d
      .update(challenges)
      .set({ usedAt: nowIso })
      .where(and(eq(challenges.sid, sid), eq(challenges.tokenHash, tokenHash), isNull(challenges.usedAt), gt(challenges.expiresAt, nowIso)))
      .returning({ id: challenges.id }),
    d
      .update(agents)
      .set({ identityLevel: sql`max(${agents.identityLevel}, 1)` })
      .where(
        and(
          eq(agents.sid, sid),
          sql`exists (select 1 from ${challenges} where ${challenges.tokenHash} = ${tokenHash} and ${challenges.usedAt} = ${nowIso})`,
        ),
      ),
  ]);
  return consumed.length === 1;
}
