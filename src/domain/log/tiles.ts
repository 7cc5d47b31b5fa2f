// The C2SP tlog-tiles layout (https://c2sp.org/tlog-tiles): the tree served as tiles of 256 hashes
// (height 8) and the entries as bundles of 256, at paths `tile/<L>/<N>[.p/<W>]` and
// `tile/entries/<N>[.p/<W>]`, where N is written in groups of three digits (`x001/x234/067`).

import { concat, type Bytes } from "./bytes";
import { HASH_SIZE, perfectRoot, type NodeReader } from "./merkle";

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
/** The highest level a tile path may name. */
export const MAX_TILE_LEVEL = 63;

/** A tile of the tree (level ≥ 0) or an entry bundle (level "entries"), `width` hashes or entries wide (256: full). */
export interface TileId {
  level: number | "entries";
  index: number;
  width: number;
}

/** N as the path writes it: three-digit groups, all but the last prefixed with x. */
export function encodeTileIndex(index: number): string {
  let path = String(index % 1000).padStart(3, "0");
  for (let n = Math.floor(index / 1000); n > 0; n = Math.floor(n / 1000)) path = `x${String(n % 1000).padStart(3, "0")}/${path}`;
  return path;
}

export const tilePath = ({ level, index, width }: TileId): string => `tile/${level}/${encodeTileIndex(index)}${width < TILE_WIDTH ? `.p/${width}` : ""}`;

const PATH = /^tile\/(0|[1-9][0-9]?|entries)\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/** The tile a path names, or null unless it is exactly a C2SP tile or bundle path (canonical N, W in 1..255, L ≤ 63). */
export function parseTilePath(path: string): TileId | null {
  const m = PATH.exec(path);
  if (!m) return null;
  const level = m[1] === "entries" ? "entries" : Number(m[1]);
  if (level !== "entries" && level > MAX_TILE_LEVEL) return null;
  const index = Number(m[2].replaceAll("x", "").replaceAll("/", ""));
  if (!Number.isSafeInteger(index) || encodeTileIndex(index) !== m[2]) return null;
  if (m[3] === undefined) return { level, index, width: TILE_WIDTH };
  const width = Number(m[3]);
  return width < TILE_WIDTH ? { level, index, width } : null;
}

/** How many hashes the tree of `size` leaves has at tile level `level` (one per 256^level leaves). */
export const levelCount = (level: number, size: number) => Math.floor(size / TILE_WIDTH ** level);

/** The width of tile `index` at `level` in the tree of `size` leaves: 0 when the tree has none of it. */
export function tileWidth(level: number, index: number, size: number): number {
  return Math.max(0, Math.min(TILE_WIDTH, levelCount(level, size) - index * TILE_WIDTH));
}

/** Reads one tile (or bundle) at the width the tree needs; a reader may throw when it cannot. */
export type TileSource = (tile: TileId) => Promise<Uint8Array>;

/** A tile or bundle that is not what the layout says it must be. */
export class TileError extends Error {}

/**
 * The complete subtrees of the tree of `size` leaves, read from its tiles. A node whose height is a
 * multiple of 8 is a hash in a tile; the heights between are hashed from the tile below. Each tile
 * is read once, at the width the tree of `size` has, and must be exactly that long.
 */
export function tileNodeReader(source: TileSource, size: number): NodeReader {
  const tiles = new Map<string, Promise<Uint8Array>>();
  const tile = (level: number, index: number) => {
    const width = tileWidth(level, index, size);
    const key = `${level}/${index}/${width}`;
    let found = tiles.get(key);
    if (!found) {
      found = source({ level, index, width }).then((bytes) => {
        if (bytes.length !== width * HASH_SIZE)
          throw new TileError(`tile ${tilePath({ level, index, width })} has ${bytes.length} bytes, not ${width * HASH_SIZE}`);
        return bytes;
      });
      tiles.set(key, found);
    }
    return found;
  };
  return async (height, index) => {
    const level = Math.floor(height / TILE_HEIGHT);
    const span = 2 ** (height % TILE_HEIGHT);
    const first = index * span;
    const tileIndex = Math.floor(first / TILE_WIDTH);
    const offset = first % TILE_WIDTH;
    if (offset + span > tileWidth(level, tileIndex, size)) throw new RangeError(`node ${height}/${index} is not in a tree of ${size}`);
    const bytes = await tile(level, tileIndex);
    const hashes: Uint8Array[] = [];
    for (let i = offset; i < offset + span; i++) hashes.push(bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
    return perfectRoot(hashes);
  };
}

/** An entry bundle: each entry as a big-endian uint16 length and its bytes. */
export function encodeBundle(entries: Uint8Array[]): Bytes {
  return concat(
    ...entries.flatMap((entry) => {
      if (entry.length > 0xffff) throw new RangeError("an entry is longer than 65535 bytes");
      return [Uint8Array.of(entry.length >> 8, entry.length & 0xff), entry];
    }),
  );
}

/** The entries of a bundle, or null when its bytes are not a sequence of length-prefixed entries. */
export function parseBundle(bytes: Uint8Array): Uint8Array[] | null {
  const entries: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    if (at + 2 > bytes.length) return null;
    const length = (bytes[at] << 8) | bytes[at + 1];
    if (at + 2 + length > bytes.length) return null;
    entries.push(bytes.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}
