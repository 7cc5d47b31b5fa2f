// The nonces an agent signs to ask for its own credential. Nothing is stored when one is issued: a
// nonce is 64 bytes (the Web Bot Auth nonce format, so agents sign with web-bot-auth as it is):
// its expiry, random bytes, and an HMAC over both and the agent's SID with a key derived from the
// service's signing key. Single use is the agent's object's business, when one is spent.

import type { SigningKey } from "./attestations";

export const CREDENTIAL_NONCE_LIFETIME_S = 300;
const NONCE_BYTES = 64;
const MAC_AT = 32;
const INFO = new TextEncoder().encode("agent-trust credential nonce v1");

const fromBase64url = (text: string) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));

/** The HMAC key of nonces, derived (HKDF-SHA256) from a signing key's private part. */
async function macKey(key: SigningKey): Promise<CryptoKey> {
  const secret = await crypto.subtle.importKey("raw", fromBase64url(key.privateJwk.d as string), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: INFO },
    secret,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign"],
  );
}

async function macOf(key: SigningKey, sid: string, head: Uint8Array): Promise<Uint8Array> {
  const message = new Uint8Array([...new TextEncoder().encode(`${sid}\n`), ...head]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", await macKey(key), message));
}

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** A fresh nonce for the agent `sid`, valid CREDENTIAL_NONCE_LIFETIME_S from `now`. */
export async function mintNonce(key: SigningKey, sid: string, now: number): Promise<{ nonce: string; expiresAt: number }> {
  const expiresAt = (Math.floor(now / 1000) + CREDENTIAL_NONCE_LIFETIME_S) * 1000;
  const head = new Uint8Array(MAC_AT);
  new DataView(head.buffer).setUint32(0, expiresAt / 1000);
  crypto.getRandomValues(head.subarray(4));
  const nonce = new Uint8Array(NONCE_BYTES);
  nonce.set(head);
  nonce.set(await macOf(key, sid, head), MAC_AT);
  return { nonce: base64(nonce), expiresAt };
}

/**
 * Whether `nonce` is one the service issued for `sid` (with any of its keys: a rotation does not void
 * nonces in flight) and not expired at `now`; when it is, until when it must be remembered as spent.
 */
export async function checkNonce(keys: SigningKey[], sid: string, nonce: string, now: number): Promise<{ ok: true; expiresAt: number } | { ok: false }> {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(nonce), (ch) => ch.charCodeAt(0));
  } catch {
    return { ok: false };
  }
  if (bytes.length !== NONCE_BYTES) return { ok: false };
  const head = bytes.subarray(0, MAC_AT);
  const given = bytes.subarray(MAC_AT);
  const expiresAt = new DataView(head.buffer, head.byteOffset).getUint32(0) * 1000;
  if (expiresAt <= now || expiresAt > now + (CREDENTIAL_NONCE_LIFETIME_S + 60) * 1000) return { ok: false };
  for (const key of keys) {
    const expected = await macOf(key, sid, head);
    let diff = 0;
    for (let i = 0; i < expected.length; i++) diff |= expected[i] ^ given[i];
    if (diff === 0) return { ok: true, expiresAt };
  }
  return { ok: false };
}
