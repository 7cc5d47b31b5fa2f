// The transparency log, client side: fetch a log's checkpoint, tiles and entry bundles (C2SP
// tlog-tiles), verify the checkpoint's signature against the published keys, and prove and verify
// a leaf's inclusion and the consistency of two checkpoints from the tiles (RFC 9162). Nothing here
// trusts the server: every hash a proof uses is checked against a signed checkpoint's root.
//
//   const log = createLogClient({ baseUrl: "https://trust.example.com", log: 0 });
//   const keys = (await log.keys()).verifier_keys;            // pin these: fetch them once
//   const checkpoint = await log.verifiedCheckpoint(keys);
//   await log.verifyLeaf(leaf, index, checkpoint);            // true when the leaf is at index
//   await log.verifyConsistency(older, checkpoint);           // true when older is a prefix

import {
  consistencyProof,
  inclusionProof,
  leafBytes,
  hashLeaf,
  parseBundle,
  parseLeaf,
  tileNodeReader,
  tilePath,
  tileWidth,
  TILE_WIDTH,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  type Checkpoint,
  type Leaf,
  type TileSource,
} from "../../src/domain/log/index";

export {
  checkpointText,
  CheckpointError,
  consistencyProof,
  entryCommit,
  entryTag,
  fromBase64,
  isTagged,
  inclusionProof,
  leafBytes,
  leafHash,
  parseCheckpointText,
  parseLeaf,
  parseVerifierKey,
  scoreCommit,
  tileNodeReader,
  toBase64,
  toHex,
  treeHash,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  type Checkpoint,
  type Leaf,
  type LegacyLeaf,
  type TaggedLeaf,
  type TileSource,
} from "../../src/domain/log/index";

export interface LogClientOptions {
  /** Where the service runs, e.g. https://trust.example.com. */
  baseUrl: string;
  /** The log's number (an agent's log: its attestation's origin ends in /log/<n>). */
  log: number;
  fetch?: typeof fetch;
}

/** A log's answer that is not what a log must answer (a missing tile, a malformed bundle). */
export class LogReadError extends Error {}

export interface LogInfo {
  log: number;
  origin: string;
  verifier_keys: string[];
}

export function createLogClient({ baseUrl, log, fetch: fetcher = (input, init) => fetch(input, init) }: LogClientOptions) {
  const base = baseUrl.replace(/\/+$/, "");
  const prefix = `${base}/log/${log}/`;

  async function get(url: string): Promise<Response> {
    const res = await fetcher(url, { headers: { accept: "*/*" } });
    if (!res.ok) throw new LogReadError(`GET ${url}: ${res.status} ${(await res.text()).slice(0, 200)}`);
    return res;
  }

  const tiles: TileSource = async (tile) => new Uint8Array(await (await get(`${prefix}${tilePath(tile)}`)).arrayBuffer());

  /** The leaf bytes at `index` of the tree of `size` leaves, from its entry bundle (not yet verified). */
  async function entryAt(index: number, size: number): Promise<Uint8Array> {
    const n = Math.floor(index / TILE_WIDTH);
    const bundle = parseBundle(await tiles({ level: "entries", index: n, width: tileWidth(0, n, size) }));
    const entry = bundle?.[index % TILE_WIDTH];
    if (!entry) throw new LogReadError(`entry bundle ${n} does not hold entry ${index}`);
    return entry;
  }

  return {
    tiles,

    /** GET /log/keys: this log's origin and verifier keys (pin them; a new key appears beside the old one). */
    async keys(): Promise<LogInfo> {
      const body = (await (await get(`${base}/log/keys`)).json()) as { logs: LogInfo[] };
      const found = body.logs.find((l) => l.log === log);
      if (!found) throw new LogReadError(`the service has no log ${log}`);
      return found;
    },

    /** The log's current checkpoint as served: a signed note, not yet verified. */
    async checkpoint(): Promise<string> {
      return (await get(`${prefix}checkpoint`)).text();
    },

    /** The current checkpoint, verified against `keys` (verifier key strings) and, when given, the log's origin. */
    async verifiedCheckpoint(keys: string[], origin?: string): Promise<Checkpoint> {
      return verifyCheckpoint(await this.checkpoint(), keys, origin);
    },

    proveInclusion: (index: number, size: number) => inclusionProof(tileNodeReader(tiles, size), index, size),
    proveConsistency: (size1: number, size2: number) => consistencyProof(tileNodeReader(tiles, size2), size1, size2),

    /** Whether `leaf` is the log's entry `index` in the tree of the (verified) checkpoint. */
    async verifyLeaf(leaf: Leaf | Uint8Array, index: number, checkpoint: Checkpoint): Promise<boolean> {
      if (!(index >= 0 && index < checkpoint.size)) return false;
      const bytes = leaf instanceof Uint8Array ? leaf : leafBytes(leaf);
      return verifyInclusion(index, checkpoint.size, await hashLeaf(bytes), await this.proveInclusion(index, checkpoint.size), checkpoint.root);
    },

    /** The leaf at `index`, read from its entry bundle and proven included in the (verified) checkpoint's tree; null when it is not. */
    async leaf(index: number, checkpoint: Checkpoint): Promise<Leaf | null> {
      const bytes = await entryAt(index, checkpoint.size);
      return (await this.verifyLeaf(bytes, index, checkpoint)) ? parseLeaf(bytes) : null;
    },

    /** Whether the tree of `older` is a prefix of the tree of `newer` (both verified checkpoints of this log). */
    async verifyConsistency(older: Checkpoint, newer: Checkpoint): Promise<boolean> {
      if (older.size > newer.size) return false;
      return verifyConsistency(older.size, newer.size, older.root, newer.root, await this.proveConsistency(older.size, newer.size));
    },

    /**
     * How a newly seen checkpoint relates to the last one kept: the same tree, a newer one that
     * extends it, an older one whose tree it extends (stale: not newer, no fork), or a fork (the two
     * cannot both be this log's: equal sizes with different roots, or no consistency proof).
     */
    async compare(last: Checkpoint, next: Checkpoint): Promise<"same" | "newer" | "stale" | "fork"> {
      if (last.size === next.size) return last.root.every((b, i) => b === next.root[i]) ? "same" : "fork";
      const [older, newer] = last.size < next.size ? [last, next] : [next, last];
      if (!(await this.verifyConsistency(older, newer))) return "fork";
      return next.size > last.size ? "newer" : "stale";
    },
  };
}

export type LogClient = ReturnType<typeof createLogClient>;
