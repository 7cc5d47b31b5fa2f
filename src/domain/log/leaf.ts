// The log's leaf: one per change of an agent, naming no agent and showing no score. `agent` is
// HMAC-SHA256(log key, sid), `entry_hash` the SHA-256 of the agent's entry (its RFC 8785 JSON),
// `score_commit` SHA-256("<composite>:<nonce hex>"). The leaf's bytes are its RFC 8785 JSON.

import canonicalize from "canonicalize";
import { fromBase64, sha256, toHex, utf8, type Bytes } from "./bytes";
import { hashLeaf } from "./merkle";

export interface Leaf {
  agent: string;
  seq: number;
  entry_hash: string;
  score_commit: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The leaf's bytes in the log: the RFC 8785 canonical JSON of its four fields. */
export function leafBytes(leaf: Leaf): Bytes {
  return utf8(canonicalize({ agent: leaf.agent, seq: leaf.seq, entry_hash: leaf.entry_hash, score_commit: leaf.score_commit })!);
}

/** The leaf's Merkle hash: SHA-256(0x00 || leafBytes(leaf)), RFC 9162 §2.1.1. */
export const leafHash = (leaf: Leaf): Promise<Bytes> => hashLeaf(leafBytes(leaf));

/** The leaf, or what is wrong with it. */
export function checkLeaf(value: unknown): { ok: true; leaf: Leaf } | { ok: false; problem: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, problem: "a leaf is a JSON object" };
  const v = value as Record<string, unknown>;
  const extra = Object.keys(v).filter((k) => !["agent", "seq", "entry_hash", "score_commit"].includes(k));
  if (extra.length > 0) return { ok: false, problem: `a leaf has no field ${extra[0]}` };
  for (const field of ["agent", "entry_hash", "score_commit"] as const) {
    if (typeof v[field] !== "string" || !HEX64.test(v[field] as string)) return { ok: false, problem: `leaf.${field} must be 64 lowercase hex` };
  }
  if (typeof v.seq !== "number" || !Number.isSafeInteger(v.seq) || v.seq < 1) return { ok: false, problem: "leaf.seq must be an integer ≥ 1" };
  return { ok: true, leaf: { agent: v.agent as string, seq: v.seq, entry_hash: v.entry_hash as string, score_commit: v.score_commit as string } };
}

/** The leaf read back from its bytes in an entry bundle, or null when they are not a leaf's canonical JSON. */
export function parseLeaf(bytes: Uint8Array): Leaf | null {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return null;
  }
  const checked = checkLeaf(value);
  if (!checked.ok) return null;
  const again = leafBytes(checked.leaf);
  return again.length === bytes.length && again.every((b, i) => b === bytes[i]) ? checked.leaf : null;
}

/** An HMAC key (WebCrypto's CryptoKey, named so that Node's types find it too). */
export type LogKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** The key of `LOG_KEY` (32 bytes, base64), or null when it is not one. */
export async function logKey(secret: string | undefined): Promise<LogKey | null> {
  const raw = secret ? fromBase64(secret.trim()) : null;
  if (!raw || raw.length !== 32) return null;
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** The agent's name in the log: lowercase hex HMAC-SHA256(log key, sid). */
export async function agentTag(key: LogKey, sid: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(sid))));
}

/** The commitment to a score: lowercase hex SHA-256("<composite>:<nonce hex>"). */
export async function scoreCommit(composite: number, nonceHex: string): Promise<string> {
  return toHex(await sha256(utf8(`${composite}:${nonceHex}`)));
}
