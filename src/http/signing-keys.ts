import type { Context } from "hono";
import { parseSigningKeys, type SigningKey } from "../domain/attestations";
import { errors } from "../domain/errors";
import type { AppEnv } from "./context";

// The service's signing keys (ATTESTATION_KEYS): attestations, status lists and credentials.

const keysOf = new WeakMap<object, Promise<Awaited<ReturnType<typeof parseSigningKeys>>>>();

/** The signing keys, parsed once per isolate; 503 when ATTESTATION_KEYS is missing or invalid. */
export async function signingKeys(c: Context<AppEnv>): Promise<SigningKey[]> {
  let parsed = keysOf.get(c.env);
  if (!parsed) keysOf.set(c.env, (parsed = parseSigningKeys(c.env.ATTESTATION_KEYS)));
  const keys = await parsed;
  if (!keys.ok) {
    console.error(JSON.stringify({ level: "error", message: "attestations disabled", problem: keys.problem, request_id: c.get("requestId") }));
    throw errors.attestationsNotConfigured();
  }
  return keys.keys;
}
