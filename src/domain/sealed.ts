// Secrets kept sealed at rest (webhook signing secrets): AES-256-GCM under a Worker secret, a fresh
// 96-bit IV each time, stored as base64 of IV || ciphertext. The key rotates: the new one seals,
// the previous one still opens what it sealed until everything is sealed again under the new one.

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

/** The key of a base64 secret of 32 bytes (WEBHOOK_SECRET_KEY), or null when it is not one. */
export async function sealingKey(secret: string | undefined): Promise<CryptoKey | null> {
  if (!secret) return null;
  let raw: Uint8Array;
  try {
    raw = unb64(secret.trim());
  } catch {
    return null;
  }
  if (raw.length !== 32) return null;
  return crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
}

export async function seal(key: CryptoKey, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext)));
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return b64(out);
}

export async function open(key: CryptoKey, sealed: string): Promise<string> {
  const bytes = unb64(sealed);
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, key, bytes.slice(12));
  return new TextDecoder().decode(plain);
}

/** The sealing keys: `current` seals; `previous` (during a rotation) only opens. */
export interface KeyRing {
  current: CryptoKey;
  previous: CryptoKey | null;
}

/** The ring of WEBHOOK_SECRET_KEY and WEBHOOK_SECRET_KEY_PREVIOUS; null without a usable current key. */
export async function keyRing(current: string | undefined, previous: string | undefined): Promise<KeyRing | null> {
  const key = await sealingKey(current);
  return key ? { current: key, previous: await sealingKey(previous) } : null;
}

/**
 * Opens a secret under the current key, else the previous one; then `resealed` is the secret sealed
 * under the current key, for the caller to store, so that the previous key can be retired.
 */
export async function openWith(ring: KeyRing, sealed: string): Promise<{ plaintext: string; resealed: string | null }> {
  try {
    return { plaintext: await open(ring.current, sealed), resealed: null };
  } catch (err) {
    if (!ring.previous) throw err;
    const plaintext = await open(ring.previous, sealed);
    return { plaintext, resealed: await seal(ring.current, plaintext) };
  }
}

/** A Standard Webhooks signing secret: `whsec_` and 24 random bytes, base64. */
export const newWebhookSecret = () => `whsec_${b64(crypto.getRandomValues(new Uint8Array(24)))}`;
