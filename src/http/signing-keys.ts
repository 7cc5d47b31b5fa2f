import type { Context } from "hono";
import { parseSigningKeys, type SigningKey } from "../domain/attestations";
import { errors } from "../domain/errors";
import type { AppEnv } from "./context";

const keysOf = new WeakMap<object, Promise<Awaited<ReturnType<typeof parseSigningKeys>>>>();

/**
 * The service's signing keys (ATTESTATION_KEYS: attestations, log promises, status lists, credentials), parsed once per
 * isolate; 503 when the secret is missing or invalid.
 */
export async function signingKeys(c: Context<AppEnv>): Promise<SigningKey[]> {
  let parsed = keysOf.get(c.env);
  if (!parsed) keysOf.set(c.env, (parsed = parseSigningKeys(c.env.ATTESTATION_KEYS)));
  const keys = await parsed;
  if (!keys.ok) {
    console.error(JSON.stringify({ level: "error", message: "signing disabled", problem: keys.problem, request_id: c.get("requestId") }));
    throw errors.attestationsNotConfigured();
  }
  return keys.keys;
}
