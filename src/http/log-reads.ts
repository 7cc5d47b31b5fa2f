// The logs' public reads, straight from R2 (the sequencers answer none): the checkpoint, tiles and
// entry bundles, kept in the edge cache (Cache API) under a key of their own. A partial tile or
// bundle that R2 no longer has (a full one replaced it) or never had (no checkpoint had that size)
// is answered from the wider one it begins, as long as the current tree holds it.

import { parseCheckpointText } from "../domain/log/checkpoint";
import { inclusionProof, parseLeaf, type Checkpoint, type Leaf } from "../domain/log";
import { encodeBundle, parseBundle, tileNodeReader, tilePath, tileWidth, TILE_WIDTH, type TileId, type TileSource } from "../domain/log/tiles";
import { HASH_SIZE } from "../domain/log/merkle";

export const CHECKPOINT_CACHE = "public, max-age=2";
export const FULL_TILE_CACHE = "public, max-age=31536000, immutable";
export const PARTIAL_TILE_CACHE = "public, max-age=60";

const key = (n: number, path: string) => `log/${n}/${path}`;

/** The current checkpoint of log n as R2 holds it, or null before the first batch. */
export async function storedCheckpoint(bucket: R2Bucket, n: number): Promise<{ note: string; etag: string; checkpoint: Checkpoint } | null> {
  const object = await bucket.get(key(n, "checkpoint"));
  if (!object) return null;
  const note = await object.text();
  const parsed = parseCheckpointText(note.slice(0, note.lastIndexOf("\n\n") + 1));
  if (!parsed.ok) throw new Error(`log ${n}: the stored checkpoint is unreadable: ${parsed.reason}`);
  return { note, etag: object.httpEtag, checkpoint: parsed.checkpoint };
}

export type TileAnswer = { found: true; bytes: Uint8Array; etag: string } | { found: false; size: number | null };

/**
 * A tile or bundle of log n: the object itself, else the first `width` hashes or entries of the
 * wider one R2 has (the full tile, else the partial tile of the current tree). Not found when the
 * current tree (size given) does not reach it.
 */
export async function storedTile(bucket: R2Bucket, n: number, tile: TileId): Promise<TileAnswer> {
  const exact = await bucket.get(key(n, tilePath(tile)));
  if (exact) return { found: true, bytes: new Uint8Array(await exact.arrayBuffer()), etag: exact.httpEtag };
  const current = await storedCheckpoint(bucket, n);
  const size = current?.checkpoint.size ?? 0;
  const have = tileWidth(tile.level === "entries" ? 0 : tile.level, tile.index, size);
  if (!current || have < tile.width) return { found: false, size: current ? size : null };
  const wider = await bucket.get(key(n, tilePath({ ...tile, width: have })));
  if (!wider) return { found: false, size };
  const bytes = new Uint8Array(await wider.arrayBuffer());
  const prefix = tile.level === "entries" ? encodeBundle((parseBundle(bytes) ?? []).slice(0, tile.width)) : bytes.slice(0, tile.width * HASH_SIZE);
  return { found: true, bytes: prefix, etag: `"${wider.httpEtag.replaceAll('"', "")}-${tile.width}"` };
}

/** Log n's tiles as a proof source (the service's own reads, e.g. an attestation's inclusion proof). */
export const bucketTileSource =
  (bucket: R2Bucket, n: number): TileSource =>
  async (tile) => {
    const answer = await storedTile(bucket, n, tile);
    if (!answer.found) throw new Error(`log ${n}: ${tilePath(tile)} is not in R2`);
    return answer.bytes;
  };

/** The inclusion proof of leaf `index` in log n's tree of `size` leaves, from the tiles in R2. */
export const inclusionFromBucket = (bucket: R2Bucket, n: number, index: number, size: number) =>
  inclusionProof(tileNodeReader(bucketTileSource(bucket, n), size), index, size);

export const tileCacheControl = (tile: TileId) => (tile.width === TILE_WIDTH ? FULL_TILE_CACHE : PARTIAL_TILE_CACHE);

/** Leaf `index` of log n's tree of `size` leaves, as its entry bundle in R2 holds it; null when the bytes are not a leaf. */
export async function leafFromBucket(bucket: R2Bucket, n: number, index: number, size: number): Promise<Leaf | null> {
  const bundle = Math.floor(index / TILE_WIDTH);
  const bytes = await bucketTileSource(bucket, n)({ level: "entries", index: bundle, width: tileWidth(0, bundle, size) });
  const entry = parseBundle(bytes)?.[index % TILE_WIDTH];
  return entry ? parseLeaf(entry) : null;
}
