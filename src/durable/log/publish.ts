// One batch of the sequencer: the accepted leaves from the published size up to a target fixed in
// storage first, integrated into the tree and written to R2 (tiles and entry bundles, then the
// signed checkpoint), then recorded as published. A batch cut short anywhere is done again from the
// same target by the next alarm: the same leaves give the same bytes, so rewriting them is harmless,
// and the checkpoint only ever names a tree whose tiles are all in R2.

import { utf8, type Bytes } from "../../domain/log/bytes";
import { signCheckpoint } from "../../domain/log/checkpoint";
import { integrate } from "../../domain/log/integrate";
import { leafHashNow } from "../../domain/log/merkle";
import type { NoteSigner } from "../../domain/log/note";
import { encodeBundle, levelCount, TILE_WIDTH, tilePath, type TileId } from "../../domain/log/tiles";
import type { SequencerStore } from "./store";

/** The most leaves one batch integrates; more wait for the next, at once. */
export const MAX_BATCH_LEAVES = 4096;

export type FailurePoint = "afterTiles" | "beforeCommit";

export interface BatchDeps {
  store: SequencerStore;
  bucket: R2Bucket;
  /** R2 key prefix of this log: `log/<n>/`. */
  prefix: string;
  origin: string;
  signers: NoteSigner[];
  /** Test hook: true to stop the batch at this point once. */
  fail: (point: FailurePoint) => boolean;
}

export interface BatchResult {
  /** The published tree size after this batch (unchanged when there was nothing to do). */
  size: number;
  /** R2 objects written (tiles, bundles, the checkpoint). */
  writes: number;
}

export class InjectedFailure extends Error {}

const OCTETS = { contentType: "application/octet-stream" };

/** Runs the batch in flight, or starts one when leaves wait; null when there is nothing to do. */
export async function runBatch(deps: BatchDeps): Promise<BatchResult | null> {
  const { store } = deps;
  let { accepted, published, batch } = store.counters();
  if (batch === null) {
    if (accepted === published) return null;
    batch = Math.min(accepted, published + MAX_BATCH_LEAVES);
    store.startBatch(batch);
  }
  const target = batch;
  const firstBundle = Math.floor(published / TILE_WIDTH);
  const leaves = store.leaves(firstBundle * TILE_WIDTH, target).map(utf8);
  const fresh = leaves.slice(published - firstBundle * TILE_WIDTH);
  const { edge, widths } = store.edge(published);
  const integrated = await integrate(edge, fresh.map(leafHashNow));

  const objects: { tile: TileId; bytes: Bytes }[] = [...integrated.tiles];
  for (let n = firstBundle; n * TILE_WIDTH < target; n++) {
    const entries = leaves.slice((n - firstBundle) * TILE_WIDTH, (n - firstBundle + 1) * TILE_WIDTH);
    objects.push({ tile: { level: "entries", index: n, width: entries.length }, bytes: encodeBundle(entries) });
  }
  await Promise.all(objects.map(({ tile, bytes }) => deps.bucket.put(`${deps.prefix}${tilePath(tile)}`, bytes, { httpMetadata: OCTETS })));
  if (deps.fail("afterTiles")) throw new InjectedFailure("after the tiles");

  // A full tile supersedes the partial ones written before it (C2SP allows deleting them; the reads
  // answer a partial tile from the full one). Deleting is free in R2.
  const { superseded, next } = partialWidths(widths, published, target);
  const keys = superseded.map((tile) => `${deps.prefix}${tilePath(tile)}`);
  for (let i = 0; i < keys.length; i += 1000) await deps.bucket.delete(keys.slice(i, i + 1000));

  const checkpoint = await signCheckpoint({ origin: deps.origin, size: target, root: integrated.root }, deps.signers);
  await deps.bucket.put(`${deps.prefix}checkpoint`, checkpoint, { httpMetadata: { contentType: "text/plain; charset=utf-8" } });
  if (deps.fail("beforeCommit")) throw new InjectedFailure("before the commit");

  const writes = objects.length + 1;
  store.transaction(() => store.finishBatch(edge, integrated.edge, next, checkpoint, Math.floor(target / TILE_WIDTH) * TILE_WIDTH, writes));
  return { size: target, writes };
}

/**
 * The partial tiles (and, with level 0, bundles) a batch from `published` to `target` leaves makes
 * obsolete, and the partial widths in R2 of each level's current tile afterwards.
 */
export function partialWidths(widths: number[][], published: number, target: number): { superseded: TileId[]; next: number[][] } {
  const superseded: TileId[] = [];
  const next: number[][] = [];
  for (let level = 0; levelCount(level, target) > 0 || level < widths.length; level++) {
    const startTile = Math.floor(levelCount(level, published) / TILE_WIDTH);
    const count = levelCount(level, target);
    const before = widths[level] ?? [];
    const full = Math.floor(count / TILE_WIDTH) > startTile;
    if (full) {
      for (const width of before) {
        superseded.push({ level, index: startTile, width });
        if (level === 0) superseded.push({ level: "entries", index: startTile, width });
      }
    }
    const width = count % TILE_WIDTH;
    const kept = full ? [] : before;
    next[level] = width === 0 ? [] : kept.includes(width) ? kept : [...kept, width];
  }
  return { superseded, next };
}
