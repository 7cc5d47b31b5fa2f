// Verification anyone can run: an agent's history against the transparency log and the model.
//
//   const report = await verifyAgent({ baseUrl: "https://trust.example.com", sid, key });
//   if (!report.ok) console.log(report.problems);
//
// With the owner's key it reads the agent's chained entries (GET /agents/{sid}/entries) and the keys
// that find its leaves (GET /agents/{sid}/log-keys: a leaf names no agent without them), and checks
// that they chain (numbers, `prev` links, hashes), that each entry's leaf is in the agent's log and
// included in a checkpoint signed by the log's key (proofs computed from the tiles), that each leaf
// commits to the entry and its score, and that replaying the entries through the model gives the
// score the service serves (GET /score/{sid}). With a reporter's promises (the signed `log_promise`
// of each 201) it checks that each promised leaf is in the log. Nothing here trusts the service: a
// problem found is reported, never thrown.

import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from "jose";
import canonicalize from "canonicalize";
import { replayOf, snapshotOf } from "../../src/domain/replay";
import type { AttestationLog } from "../../src/domain/attestations";
import { checkChain, sha256HexOfBytes, type Entry } from "../../src/domain/entries";
import { scoreOf } from "../../src/domain/model";
import { CheckpointError, createLogClient, entryCommit, entryTag, fromBase64, isTagged, leafBytes, leafHash, LogReadError, parseLeaf, scoreCommit, toBase64, verifyCheckpoint, verifyInclusion, type Checkpoint, type Leaf } from "./log";
import { parseBundle, tileWidth, TILE_WIDTH } from "../../src/domain/log/tiles";

export type ProblemKind = "chain" | "log" | "checkpoint" | "stale" | "fork" | "replay" | "promise";

export interface Problem {
  kind: ProblemKind;
  message: string;
}

export interface VerifyOptions {
  baseUrl: string;
  sid: string;
  /** The owner's key (scope agents:read): without it only promises are checked. */
  key?: string;
  /** Signed `log_promise`s of reports on the agent (compact JWS), kept by their reporter. */
  promises?: string[];
  /** The log's verifier keys, pinned; by default those GET /log/keys publishes (check them out of band). */
  verifierKeys?: string[];
  /** The last checkpoint of this log you verified (its signed note): the current one must extend it. */
  lastCheckpoint?: string;
  /** How long a promised leaf may take to appear before it counts as missing (default 24 hours). */
  promiseGraceMs?: number;
  /** The instant the score is replayed at (default now): the service's score is read at the same instant. */
  now?: number;
  fetch?: typeof fetch;
}

export interface VerifyReport {
  ok: boolean;
  problems: Problem[];
  /** The agent's log, the checkpoint verified and how many entries it holds of the agent. */
  log: { log: number; origin: string; tree_size: number; checkpoint: string } | null;
  entries: number;
  /** Entries whose leaf the checkpoint covers; the rest are not sequenced yet. */
  sequenced: number;
  score: { served: number; replayed: number } | null;
  promises: { checked: number; pending: number };
}

/** An entry of GET /agents/{sid}/entries. */
export interface ListedEntry {
  n: number;
  kind: string;
  entry: string;
  hash: string;
  score: number | null;
  opening: Record<string, unknown> | null;
}

/** The grace a promised leaf has before it counts as missing: the log integrates within seconds. */
export const PROMISE_GRACE_MS = 24 * 3_600_000;

/**
 * The agent's score replayed from its entries at `now`: the one function every replay goes through.
 * Reporters and owners are the entries' commitments; the owner is the last registration's or claim's.
 */
export function replayScore(entries: readonly Entry[], now: number): number {
  const { state, owner } = replayOf(entries.map((entry) => ({ entry, who: null })), createdAtOf(entries));
  const identity = entries.findLast((e) => e.kind === "identity");
  return scoreOf(state.model, { now, owned: owner !== null, identityLevel: identity?.kind === "identity" ? identity.level : 0, operatorScore: 500 }).composite;
}

