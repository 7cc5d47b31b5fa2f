// Checks an attestation the way a relying party does offline: the compact JWS against the service's
// published keys (JWKS), then its claims against the issuer it must come from and the time. Pure:
// the keys, the issuer and the clock are given.

import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from "jose";
import { ATTESTATION_TYPE } from "./attestations";
import { SID_PATTERN } from "./identifiers";

/** Clocks differ: an `iat` this far ahead of ours is still taken as issued now. */
export const CLOCK_SKEW_S = 60;
/** Far more than an attestation's few hundred characters; past it the input is refused unread. */
export const MAX_ATTESTATION_LENGTH = 8192;

export interface AttestationCheck {
  valid: boolean;
  /** Why it is not valid; null when it is. */
  reason: string | null;
  /** The signing key's id, once the header names one of the published keys. */
  kid: string | null;
  /** The claims, once the signature holds (also when they then fail a check, to show why). */
  claims: Record<string, unknown> | null;
}

export interface AttestationExpectations {
  /** The service's origin: the only accepted `iss`. */
  issuer: string;
  /** Now, in milliseconds. */
  now: number;
  /** The agent the relying party deals with: `sub` must name it. */
  sid?: string;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const refused = (reason: string, kid: string | null = null, claims: Record<string, unknown> | null = null): AttestationCheck => ({
  valid: false,
  reason,
  kid,
  claims,
});

/** Verifies `jws` against `keys` (the service's JWKS) and checks its claims; says why when it fails. */
export async function checkAttestation(jws: string, keys: readonly JWK[], expect: AttestationExpectations): Promise<AttestationCheck> {
  if (!COMPACT_JWS.test(jws)) return refused("not a compact JWS: three base64url parts separated by dots");
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    return refused("the protected header is not base64url-encoded JSON");
  }
  if (header.typ !== ATTESTATION_TYPE) return refused(`typ must be ${ATTESTATION_TYPE}, not ${JSON.stringify(header.typ ?? null)}`);
  if (header.alg !== "EdDSA") return refused(`alg must be EdDSA, not ${JSON.stringify(header.alg ?? null)}`);
  const kid = typeof header.kid === "string" ? header.kid : null;
  if (kid === null) return refused("the header names no kid");
  const jwk = keys.find((k) => k.kid === kid);
  if (!jwk) return refused(`kid ${JSON.stringify(kid)} is not one of the service's published keys (it may have been rotated out)`);

  let payload: Uint8Array;
  try {
    const key = await importJWK({ ...jwk, alg: "EdDSA" }, "EdDSA");
    ({ payload } = await compactVerify(jws, key, { algorithms: ["EdDSA"] }));
  } catch {
    return refused("the signature does not verify with the published key", kid);
  }
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return refused("the payload is not JSON", kid);
  }
  if (typeof claims !== "object" || claims === null || Array.isArray(claims)) return refused("the payload is not a JSON object", kid);
  const c = claims as Record<string, unknown>;
  const problem = claimProblem(c, expect);
  return problem ? refused(problem, kid, c) : { valid: true, reason: null, kid, claims: c };
}

function claimProblem(c: Record<string, unknown>, expect: AttestationExpectations): string | null {
  if (c.iss !== expect.issuer) return `issued by ${JSON.stringify(c.iss ?? null)}, not by this service (${expect.issuer})`;
  if (typeof c.sub !== "string" || !SID_PATTERN.test(c.sub)) return "sub is not a SID";
  if (expect.sid !== undefined && c.sub !== expect.sid) return `issued for ${c.sub}, not for ${expect.sid}`;
  if (typeof c.iat !== "number" || typeof c.exp !== "number") return "iat and exp must be numbers (Unix seconds)";
  const nowS = expect.now / 1000;
  if (c.iat > nowS + CLOCK_SKEW_S) return `issued in the future (iat ${new Date(c.iat * 1000).toISOString()})`;
  if (nowS >= c.exp) return `expired at ${new Date(c.exp * 1000).toISOString()}`;
  return null;
}
