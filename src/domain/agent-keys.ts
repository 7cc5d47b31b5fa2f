// Agents' own Ed25519 keys (identity level 2, receipts): what a registrable key is, its name, and
// what an agent's identity level is.

import { calculateJwkThumbprint } from "jose";

/** An Ed25519 public key as a JWK: nothing else is kept. */
export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
}

export interface AgentKey {
  /** RFC 7638 thumbprint (SHA-256, base64url): the key's name, the `keyid` of its signatures. */
  thumbprint: string;
  jwk: PublicJwk;
  /** The Web Bot Auth key directory the key was found in; null for a key registered as a JWK. */
  directoryUrl: string | null;
  addedAt: string;
}

export const MAX_AGENT_KEYS = 5;
export const IDENTITY_LABELS = ["Unverified", "Callback-Verified", "Signature-Verified"] as const;

const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

/**
 * The public Ed25519 key a JWK describes, or why it is not one. A private part (`d`) is refused
 * outright: whoever sent it has leaked its key to us, and a private key is never stored.
 */
export function publicEd25519(jwk: unknown): { ok: true; jwk: PublicJwk } | { ok: false; problem: string } {
  if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) return { ok: false, problem: "jwk must be a JSON object" };
  const k = jwk as Record<string, unknown>;
  if ("d" in k) return { ok: false, problem: "jwk must not contain a private key (d)" };
  if (k.kty !== "OKP" || k.crv !== "Ed25519") return { ok: false, problem: 'jwk must be an Ed25519 key (kty "OKP", crv "Ed25519")' };
  if (typeof k.x !== "string" || !BASE64URL_32_BYTES.test(k.x)) return { ok: false, problem: "jwk.x must be a 32-byte base64url public key" };
  return { ok: true, jwk: { kty: "OKP", crv: "Ed25519", x: k.x } };
}

/** RFC 7638: SHA-256 over the key's required members, base64url. */
export const thumbprintOf = (jwk: PublicJwk) => calculateJwkThumbprint(jwk, "sha256");

/** Level 2 while a proven key is registered, else 1 if the callback challenge was passed, else 0. */
export function identityLevelOf(agent: { callbackVerified: boolean; identityKey: string | null }): 0 | 1 | 2 {
  return agent.identityKey ? 2 : agent.callbackVerified ? 1 : 0;
}

/** What an agent's identity holds: its keys, the proven one, the callback check, the key directories (and when each was fetched). */
export interface KeyHolder {
  keys: AgentKey[];
  identityKey: string | null;
  callbackVerified: boolean;
  identityLevel: number;
  directories: Record<string, number>;
}

/** The holder with these keys; a proven key no longer among them takes level 2 away. */
export function withKeys<T extends KeyHolder>(holder: T, keys: AgentKey[]): T {
  const identityKey = holder.identityKey && keys.some((k) => k.thumbprint === holder.identityKey) ? holder.identityKey : null;
  const next = { ...holder, keys, identityKey };
  return { ...next, identityLevel: identityLevelOf(next) };
}

/** Keys registered (given, or found in a key directory fetched at `now`); null when that would make more than MAX_AGENT_KEYS. */
export function keysAdded<T extends KeyHolder>(holder: T, keys: AgentKey[], directoryUrl: string | null, now: number): { holder: T; added: number } | null {
  const fresh = keys.filter((k) => !holder.keys.some((have) => have.thumbprint === k.thumbprint));
  if (holder.keys.length + fresh.length > MAX_AGENT_KEYS) return null;
  const directories = directoryUrl ? { ...holder.directories, [directoryUrl]: now } : holder.directories;
  return { holder: { ...holder, keys: [...holder.keys, ...fresh], directories }, added: fresh.length };
}

/** A key directory fetched again: its keys replace the ones it gave before (a key it dropped goes), within MAX_AGENT_KEYS. */
export function directoryRefreshed<T extends KeyHolder>(holder: T, url: string, keys: AgentKey[], now: number): { holder: T; keysChanged: boolean } {
  const others = holder.keys.filter((k) => k.directoryUrl !== url);
  const kept = keys.filter((k) => !others.some((o) => o.thumbprint === k.thumbprint)).slice(0, MAX_AGENT_KEYS - others.length);
  const refreshed = { ...withKeys(holder, [...others, ...kept]), directories: { ...holder.directories, [url]: now } };
  const thumbprints = (h: KeyHolder) =>
    h.keys
      .map((k) => k.thumbprint)
      .sort()
      .join();
  return { holder: refreshed, keysChanged: thumbprints(refreshed) !== thumbprints(holder) };
}