const createdAtOf = (entries: readonly Entry[]) => {
  const registered = entries.find((e) => e.kind === "registration");
  return registered ? Date.parse(registered.at) : 0;
};

/**
 * Each retention snapshot of a whole chain, checked against the chain before it: it must sum up
 * entries before itself, cut at an instant between the last entry it covers and the first it does
 * not (snapshots aside), no later than itself, and be the fold those entries give. The entry numbers
 * of the snapshots that fail (none when the chain starts after them).
 */
export function checkSnapshots(entries: readonly Entry[]): number[] {
  if (entries[0]?.n !== 1) return [];
  const wrong: number[] = [];
  for (const s of entries) {
    if (s.kind !== "snapshot") continue;
    const before = entries.filter((e) => e.n < s.n);
    const dated = before.filter((e) => e.kind !== "snapshot");
    const firstLeft = dated.find((e) => e.n > s.through);
    const inTime =
      s.through < s.n &&
      s.cut <= Date.parse(s.at) &&
      dated.every((e) => e.n > s.through || Date.parse(e.at) < s.cut) &&
      (firstLeft === undefined || Date.parse(firstLeft.at) >= s.cut);
    if (!inTime) {
      wrong.push(s.n);
      continue;
    }
    const body = snapshotOf(before.map((entry) => ({ entry, who: null })), createdAtOf(entries), s.cut, s.through);
    const { through, cut, model, pairs, owner } = s;
    if (canonicalize(body) !== canonicalize({ through, cut, model, pairs, owner })) wrong.push(s.n);
  }
  return wrong;
}

const faceOf = (entry: Entry): number | null => ("score" in entry && entry.score ? entry.score.composite : null);

class Unreachable extends Error {}

