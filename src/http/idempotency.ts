import type { Context } from "hono";
import { and, eq, gt } from "drizzle-orm";
import { db } from "../db/client";
import { idempotencyRecords } from "../db/schema";
import { IDEMPOTENCY_TTL_MS, type Idempotency } from "../durable/agent-scorer";
import { ApiError, errors } from "../domain/errors";
import { sha256Hex } from "../domain/identifiers";
import type { AppEnv } from "./context";


/** The request's Idempotency-Key (1-255 characters) and a hash of what it asks for. */
export async function idempotencyOf(c: Context<AppEnv>, input: unknown): Promise<Idempotency | undefined> {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return undefined;
  if (key.length < 1 || key.length > 255) throw errors.invalid("Idempotency-Key must be 1-255 characters");
  return { key, requestHash: await sha256Hex(`${c.req.method} ${c.req.path}\n${JSON.stringify(input)}`) };
}

/**
 * The first response recorded under this key within 24 hours, to replay; a different request under
 * the same key is refused with 422.
 */
export async function recorded<T>(
  c: Context<AppEnv>,
  operatorId: number,
  idem: Idempotency | undefined,
  // After losing a race, the winner's record was just written: read it from the primary.
  from: "session" | "primary" = "session",
) {
  if (!idem) return null;
  const since = new Date(c.get("deps").now() - IDEMPOTENCY_TTL_MS).toISOString();
  const database = from === "primary" ? c.env.DB.withSession("first-primary") : c.get("db");
  const row = await db(database)
    .select()
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.operatorId, operatorId), eq(idempotencyRecords.key, idem.key), gt(idempotencyRecords.createdAt, since)))
    .get();
  if (!row) return null;
  if (row.requestHash !== idem.requestHash) {
    throw new ApiError("idempotency_mismatch", "Idempotency-Key was already used with a different request");
  }
  return { status: row.status, result: JSON.parse(row.response) as T };
}
