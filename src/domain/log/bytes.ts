// Byte helpers of the transparency log: hex, standard base64, SHA-256. Pure, and free of Node or
// Workers APIs, so the same code runs in the Worker, in Node and in a browser. SHA-256 is
// synchronous (a tree hashes about twice per leaf): @noble/hashes' by default, and a runtime with a
// faster native one installs it with useSha256 (the Worker: node:crypto, src/durable/log-sequencer.ts).

import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";

export type Bytes = Uint8Array<ArrayBuffer>;

const encoder = new TextEncoder();
export const utf8 = (text: string): Bytes => encoder.encode(text) as Bytes;

export function concat(...parts: Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

export const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** The bytes of lowercase or uppercase hex, or null when it is not hex. */
export function fromHex(hex: string): Bytes | null {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes of standard, padded base64 (RFC 4648 §4), or null when it is not exactly that. */
export function fromBase64(text: string): Bytes | null {
  if (!BASE64.test(text)) return null;
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  // Non-zero padding bits decode too: only the canonical encoding names these bytes.
  return toBase64(out) === text ? out : null;
}

export type Sha256 = (...parts: Uint8Array[]) => Bytes;

/** The portable SHA-256 (@noble/hashes), the default. */
export const portableSha256: Sha256 = (...parts) => {
  if (parts.length === 1) return nobleSha256(parts[0]) as Bytes;
  const hash = nobleSha256.create();
  for (const p of parts) hash.update(p);
  return hash.digest() as Bytes;
};

let implementation: Sha256 = portableSha256;

/** Replaces the SHA-256 implementation (same digests, faster where the runtime has a native one). */
export function useSha256(sha256: Sha256): void {
  implementation = sha256;
}

/** SHA-256 of the concatenated parts, now. */
export const sha256Now: Sha256 = (...parts) => implementation(...parts);

export const sha256 = async (...parts: Uint8Array[]): Promise<Bytes> => sha256Now(...parts);