export async function verifyAgent(options: VerifyOptions): Promise<VerifyReport> {
  const fetcher = options.fetch ?? ((input, init) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, "");
  const now = options.now ?? Date.now();
  const problems: Problem[] = [];
  const problem = (kind: ProblemKind, message: string) => void problems.push({ kind, message });
  const report: VerifyReport = { ok: false, problems, log: null, entries: 0, sequenced: 0, score: null, promises: { checked: 0, pending: 0 } };

  async function get<T>(path: string, auth = false): Promise<T> {
    const res = await fetcher(`${base}${path}`, { headers: { accept: "application/json", ...(auth && options.key ? { authorization: `Bearer ${options.key}` } : {}) } });
    if (!res.ok) throw new Unreachable(`GET ${path}: ${res.status} ${(await res.text()).slice(0, 200)}`);
    return (await res.json()) as T;
  }

  // The owner's entries, every page.
  let listed: ListedEntry[] = [];
  let where: { log: number; origin: string; agent: string } | null = null;
  if (options.key) {
    let cursor: string | null = null;
    do {
      const page: { log: { log: number; origin: string; agent: string }; entries: ListedEntry[]; next_cursor: string | null } = await get(
        `/agents/${encodeURIComponent(options.sid)}/entries?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        true,
      );
      where = page.log;
      listed = listed.concat(page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    report.entries = listed.length;
    const broken = await checkChain(listed.map((e) => e.entry));
    if (broken) problem("chain", broken);
    for (const e of listed) {
      if ((await sha256HexOfBytes(new TextEncoder().encode(e.entry))) !== e.hash) problem("chain", `entry ${e.n}: its hash is not the hash of its text`);
    }
  }

  // The owner's keys: the tag of each entry's leaf, and the agent's name on leaves of before.
  let ownerKeys: OwnerLogKeys | null = null;
  if (options.key) ownerKeys = await get<OwnerLogKeys>(`/agents/${encodeURIComponent(options.sid)}/log-keys`, true);

  // The promises, read before the log: they name the log and the leaf for a reporter.
  const promised: { claims: PromiseClaims; jws: string }[] = [];
  if (options.promises?.length) {
    const jwks = createLocalJWKSet(await get<JSONWebKeySet>("/.well-known/jwks.json"));
    for (const jws of options.promises) {
      try {
        const { payload, protectedHeader } = await compactVerify(jws, jwks);
        const claims = JSON.parse(new TextDecoder().decode(payload)) as PromiseClaims;
        if (protectedHeader.typ !== "trust-log-promise+jwt") problem("promise", "a promise is not of type trust-log-promise+jwt");
        else if (claims.sub !== options.sid) problem("promise", `a promise is about ${claims.sub}, not ${options.sid}`);
        else promised.push({ claims, jws });
      } catch {
        problem("promise", "a promise's signature does not verify against the service's keys");
      }
    }
  }
  const origin = where?.origin ?? promised[0]?.claims.log ?? null;
  if (!origin || (!ownerKeys && promised.length === 0)) return finish();
  const n = Number(/\/log\/(\d+)$/.exec(origin)?.[1] ?? NaN);
  if (!Number.isInteger(n)) {
    problem("log", `the agent's log origin ${origin} names no log number`);
    return finish();
  }

  // The checkpoint, signed by the log's key, and not older than the last one seen.
  const log = createLogClient({ baseUrl: base, log: n, fetch: fetcher });
  const keys = options.verifierKeys ?? (await log.keys()).verifier_keys;
  let checkpoint: Checkpoint;
  const note = await log.checkpoint();
  try {
    checkpoint = await verifyCheckpoint(note, keys, origin);
  } catch (err) {
    if (err instanceof CheckpointError) {
      problem("checkpoint", `the log's checkpoint: ${err.message}`);
      return finish();
    }
    throw err;
  }
  report.log = { log: n, origin, tree_size: checkpoint.size, checkpoint: note };
  if (options.lastCheckpoint) {
    try {
      const last = await verifyCheckpoint(options.lastCheckpoint, keys, origin);
      const relation = await log.compare(last, checkpoint);
      if (relation === "stale") problem("stale", `the log shows a tree of ${checkpoint.size} leaves after one of ${last.size} was seen: an old checkpoint presented as current`);
      if (relation === "fork") problem("fork", `the log's tree of ${checkpoint.size} leaves is not an extension of the one of ${last.size} seen before: a fork`);
    } catch (err) {
      if (!(err instanceof CheckpointError)) throw err;
      problem("checkpoint", `the last checkpoint given: ${err.message}`);
    }
  }

  // The agent's leaves in the tree, newest first, each proven included.
  const wanted = new Set([...listed.map((e) => e.n), ...promised.map((p) => p.claims.seq)]);
  const names = await leafNames(ownerKeys, listed.length, promised);
  const leaves = await agentLeaves(log, checkpoint, names, wanted);
  for (const [seq, found] of leaves) {
    if (!(await log.verifyLeaf(found.leaf, found.index, checkpoint))) problem("log", `the leaf of entry ${seq} (index ${found.index}) is not included in the checkpoint's tree`);
  }

  if (listed.length > 0) {
    const highest = Math.max(0, ...leaves.keys());
    for (const e of listed) {
      const entry = JSON.parse(e.entry) as Entry;
      const found = leaves.get(e.n);
      if (!found) {
        if (e.n < highest) problem("log", `entry ${e.n} has no leaf in the log, though later entries have`);
        continue;
      }
      report.sequenced++;
      const face = faceOf(entry);
      if (e.score === null || (face !== null && face !== e.score)) problem("log", `entry ${e.n}: the score listed is not the entry's own`);
      else if (isTagged(found.leaf)) {
        if (found.leaf.commit !== (await entryCommit(e.n, e.hash, e.score, entry.nonce))) problem("log", `entry ${e.n} is not the entry and score its leaf commits to: altered or replaced`);
      } else if (found.leaf.entry_hash !== e.hash) problem("log", `entry ${e.n} is not the entry its leaf commits to: altered or replaced`);
      else if (found.leaf.score_commit !== (await scoreCommit(e.score, entry.nonce))) problem("log", `entry ${e.n}: its leaf commits to another score than the one listed`);
    }
    if (highest > listed.length) problem("log", `the log holds a leaf of entry ${highest}, but the entries end at ${listed.length}: entries dropped`);

    // A retention snapshot sums up the entries before it: it must be their fold.
    for (const n of checkSnapshots(listed.map((e) => JSON.parse(e.entry) as Entry))) problem("replay", `the snapshot in entry ${n} is not the fold of the entries it covers`);
    // The replay: the entries, through the model, to the score the service serves now.
    const served = await get<{ composite_score: number; model?: { version: number } }>(`/score/${encodeURIComponent(options.sid)}`, true);
    const replayed = replayScore(listed.map((e) => JSON.parse(e.entry) as Entry), now);
    report.score = { served: served.composite_score, replayed };
    if (replayed !== served.composite_score) problem("replay", `the entries replay to ${replayed}, the service serves ${served.composite_score}`);
  }

  for (const { claims } of promised) {
    report.promises.checked++;
    const found = leaves.get(claims.seq);
    const listedEntry = listed.find((e) => e.n === claims.seq);
    if (listed.length > 0 && (!listedEntry || listedEntry.hash !== claims.entry_hash)) problem("promise", `entry ${claims.seq} promised to a reporter is not among the entries: dropped or replaced`);
    if (found) {
      if (!sameLeaf(found.leaf, claims.leaf)) problem("promise", `the log's leaf of entry ${claims.seq} is not the leaf promised`);
    } else if (now - claims.iat * 1000 > (options.promiseGraceMs ?? PROMISE_GRACE_MS)) {
      problem("promise", `the report promised as entry ${claims.seq} is missing from the log`);
    } else {
      report.promises.pending++;
    }
  }
  return finish();

  function finish(): VerifyReport {
    report.ok = problems.length === 0;
    return report;
  }
}

interface PromiseClaims {
  sub: string;
  iat: number;
  log: string;
  seq: number;
  entry_hash: string;
  leaf: Leaf;
}

const sameLeaf = (a: Leaf, b: Leaf) => toBase64(leafBytes(a)) === toBase64(leafBytes(b));

/** GET /agents/{sid}/log-keys: the owner's keys to its agent's leaves. */
export interface OwnerLogKeys {
  sid: string;
  log: { log: number; origin: string };
  seq: number;
  agent: string;
  cutover: number | null;
  epochs: { epoch: number; from: number; to: number | null; key: string }[];
}

/** How an agent's leaves are recognised: its name on leaves of before (with their seq), and each tagged leaf's tag with its entry number. */
export interface LeafNames {
  agent: string | null;
  tags: Map<string, number>;
}

/** Leaves past the entries listed whose tags are computed too, so that a leaf of an entry the listing dropped is found. */
const TAGS_AHEAD = 16;

/**
 * The names of the agent's leaves: with the owner's keys, the tag of every entry after the cut-over
 * (and a few past the last, to catch dropped entries) in the epochs the keys cover; a promise's own
 * leaf names itself.
 */
export async function leafNames(keys: OwnerLogKeys | null, listed: number, promised: { claims: { leaf: Leaf } }[] = []): Promise<LeafNames> {
  const names: LeafNames = { agent: keys?.agent ?? null, tags: new Map() };
  if (keys && keys.cutover !== null) {
    const last = Math.max(keys.seq, listed) + TAGS_AHEAD;
    for (const epoch of keys.epochs) {
      const to = Math.min(epoch.to ?? last, last);
      for (let n = Math.max(epoch.from, keys.cutover + 1); n <= to; n++) names.tags.set(await entryTag(epoch.key, n), n);
    }
  }
  for (const { claims } of promised) {
    const leaf = claims.leaf;
    if (isTagged(leaf)) names.tags.set(leaf.tag, (claims as unknown as { seq: number }).seq);
    else names.agent ??= leaf.agent;
  }
  return names;
}

/**
 * The agent's leaves in the checkpoint's tree by entry number, read from the entry bundles from the
 * newest back until every wanted entry's leaf is found. A bundle's leaves are proven one by one by
 * the caller; a second leaf for one entry is a rewrite the sequencer should have refused.
 */
export async function agentLeaves(log: ReturnType<typeof createLogClient>, checkpoint: Checkpoint, names: LeafNames, wanted: ReadonlySet<number>): Promise<Map<number, { leaf: Leaf; index: number }>> {
  const found = new Map<number, { leaf: Leaf; index: number }>();
  for (let b = Math.floor((checkpoint.size - 1) / TILE_WIDTH); b >= 0 && checkpoint.size > 0; b--) {
    const bytes = await log.tiles({ level: "entries", index: b, width: tileWidth(0, b, checkpoint.size) });
    const bundle = parseBundle(bytes);
    if (!bundle) throw new LogReadError(`entry bundle ${b} is malformed`);
    for (let i = bundle.length - 1; i >= 0; i--) {
      const leaf = parseLeaf(bundle[i]);
      if (!leaf) continue;
      const n = isTagged(leaf) ? names.tags.get(leaf.tag) : leaf.agent === names.agent ? leaf.seq : undefined;
      if (n !== undefined && !found.has(n)) found.set(n, { leaf, index: b * TILE_WIDTH + i });
    }
    if ([...wanted].every((n) => found.has(n))) break;
  }
  return found;
}

export { Unreachable as VerifyUnreachable };

/** An attestation's `log` claim (GET /score/{sid}/attestation): the service's own type. */
export type { AttestationLog };

/**
 * Checks an attestation's `log` offline: its checkpoint is signed by a pinned key of its origin and
 * names its root and size, the leaf is included at `index` by the audit path, and the opening is what
 * the leaf's score commitment hides. Problems found, none when it holds.
 */
export async function verifyAttestationLog(log: AttestationLog, verifierKeys: string[], expectedSid?: string): Promise<Problem[]> {
  const problems: Problem[] = [];
  let checkpoint: Checkpoint;
  try {
    checkpoint = await verifyCheckpoint(log.checkpoint, verifierKeys, log.origin);
  } catch (err) {
    if (err instanceof CheckpointError) return [{ kind: "checkpoint", message: `the attestation's checkpoint: ${err.message}` }];
    throw err;
  }
  if (checkpoint.size !== log.tree_size || toBase64(checkpoint.root) !== log.root) problems.push({ kind: "checkpoint", message: "the attestation's tree size or root is not its checkpoint's" });
  const proof = log.inclusion.map((h) => fromBase64(h) ?? new Uint8Array());
  if (!(await verifyInclusion(log.index, checkpoint.size, await leafHash(log.leaf), proof, checkpoint.root))) problems.push({ kind: "log", message: "the attestation's leaf is not included in its checkpoint's tree" });
  const { sid, n, entry_hash, score, nonce } = log.opening;
  const opens = isTagged(log.leaf)
    ? (await entryCommit(n, entry_hash, score, nonce)) === log.leaf.commit
    : (await scoreCommit(score, nonce)) === log.leaf.score_commit && log.leaf.seq === n && log.leaf.entry_hash === entry_hash;
  if (!opens) problems.push({ kind: "log", message: "the attestation's opening does not open its leaf's commitment" });
  if (expectedSid !== undefined && sid !== expectedSid) problems.push({ kind: "log", message: `the attestation's leaf opens to ${sid}, not ${expectedSid}` });
  return problems;
}

/** `npm run verify`'s exit status for a report: 0 when every check held, else the first problem's. */
export const VERIFY_EXIT = { ok: 0, unreachable: 1, chain: 2, log: 3, checkpoint: 4, replay: 5, stale: 6, fork: 6, promise: 7 } as const;

export function verifyExitCode(report: VerifyReport): number {
  const order: ProblemKind[] = ["checkpoint", "fork", "stale", "chain", "log", "promise", "replay"];
  const first = order.find((kind) => report.problems.some((p) => p.kind === kind));
  return first ? VERIFY_EXIT[first] : VERIFY_EXIT.ok;
}
