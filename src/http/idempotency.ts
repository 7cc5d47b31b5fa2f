import type { Context } from "hono";
import { errors } from "../domain/errors";
import { sha256Hex } from "../domain/identifiers";
import type { Idempotency } from "../domain/idempotency";
import type { Result } from "../domain/results";
import type { AppEnv } from "./context";

/**
 * The one path of an idempotent change: the request's Idempotency-Key (1-255 characters) and a hash
 * of what it asks for (method, path, validated body) go to the agent's object, which replays the
 * answer recorded under that key for the calling operator on that agent, refuses a different request
 * under it (422), or runs the change and records its answer in the same storage transaction. The
 * object serialises every change of its agent, so two requests with one key can never both run.
 */
export async function idempotent<T>(c: Context<AppEnv>, input: unknown, run: (idempotency: Idempotency | undefined) => Promise<Result<T>>): Promise<Result<T>> {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return run(undefined);
  if (key.length < 1 || key.length > 255) throw errors.badIdempotencyKey();
  return run(await idempotencyOf(key, `${c.req.method} ${c.req.path}`, input));
}

/**
 * The idempotency of one request for `target` (method and path): its key and the hash of what it asks.
 * A report in a batch is hashed as the `POST /transactions` it could have been sent as, so the same key
 * names the same report whichever way (single, batch, MCP) it came.
 */
export const idempotencyOf = async (key: string, target: string, input: unknown): Promise<Idempotency> => ({
  key,
  requestHash: await sha256Hex(`${target}\n${JSON.stringify(input)}`),
});
