// Receipts: a compact JWS an agent signs for a counterpart, proving an interaction happened. A
// valid receipt makes the counterpart's report weigh 1.5x; an invalid one never takes weight away.

import { compactVerify, decodeProtectedHeader, importJWK, type CompactVerifyResult } from "jose";
import type { AgentKey } from "./agent-keys";

export const RECEIPT_TYPE = "trust-receipt+jwt";
/** A receipt is accepted up to this long after it was issued. */
export const RECEIPT_MAX_AGE_MS = 24 * 3_600_000;
/** Clocks differ: a receipt issued this much in the future is still accepted. */
const CLOCK_SKEW_MS = 60_000;
export const MAX_RECEIPT_LENGTH = 4096;

export const RECEIPT_REFUSALS = [
  "malformed",
  "wrong_type",
  "unknown_key",
  "bad_signature",
  "wrong_subject",
  "wrong_audience",
  "missing_jti",
  "too_old",
  "issued_in_the_future",
  "reused",
] as const;
export type ReceiptRefusal = (typeof RECEIPT_REFUSALS)[number];

/** `forgetAt`: once past it, any receipt with this jti is refused as too old, so its jti need not be kept. */
export type ReceiptCheck = { accepted: true; jti: string; keyThumbprint: string; forgetAt: number } | { accepted: false; reason: ReceiptRefusal };

const decoder = new TextDecoder();

/**
 * Checks a receipt's signature and claims for a report on agent `sid` by operator `reporter` at
 * `now`: signed with EdDSA by one of the agent's keys (the `kid` one, or any), `typ`
 * trust-receipt+jwt, `sub` the SID, `aud` the reporter's id as a string, a `jti`, `iat` within 24
 * hours. Single use of the `jti` is the caller's (the agent's object keeps the ones it has seen).
 */
export async function checkReceipt(receipt: string, input: { sid: string; reporter: number; keys: AgentKey[]; now: number }): Promise<ReceiptCheck> {
  const refuse = (reason: ReceiptRefusal): ReceiptCheck => ({ accepted: false, reason });
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(receipt);
  } catch {
    return refuse("malformed");
  }
  if (header.alg !== "EdDSA" || header.typ !== RECEIPT_TYPE) return refuse("wrong_type");
  const candidates = header.kid === undefined ? input.keys : input.keys.filter((k) => k.thumbprint === header.kid);
  if (candidates.length === 0) return refuse("unknown_key");
  let verified: { result: CompactVerifyResult; key: AgentKey } | null = null;
  for (const key of candidates) {
    try {
      const publicKey = await importJWK({ ...key.jwk, alg: "EdDSA" }, "EdDSA");
      verified = { result: await compactVerify(receipt, publicKey, { algorithms: ["EdDSA"] }), key };
      break;
    } catch {
      // The next key, or a bad signature.
    }
  }
  if (!verified) return refuse("bad_signature");
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(decoder.decode(verified.result.payload)) as Record<string, unknown>;
  } catch {
    return refuse("malformed");
  }
  if (typeof claims !== "object" || claims === null) return refuse("malformed");
  if (claims.sub !== input.sid) return refuse("wrong_subject");
  const aud = claims.aud;
  const audience = String(input.reporter);
  if (!(aud === audience || (Array.isArray(aud) && aud.includes(audience)))) return refuse("wrong_audience");
  if (typeof claims.jti !== "string" || claims.jti.length < 1 || claims.jti.length > 255) return refuse("missing_jti");
  if (typeof claims.iat !== "number" || !Number.isFinite(claims.iat)) return refuse("malformed");
  const issued = claims.iat * 1000;
  if (issued > input.now + CLOCK_SKEW_MS) return refuse("issued_in_the_future");
  if (input.now - issued > RECEIPT_MAX_AGE_MS) return refuse("too_old");
  // Refused as too old from iat + 24 h on; a minute more for the clocks of other isolates.
  return { accepted: true, jti: claims.jti, keyThumbprint: verified.key.thumbprint, forgetAt: issued + RECEIPT_MAX_AGE_MS + CLOCK_SKEW_MS };
}
