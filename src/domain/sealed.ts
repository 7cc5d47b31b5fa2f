// Secrets kept sealed at rest (webhook signing secrets): a compact JWE (RFC 7516) with direct
// encryption under a Worker secret (`alg: dir`, `enc: A256GCM`, jose), its `kid` naming the key.
// The key rotates: the new one seals, the previous one still opens what it sealed until everything
// is sealed again under the new one.
//
// Before 1.2 a sealed value was base64 of a 96-bit IV || AES-256-GCM ciphertext under the same key.
// Such a value still opens, and opening it gives it sealed again as a JWE for the caller to store
// (deliveries do it as they go; POST /admin/webhooks/reseal does all of them).
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader } from "jose";
import { digestHex } from "./identifiers";

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

const ALG = "dir";
const ENC = "A256GCM";

/** A key that seals, and its id: the first 16 hex characters of the SHA-256 of the secret as configured. */
export interface SealingKey {
  key: CryptoKey;
  kid: string;
}

/** The key of a base64 secret of 32 bytes (WEBHOOK_SECRET_KEY), or null when it is not one. */
export async function sealingKey(secret: string | undefined): Promise<SealingKey | null> {
  if (!secret) return null;
  let raw: Uint8Array;
  try {
    raw = unb64(secret.trim());
  } catch {
    return null;
  }
  if (raw.length !== 32) return null;
  const [key, hash] = await Promise.all([
    crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]),
    digestHex("SHA-256", secret.trim()),
  ]);
  return { key, kid: hash.slice(0, 16) };
}

export async function seal(key: SealingKey, plaintext: string): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(plaintext)).setProtectedHeader({ alg: ALG, enc: ENC, kid: key.kid }).encrypt(key.key);
}

/** A compact JWE has five dot-separated parts; a value sealed before 1.2 is plain base64. */
const isJwe = (sealed: string) => sealed.split(".").length === 5;

export async function open(key: SealingKey, sealed: string): Promise<string> {
  if (!isJwe(sealed)) return openLegacy(key.key, sealed);
  const { plaintext } = await compactDecrypt(sealed, key.key, { keyManagementAlgorithms: [ALG], contentEncryptionAlgorithms: [ENC] });
  return new TextDecoder().decode(plaintext);
}

/** A value sealed before 1.2: base64 of IV (12 bytes) || AES-256-GCM ciphertext and tag. */
async function openLegacy(key: CryptoKey, sealed: string): Promise<string> {
  const bytes = unb64(sealed);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, key, bytes.slice(12));
  return new TextDecoder().decode(plain);
}

/** The sealing keys: `current` seals; `previous` (during a rotation) only opens. */
export interface KeyRing {
  current: SealingKey;
  previous: SealingKey | null;
}

/** The ring of WEBHOOK_SECRET_KEY and WEBHOOK_SECRET_KEY_PREVIOUS; null without a usable current key. */
export async function keyRing(current: string | undefined, previous: string | undefined): Promise<KeyRing | null> {
  const key = await sealingKey(current);
  return key ? { current: key, previous: await sealingKey(previous) } : null;
}

/**
 * Opens a secret with the ring's key that sealed it (a JWE names it by `kid`; an older value is
 * tried under the current key, then the previous one). `resealed` is the secret sealed again under
 * the current key, as a JWE, when it was sealed under the previous key or in the older format: for
 * the caller to store, so that the previous key (and the older format) can be retired.
 */
export async function openWith(ring: KeyRing, sealed: string): Promise<{ plaintext: string; resealed: string | null }> {
  const keys = [ring.current, ...(ring.previous ? [ring.previous] : [])];
  const candidates = isJwe(sealed) ? keys.filter((k) => k.kid === decodeProtectedHeader(sealed).kid) : keys;
  let failure: unknown = new Error("no key of the ring sealed this value");
  for (const key of candidates) {
    let plaintext: string;
    try {
      plaintext = await open(key, sealed);
    } catch (err) {
      failure = err;
      continue;
    }
    const stale = key !== ring.current || !isJwe(sealed);
    return { plaintext, resealed: stale ? await seal(ring.current, plaintext) : null };
  }
  throw failure;
}

/** A Standard Webhooks signing secret: `whsec_` and 24 random bytes, base64. */
export const newWebhookSecret = () => `whsec_${b64(crypto.getRandomValues(new Uint8Array(24)))}`;
