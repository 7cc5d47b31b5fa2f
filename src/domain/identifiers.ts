import { KEY_PREFIX } from "./errors";

export const SID_PATTERN = /^SID-0x[0-9a-f]{16}$/;
export const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

/** FNV-1a (32 bits) over the first code unit of each character: a stable, fast spread, never a secret. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

export function randomHex(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Lowercase hex of a digest of the text's UTF-8 bytes. */
export async function digestHex(algorithm: "SHA-1" | "SHA-256", text: string): Promise<string> {
  const digest = await crypto.subtle.digest(algorithm, new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export const sha256Hex = (text: string): Promise<string> => digestHex("SHA-256", text);

export const newSid = () => `SID-0x${randomHex(8)}`;
/** A one-time secret (challenge or claim token): 64 lowercase hex. */
export const newToken = () => randomHex(32);

export interface IssuedKey {
  key: string;
  hash: string;
  prefix: string;
}

export async function newApiKey(): Promise<IssuedKey> {
  const hex = randomHex(32);
  const key = `${KEY_PREFIX}${hex}`;
  return { key, hash: await sha256Hex(key), prefix: hex.slice(0, 8) };
}
