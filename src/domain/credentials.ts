// Selective-disclosure trust credentials: an SD-JWT VC (RFC 9901 SD-JWT, draft-ietf-oauth-sd-jwt-vc)
// about one agent, bound to its proven key, every trust claim disclosable on its own, so the agent
// shows a relying party only what it asks (a key-binding JWT over the party's nonce and audience
// makes a stolen credential useless). Issued with @sd-jwt/sd-jwt-vc.

import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import type { SigningKey } from "./attestations";
import { DIMENSIONS, type Dimension } from "./model";
import type { PublicJwk } from "./agent-keys";
import { base64url, type StatusPointer } from "./status-list";

export const CREDENTIAL_TYPE = "dc+sd-jwt";
export const CREDENTIAL_LIFETIME_S = 24 * 3_600;
/** The credential type (`vct`) at the service's origin. */
export const CREDENTIAL_VCT_PATH = "/credentials/agent-trust/v1";
/** `composite_at_least` lists each of these the composite reaches, each element disclosable alone. */
export const COMPOSITE_THRESHOLDS = [600, 700, 800] as const;
/** The claims the agent may disclose one by one. */
export const DISCLOSABLE_CLAIMS = [
  "composite_score",
  ...DIMENSIONS,
  "recommendation",
  "confidence",
  "identity_level",
  "operator_name",
  "open_disputes",
  "no_caution",
] as const;

export interface CredentialFacts {
  origin: string;
  sid: string;
  now: number;
  composite: number;
  dimensions: Record<Dimension, number>;
  recommendation: string;
  confidence: string;
  identityLevel: number;
  operatorName: string | null;
  openDisputes: number;
  /** The agent's proven key: the credential's holder key (`cnf.jwk`). */
  jwk: PublicJwk;
  status: StatusPointer;
}

export const vctOf = (origin: string) => `${origin}${CREDENTIAL_VCT_PATH}`;

/**
 * The credential's claims and what of them is disclosable. Every credential has the same number of
 * digests whatever the agent's standing: a threshold not reached and an absent `no_caution` are
 * decoy digests, so what the agent withholds cannot be counted.
 */
export function credentialClaims(f: CredentialFacts) {
  const iat = Math.floor(f.now / 1000);
  const met = COMPOSITE_THRESHOLDS.filter((t) => f.composite >= t);
  const noCaution = f.recommendation !== "caution";
  const payload = {
    iss: f.origin,
    sub: f.sid,
    iat,
    exp: iat + CREDENTIAL_LIFETIME_S,
    vct: vctOf(f.origin),
    cnf: { jwk: f.jwk },
    status: { status_list: f.status },
    composite_score: f.composite,
    ...f.dimensions,
    recommendation: f.recommendation,
    confidence: f.confidence,
    identity_level: f.identityLevel,
    operator_name: f.operatorName,
    open_disputes: f.openDisputes,
    composite_at_least: met,
    ...(noCaution ? { no_caution: true as const } : {}),
  };
  const disclosable = DISCLOSABLE_CLAIMS.filter((claim) => claim !== "no_caution" || noCaution);
  const frame = {
    _sd: disclosable,
    _sd_decoy: DISCLOSABLE_CLAIMS.length - disclosable.length,
    composite_at_least: { _sd: met.map((_, i) => i), _sd_decoy: COMPOSITE_THRESHOLDS.length - met.length },
  };
  return { payload, frame };
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** The SD-JWT VC (`<jwt>~<disclosure>~…~`), signed with `key`. */
export async function issueCredential(f: CredentialFacts, key: SigningKey): Promise<string> {
  const privateKey = await crypto.subtle.importKey("jwk", key.privateJwk as JsonWebKey, { name: "Ed25519" }, false, ["sign"]);
  const issuer = new SDJwtVcInstance({
    hasher: async (data) => new Uint8Array(await crypto.subtle.digest("SHA-256", typeof data === "string" ? utf8(data) : data)),
    hashAlg: "sha-256",
    saltGenerator: (length) => base64url(crypto.getRandomValues(new Uint8Array(length))),
    signer: async (data) => base64url(new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, privateKey, utf8(data)))),
    signAlg: "EdDSA",
  });
  const { payload, frame } = credentialClaims(f);
  return issuer.issue(payload, frame as never, { header: { kid: key.kid } });
}
