// The log's leaf: one per change of an agent, naming no agent and showing no score. A leaf is
// `{tag, commit}`: `tag` = HMAC-SHA256(k, "<n>") with k = HMAC-SHA256(log key, "<sid>:<epoch>") the
// agent's key of the owner epoch entry n falls in, and `commit` = SHA-256("<n>:<entry hash>:<composite>:<nonce>").
// Without k no field is a function of the sid or the entry number, so one agent's leaves cannot be
// linked to each other; an attestation opens its own leaf only. Leaves written before this rule
// (`{agent, seq, entry_hash, score_commit}`, `agent` = HMAC-SHA256(log key, sid), the same on every
// leaf of the agent) keep their bytes: the log is append-only. A leaf's bytes are its RFC 8785 JSON.

import canonicalize from "canonicalize";
import { fromBase64, fromHex, sha256, toHex, utf8, type Bytes } from "./bytes";
import { hashLeaf } from "./merkle";

/** A leaf written before the agent's tag cut-over: the agent's constant tag and a clear seq. */
export interface LegacyLeaf {
  agent: string;
  seq: number;
  entry_hash: string;
  score_commit: string;
}

/** A leaf of the current format: unlinkable without the agent's key of its epoch. */
export interface TaggedLeaf {
  tag: string;
  commit: string;
}

export type Leaf = LegacyLeaf | TaggedLeaf;

export const isTagged = (leaf: Leaf): leaf is TaggedLeaf => "tag" in leaf;

const HEX64 = /^[0-9a-f]{64}$/;
const LEGACY_FIELDS = ["agent", "seq", "entry_hash", "score_commit"];
const TAGGED_FIELDS = ["tag", "commit"];

/** The leaf's bytes in the log: the RFC 8785 canonical JSON of its fields. */
export function leafBytes(leaf: Leaf): Bytes {
  const fields = isTagged(leaf)
    ? { tag: leaf.tag, commit: leaf.commit }
    : { agent: leaf.agent, seq: leaf.seq, entry_hash: leaf.entry_hash, score_commit: leaf.score_commit };
  return utf8(canonicalize(fields)!);
}

/** The leaf's Merkle hash: SHA-256(0x00 || leafBytes(leaf)), RFC 9162 §2.1.1. */
export const leafHash = (leaf: Leaf): Promise<Bytes> => hashLeaf(leafBytes(leaf));

/** The leaf (of either format), or what is wrong with it. */
export function checkLeaf(value: unknown): { ok: true; leaf: Leaf } | { ok: false; problem: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, problem: "a leaf is a JSON object" };
  const v = value as Record<string, unknown>;
  const fields = "tag" in v ? TAGGED_FIELDS : LEGACY_FIELDS;
  const extra = Object.keys(v).filter((k) => !fields.includes(k));
  if (extra.length > 0) return { ok: false, problem: `a leaf has no field ${extra[0]}` };
  for (const field of fields.filter((f) => f !== "seq")) {
    if (typeof v[field] !== "string" || !HEX64.test(v[field] as string)) return { ok: false, problem: `leaf.${field} must be 64 lowercase hex` };
  }
  if (fields === TAGGED_FIELDS) return { ok: true, leaf: { tag: v.tag as string, commit: v.commit as string } };
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

const hmacKey = (raw: Bytes) => crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);

/** The key of `LOG_KEY` (32 bytes, base64), or null when it is not one. */
export async function logKey(secret: string | undefined): Promise<LogKey | null> {
  const raw = secret ? fromBase64(secret.trim()) : null;
  if (!raw || raw.length !== 32) return null;
  return hmacKey(raw);
}

/**
 * The agent's constant name under the log key: lowercase hex HMAC-SHA256(log key, sid). It is the
 * `agent` of its leaves before the cut-over, and the sequencer's private name for the agent.
 */
export async function agentTag(key: LogKey, sid: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(sid))));
}

/** The agent's key for owner epoch `epoch`: lowercase hex HMAC-SHA256(log key, "<sid>:<epoch>"), given to the owner of that epoch. */
export async function epochKey(key: LogKey, sid: string, epoch: number): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(`${sid}:${epoch}`))));
}

/** The tag of entry `n` under an epoch key (hex, as epochKey gives it): lowercase hex HMAC-SHA256(k, "<n>"). */
export async function entryTag(epochKeyHex: string, n: number): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", await epochHmacKey(epochKeyHex), utf8(String(n)))));
}

/** Epoch keys imported once per isolate: an agent's object tags each of its entries under the same one (at most 10,000 kept). */
const epochHmacKeys = new Map<string, Promise<LogKey>>();

function epochHmacKey(epochKeyHex: string): Promise<LogKey> {
  let key = epochHmacKeys.get(epochKeyHex);
  if (!key) {
    const raw = fromHex(epochKeyHex);
    if (!raw || raw.length !== 32) throw new Error("an epoch key is 32 bytes of lowercase hex");
    if (epochHmacKeys.size >= 10_000) epochHmacKeys.clear();
    epochHmacKeys.set(epochKeyHex, (key = hmacKey(raw)));
    // A failed import is not kept: the next entry tries again.
    key.catch(() => epochHmacKeys.delete(epochKeyHex));
  }
  return key;
}

/** A leaf's commitment to entry `n`: lowercase hex SHA-256("<n>:<entry hash>:<composite>:<nonce hex>"). */
export async function entryCommit(n: number, entryHash: string, composite: number, nonceHex: string): Promise<string> {
  return toHex(await sha256(utf8(`${n}:${entryHash}:${composite}:${nonceHex}`)));
}

/** The commitment to a score in a leaf before the cut-over: lowercase hex SHA-256("<composite>:<nonce hex>"). */
export async function scoreCommit(composite: number, nonceHex: string): Promise<string> {
  return toHex(await sha256(utf8(`${composite}:${nonceHex}`)));
}
