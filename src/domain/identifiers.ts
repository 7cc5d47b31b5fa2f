import { KEY_PREFIX } from "./errors";

export const SID_PATTERN = /^SID-0x[0-9a-f]{16}$/;
export const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

export function randomHex(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

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
