// An agent's history as a chain of entries (docs/transparency.md): every change of the agent is one
// entry, serialised as RFC 8785 canonical JSON, carrying a random nonce and the SHA-256 of the
// agent's previous entry. Entries name no reporter: a reporter appears as the HMAC of the sid and its
// operator id under a service secret (its commitment), and free text only as a salted hash, the salt
// kept beside the entry, so deleting the salt erases the text without breaking the chain.

import canonicalize from "canonicalize";
import type { AgentModel, ChangeType, Dimension, InheritedPair, Outcome, PairState, ScoreView, SignalDimension } from "./model";
import { DIMENSIONS } from "./model";
import { randomHex } from "./identifiers";

export const ENTRY_KINDS = [
  "registration",
  "report",
  "config",
  "withdrawal",
  "dispute",
  "claim",
  "status",
  "identity",
  "credibility",
  "inheritance",
  "model",
  "snapshot",
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** The entries a score history shows (the report's `score_history`): each moved the scores. */
export const SCORE_ENTRY_KINDS = ["report", "config", "withdrawal"] as const satisfies readonly EntryKind[];

/**
 * What an erased text reads wherever it was shown: a report's transaction type once its salt is gone,
 * and an agent's name once every entry's text is (its description is then null).
 */
export const ERASED = "erased";

/** The `prev` of an agent's first entry. */
export const GENESIS = "0".repeat(64);

/** The composite and dimensions that followed an entry. */
export type ScoreFace = { composite: number } & Record<Dimension, number>;

export interface EntryBodies {
  /** `owner`: the owner's commitment (null: self-registered); `name`, `description`: salted hashes. */
  registration: { owner: string | null; fingerprint: string; name: string; description: string | null; score: ScoreFace };
  report: {
    reporter: string;
    outcome: Outcome;
    signals: Partial<Record<SignalDimension, number>>;
    receipt: boolean;
    /** Version 3's weighing, in the entries it wrote (version 4 weighs by the reporter's credibility). */
    base?: number;
    damping?: number;
    evidence?: number;
    penalty?: number;
    weight?: number;
    /** Salted hashes of the transaction type and the metadata. */
    type: string;
    metadata: string | null;
    score: ScoreFace;
  };
  config: { changes: ChangeType[]; fingerprint: string; score: ScoreFace };
  /** A report withdrawn after a dispute (`of`: its entry number): replays skip it from here on. */
  withdrawal: { of: number; score: ScoreFace };
  /** A dispute of report `of` that moves no score: opened, escalated to the admins, or resolved with the report kept. */
  dispute: { of: number; outcome: "opened" | "escalated" | "kept" };
  claim: { owner: string };
  status: { status: string };
  /** The identity level, the proven key and every registered key (RFC 7638 thumbprints). */
  identity: { level: number; key: string | null; keys: string[] };
  /** The credibility in force for some of the agent's reporters from here on, by commitment. */
  credibility: { values: Record<string, number>; snapshot?: string; /** Version 3's latch, in the entries it wrote. */ bootstrap?: boolean };
  /**
   * R6 whitewashing: the negative evidence a new agent takes over from the cautioned agent of the
   * same owner and configuration, by the reporters' commitments on this agent; `caution`: the source
   * was in caution (or suspended), so this agent starts in caution.
   */
  inheritance: { reporters: Record<string, InheritedPair>; caution: boolean };
  /** The agent moved to a scoring model (4: the migration sweep replayed its whole history under version 4). */
  model: { version: number };
  /**
   * Retention: the model's aggregates and every pair after entry `through` (pairs by the reporters'
   * commitments), with the history cut at `cut` (the entries up to `through` may have left for the
   * archive). Replays start here; `owner` is the owner's commitment then.
   */
  snapshot: { through: number; cut: number; model: AgentModel; pairs: Record<string, Omit<PairState, "reporter">>; owner: string | null };
}

export type EntryDraft = { [K in EntryKind]: { kind: K; at: number; body: EntryBodies[K] } }[EntryKind];

/** An entry as the chain holds it (the canonical JSON of exactly these fields is what is hashed). */
export type Entry = { [K in EntryKind]: { v: 1; sid: string; n: number; kind: K; at: string; prev: string; nonce: string } & EntryBodies[K] }[EntryKind];

export interface Chained {
  entry: Entry;
  /** Its canonical JSON (RFC 8785). */
  text: string;
  /** Lowercase hex SHA-256 of `text`. */
  hash: string;
}

export interface ChainHead {
  n: number;
  hash: string;
}

export function canonical(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("not serialisable");
  return text;
}

export async function sha256HexOfBytes(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Chains drafts after `head`: numbered n+1, n+2, … each with a fresh nonce and the hash of the one before. */
export async function chainEntries(sid: string, head: ChainHead, drafts: readonly EntryDraft[]): Promise<{ chained: Chained[]; head: ChainHead }> {
  const chained: Chained[] = [];
  let { n, hash } = head;
  for (const d of drafts) {
    n += 1;
    const entry = { v: 1, sid, n, kind: d.kind, at: new Date(d.at).toISOString(), prev: hash, nonce: randomHex(16), ...d.body } as Entry;
    const text = canonical(entry);
    hash = await sha256HexOfBytes(utf8(text));
    chained.push({ entry, text, hash });
  }
  return { chained, head: { n, hash } };
}

/** Checks that entries follow each other from `head`: numbers, `prev` links and hashes. The first problem, or null. */
export async function checkChain(texts: readonly string[], from: ChainHead = { n: 0, hash: GENESIS }): Promise<string | null> {
  let { n, hash } = from;
  for (const text of texts) {
    const entry = JSON.parse(text) as Entry;
    if (canonical(entry) !== text) return `entry ${entry.n} is not in canonical form`;
    if (entry.n !== n + 1) return `entry ${n + 1} is missing (found ${entry.n})`;
    if (entry.prev !== hash) return `entry ${entry.n} does not follow entry ${n}`;
    n = entry.n;
    hash = await sha256HexOfBytes(utf8(text));
  }
  return null;
}

export const scoreFace = (score: Pick<ScoreView, "composite" | "dimensions">): ScoreFace => {
  const face = { composite: score.composite } as ScoreFace;
  for (const d of DIMENSIONS) face[d] = score.dimensions[d];
  return face;
};

/** The score a leaf commits to without showing it: SHA-256 of `<composite>:<nonce>`. */
export const scoreCommit = (composite: number, nonce: string) => sha256HexOfBytes(utf8(`${composite}:${nonce}`));

/** A fresh salt for an entry's free text. */
export const newSalt = () => randomHex(16);

/** The salted hash of one free-text field: its clear text is only ever confirmed by whoever holds the salt. */
export const saltedHash = (salt: string, field: string, text: string) => sha256HexOfBytes(utf8(`${salt}:${field}:${text}`));

// Typed from importKey: the Node-side programs that load this file know no global CryptoKey.
const hmacKeys = new Map<string, ReturnType<typeof crypto.subtle.importKey>>();

/** HMAC-SHA256 under a secret (base64 or any string of ≥ 32 characters), lowercase hex. */
export async function hmacHex(secret: string, message: string): Promise<string> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(secret, key);
  }
  const mac = await crypto.subtle.sign("HMAC", await key, utf8(message));
  return Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A reporter's commitment on one agent: unlinkable across agents, and no small operator id can be tried against it. */
export const reporterCommitment = (secret: string, sid: string, operatorId: number) => hmacHex(secret, `${sid}\n${operatorId}`);
