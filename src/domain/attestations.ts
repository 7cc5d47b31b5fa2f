// Score attestations: the public score, signed by the service, for a relying party to verify
// offline with the service's published keys (JWKS) and any JOSE library.

import type { Leaf } from "./log/leaf";
import { calculateJwkThumbprint, CompactSign, importJWK, type JWK } from "jose";

export const ATTESTATION_TYPE = "trust-attestation+jwt";
export const ATTESTATION_LIFETIME_S = 15 * 60;

/** One signing key: the private JWK (Ed25519) and its key id. */
export interface SigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export interface AttestationClaims {
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  status: string;
  composite_score: number;
  confidence: string;
  recommendation: string;
  identity_level: number;
  operator_name: string | null;
  cnf?: { jkt: string };
  /** Where the agent's status is in the status lists (GET /status/{n}), once it is listed. */
  status_list?: { idx: number; uri: string };
  /** The agent's latest sequenced leaf in its transparency log, proven included; null before the first. */
  log: AttestationLog | null;
}

/** An attestation's `log`: the agent's latest sequenced leaf, its inclusion in the checkpoint of `tree_size`, and its opening. */
export interface AttestationLog {
  origin: string;
  index: number;
  tree_size: number;
  /** Base64 root hash of the tree of `tree_size` leaves (the checkpoint's third line). */
  root: string;
  /** The audit path (RFC 9162 §2.1.3), base64 hashes, from the leaf up. */
  inclusion: string[];
  /**
   * The leaf itself: its RFC 8785 JSON is what the tree holds. `{tag, commit}` (tag: HMAC of `n` under
   * the agent's key of its owner epoch); a leaf written before the agent's cut-over is
   * `{agent, seq, entry_hash, score_commit}`.
   */
  leaf: Leaf;
  /**
   * What opens the leaf: `commit` is SHA-256 of `<n>:<entry_hash>:<score>:<nonce>` (a leaf of before:
   * `score_commit` is SHA-256 of `<score>:<nonce>`). `sid` is the attestation's `sub`.
   */
  opening: { sid: string; n: number; entry_hash: string; score: number; nonce: string };
  /** The log's signed checkpoint of `tree_size` (a C2SP signed note): verify it against GET /log/keys. */
  checkpoint: string;
}

/**
 * The signing keys of `ATTESTATION_KEYS` (a JSON array of private Ed25519 JWKs; the first signs,
 * all are published), or why they cannot be used. A key without `kid` is named by its thumbprint.
 */
export async function parseSigningKeys(raw: string | undefined): Promise<{ ok: true; keys: SigningKey[] } | { ok: false; problem: string }> {
  if (!raw) return { ok: false, problem: "ATTESTATION_KEYS is not set" };
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return { ok: false, problem: "ATTESTATION_KEYS is not JSON" };
  }
  if (!Array.isArray(list) || list.length === 0) return { ok: false, problem: "ATTESTATION_KEYS must be a non-empty JSON array of private JWKs" };
  const keys: SigningKey[] = [];
  for (const entry of list as Record<string, unknown>[]) {
    if (entry?.kty !== "OKP" || entry.crv !== "Ed25519" || typeof entry.x !== "string" || typeof entry.d !== "string") {
      return { ok: false, problem: "every ATTESTATION_KEYS entry must be a private Ed25519 JWK (kty OKP, crv Ed25519, x, d)" };
    }
    const publicPart = { kty: "OKP", crv: "Ed25519", x: entry.x };
    const kid = typeof entry.kid === "string" && entry.kid !== "" ? entry.kid : await calculateJwkThumbprint(publicPart, "sha256");
    keys.push({ kid, privateJwk: { ...publicPart, d: entry.d }, publicJwk: { ...publicPart, kid, alg: "EdDSA", use: "sig" } });
  }
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) return { ok: false, problem: "ATTESTATION_KEYS has two keys with one kid" };
  return { ok: true, keys };
}

// Typed from importJWK: the Node-side programs that load this file (the typed client) know no global CryptoKey.
const imported = new WeakMap<SigningKey, ReturnType<typeof importJWK>>();

/** A compact JWS of `claims` with header typ `typ`, signed with `key` (imported once per isolate). */
export async function signJws(claims: object, key: SigningKey, typ: string): Promise<string> {
  let privateKey = imported.get(key);
  if (!privateKey) imported.set(key, (privateKey = importJWK(key.privateJwk, "EdDSA")));
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ }).sign(await privateKey);
}

/** The compact JWS of an attestation, signed with `key`. */
export const signAttestation = (claims: AttestationClaims, key: SigningKey) => signJws(claims, key, ATTESTATION_TYPE);

export const PROMISE_TYPE = "trust-log-promise+jwt";

/**
 * A log promise (as a certificate's SCT): the service signs, when it accepts a report, that the
 * report's entry (`seq`, `entry_hash`) will appear in the agent's log (`log`, its origin) as `leaf`.
 * The reporter, whom a dropped report hurts, keeps it and checks inclusion later.
 */
export interface PromiseClaims {
  iss: string;
  sub: string;
  iat: number;
  log: string;
  seq: number;
  entry_hash: string;
  leaf: Leaf;
}

export const signPromise = (claims: PromiseClaims, key: SigningKey) => signJws(claims, key, PROMISE_TYPE);
