import type { Context } from "hono";
import { and, eq, gt } from "drizzle-orm";
import { db } from "../db/client";
import { idempotencyRecords } from "../db/schema";
import { errors, refusalError } from "../domain/errors";
import { sha256Hex } from "../domain/identifiers";
import { IDEMPOTENCY_TTL_MS, type Idempotency } from "../domain/idempotency";
import type { Result } from "../domain/results";
import type { AppEnv } from "./context";

/**
 * The one path of an idempotent change: hash the request, replay a recorded answer, else run the
 * change (which records its answer atomically with itself), and when a concurrent request with the
 * same key won the race, replay the winner's answer.
 */
export async function idempotent<T>(
  c: Context<AppEnv>,
  operatorId: number,
  input: unknown,
  run: (idempotency: Idempotency | undefined) => Promise<Result<T>>,
): Promise<Result<T>> {
  const idempotency = await idempotencyOf(c, input);
  const replay = await recorded<T>(c, operatorId, idempotency, "session");
  if (replay) return replay;
  const out = await run(idempotency);
  if (out.ok || out.refusal !== "idempotency_conflict") return out;
  return (await recorded<T>(c, operatorId, idempotency, "primary")) ?? out;
}

/** The request's Idempotency-Key (1-255 characters) and a hash of what it asks for. */
async function idempotencyOf(c: Context<AppEnv>, input: unknown): Promise<Idempotency | undefined> {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return undefined;
  if (key.length < 1 || key.length > 255) throw errors.badIdempotencyKey();
  return { key, requestHash: await sha256Hex(`${c.req.method} ${c.req.path}\n${JSON.stringify(input)}`) };
}

/**
 * The first answer recorded under this key within 24 hours, to replay; a different request under
 * the same key is refused with 422.
 */
async function recorded<T>(
  c: Context<AppEnv>,
  operatorId: number,
  idem: Idempotency | undefined,
  // After losing a race, the winner's record was just written: read it from the primary.
  from: "session" | "primary",
): Promise<Result<T> | null> {
  if (!idem) return null;
  const since = new Date(c.get("deps").now() - IDEMPOTENCY_TTL_MS).toISOString();
  const database = from === "primary" ? c.env.DB.withSession("first-primary") : c.get("db");
  const row = await db(database)
    .select()
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.operatorId, operatorId), eq(idempotencyRecords.key, idem.key), gt(idempotencyRecords.createdAt, since)))
    .get();
  if (!row) return null;
  if (row.requestHash !== idem.requestHash) throw refusalError("idempotency_mismatch");
  return { ok: true, result: JSON.parse(row.response) as T, bookmark: null };
}
