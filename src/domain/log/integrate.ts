// Integration: the tree's right edge (the rightmost, partial tile of every level) grown by a batch
// of leaf hashes, giving the tiles to publish and the new root. Pure: the sequencer stores the edge
// and writes the tiles; the same leaves always give the same bytes, so writing them again is safe.

import { concat, type Bytes } from "./bytes";
import { HASH_SIZE, perfectRoot, treeHash } from "./merkle";
import { levelCount, TILE_WIDTH, tileNodeReader, type TileId } from "./tiles";

/** The tree of `size` leaves by its rightmost tiles: `partials[L]` holds the hashes of level L's partial tile (0 to 255). */
export interface Edge {
  size: number;
  partials: Uint8Array[][];
}

export const EMPTY_EDGE: Edge = { size: 0, partials: [] };

export interface Integrated {
  edge: Edge;
  /** Every tile the batch completed, then the partial tile of each level of the new tree (none empty). */
  tiles: { tile: TileId; bytes: Bytes }[];
  root: Uint8Array;
}

export async function integrate(edge: Edge, leafHashes: Uint8Array[]): Promise<Integrated> {
  const partials = edge.partials.map((hashes) => [...hashes]);
  const tiles: Integrated["tiles"] = [];
  let size = edge.size;
  for (const hash of leafHashes) {
    size++;
    let carry: Uint8Array = hash;
    for (let level = 0; ; level++) {
      if (!partials[level]) partials[level] = [];
      partials[level].push(carry);
      if (partials[level].length < TILE_WIDTH) break;
      tiles.push({ tile: { level, index: levelCount(level, size) / TILE_WIDTH - 1, width: TILE_WIDTH }, bytes: concat(...partials[level]) });
      carry = perfectRoot(partials[level]);
      partials[level] = [];
    }
  }
  while (partials.length > 0 && partials[partials.length - 1].length === 0) partials.pop();
  const partialTiles = partials.flatMap((hashes, level) =>
    hashes.length === 0 ? [] : [{ tile: { level, index: Math.floor(levelCount(level, size) / TILE_WIDTH), width: hashes.length }, bytes: concat(...hashes) }],
  );
  tiles.push(...partialTiles);
  const byPath = new Map(tiles.map((t) => [`${t.tile.level}/${t.tile.index}/${t.tile.width}`, t.bytes]));
  const root = await treeHash(
    tileNodeReader(async ({ level, index, width }) => {
      const bytes = byPath.get(`${level}/${index}/${width}`);
      // The root needs only the right edge: a miss here is a bug, never a state of the tree.
      if (!bytes) throw new Error(`integration: tile ${level}/${index}/${width} is not on the right edge`);
      return bytes;
    }, size),
    size,
  );
  return { edge: { size, partials }, tiles, root };
}

/** A partial tile's bytes as the edge stores them, and back. */
export const packHashes = (hashes: Uint8Array[]): Bytes => concat(...hashes);
export function unpackHashes(bytes: Uint8Array): Uint8Array[] {
  const hashes: Uint8Array[] = [];
  for (let at = 0; at + HASH_SIZE <= bytes.length; at += HASH_SIZE) hashes.push(bytes.slice(at, at + HASH_SIZE));
  return hashes;
}
