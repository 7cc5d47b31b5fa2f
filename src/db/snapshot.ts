// Credibility snapshots in R2 (binding MODEL_BUCKET), as the cross-agent job publishes them and the
// agents' objects read them (docs/scoring.md, "The cross-agent job").
//
// A snapshot `id` (its UTC day and run, e.g. "2026-11-27.3") is a set of objects under
// `snapshot/<id>/`: `levels.bin`, one byte per operator id (its credibility level, c × 20; the next
// run's `previous`), and `b/<n>.bin`, the same bytes for operator ids [n × bucketIds, (n + 1) ×
// bucketIds), so an object reads only the buckets of the reporters it needs. `snapshot/current.json`
// (the manifest) names the snapshot in force and is written last: a reader sees a whole snapshot or
// the one before. An isolate keeps the manifest a minute and the buckets it read for as long as their
// snapshot is in force. When R2 cannot be read the reader throws SnapshotUnavailable: the caller keeps
// the values in force, never "everyone at 0".

import { ApiError, errors } from "../domain/errors";
import { credibilityOfLevel } from "../domain/model";
import type { Env } from "../env";

/** What `snapshot/current.json` holds: the snapshot in force. */
export interface SnapshotManifest {
  id: string;
  /** The UTC day it was computed for. */
  day: number;
  publishedAt: number;
  /** Operator ids 0..operators−1 are in `levels.bin` (higher ids hold 0). */
  operators: number;
  /** Operator ids per bucket object. */
  bucketIds: number;
  buckets: number;
  /** Operators with c > 0, pairs read, anchors named: figures for the status. */
  credible: number;
  pairs: number;
  anchors: number;
}

export const MANIFEST_KEY = "snapshot/current.json";
export const snapshotPrefix = (id: string) => `snapshot/${id}/`;
/** 16,384 ids a bucket: 16 KB, and 62 buckets at a million operators. */
export const BUCKET_IDS = 16_384;
const MANIFEST_TTL_MS = 60_000;
/** Bucket objects an isolate keeps (of the snapshot in force). */
const BUCKET_CACHE = 256;

type Bucket = Pick<R2Bucket, "get" | "put" | "delete" | "list">;

/** R2 could not be read (or a published object is missing): keep the credibility in force. */
export class SnapshotUnavailable extends ApiError {
  constructor(why: string) {
    const e = errors.snapshotUnavailable(why);
    super(e.code, e.message, e.headers);
    this.name = "SnapshotUnavailable";
  }
}

/** The order of snapshots: by day, then run. */
function newer(a: string, b: string): boolean {
  const [x, y] = [a, b].map((id) => id.split(".").map((part, i) => (i === 0 ? Date.parse(part) : Number(part))));
  return x[0] !== y[0] ? x[0] > y[0] : x[1] > y[1];
}

/**
 * Writes snapshot `id` (levels by operator id): its buckets and `levels.bin`, not yet the manifest
 * (`publishManifest`, once the job's state names it). Idempotent: a run killed halfway writes the
 * same objects again.
 */
export async function writeSnapshot(bucket: Bucket, manifest: Omit<SnapshotManifest, "buckets" | "operators">, levels: Uint8Array): Promise<SnapshotManifest> {
  const prefix = snapshotPrefix(manifest.id);
  const buckets = Math.max(1, Math.ceil(levels.length / manifest.bucketIds));
  // At most 50 puts in flight.
  for (let i = 0; i < buckets; i += 50) {
    const group = [];
    for (let n = i; n < Math.min(buckets, i + 50); n++)
      group.push(bucket.put(`${prefix}b/${n}.bin`, levels.slice(n * manifest.bucketIds, (n + 1) * manifest.bucketIds)));
    await Promise.all(group);
  }
  await bucket.put(`${prefix}levels.bin`, levels);
  return { ...manifest, operators: levels.length, buckets };
}

/** Snapshot `id`'s levels by operator id (the job's `previous`), or null when it is not there. */
export async function readLevels(bucket: Bucket, id: string): Promise<Uint8Array | null> {
  const object = await bucket.get(`${snapshotPrefix(id)}levels.bin`);
  return object ? new Uint8Array(await object.arrayBuffer()) : null;
}

/** The manifest in R2 as it is now (no cache), or null before the first snapshot. */
export async function readManifest(bucket: Bucket): Promise<SnapshotManifest | null> {
  const object = await bucket.get(MANIFEST_KEY);
  return object ? ((await object.json()) as SnapshotManifest) : null;
}

/**
 * Makes `manifest` the snapshot in force, unless it already is or a newer one is (a runner that
 * stalled after its run was published must not bring an older snapshot back). Returns whether it wrote.
 */
export async function publishManifest(bucket: Bucket, manifest: SnapshotManifest, now: number): Promise<boolean> {
  const current = await readManifest(bucket);
  if (current && (current.id === manifest.id || newer(current.id, manifest.id))) return false;
  await bucket.put(MANIFEST_KEY, JSON.stringify(manifest));
  manifestCache = { manifest, at: now };
  return true;
}

/** Deletes every object under `prefix` (staged pages, snapshots no longer kept). */
export async function deletePrefix(bucket: Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix, cursor });
    if (listed.objects.length > 0) await bucket.delete(listed.objects.map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}

let manifestCache: { manifest: SnapshotManifest | null; at: number } | null = null;
const bucketCache = new Map<string, Uint8Array>();

/** Drops this isolate's copies (tests, and after a publication elsewhere that must show at once). */
export function forgetSnapshot(): void {
  manifestCache = null;
  bucketCache.clear();
}

async function manifestInForce(env: Pick<Env, "MODEL_BUCKET">, now: number): Promise<SnapshotManifest | null> {
  if (manifestCache && Math.abs(now - manifestCache.at) < MANIFEST_TTL_MS) return manifestCache.manifest;
  let manifest: SnapshotManifest | null;
  try {
    manifest = await readManifest(env.MODEL_BUCKET);
  } catch (e) {
    throw new SnapshotUnavailable(`the manifest: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (manifest?.id !== manifestCache?.manifest?.id) bucketCache.clear();
  manifestCache = { manifest, at: now };
  return manifest;
}

/** The snapshot in force at `now` (the isolate's copy when under a minute old), or null before the first. */
export async function snapshotInForce(env: Pick<Env, "MODEL_BUCKET">, now: number): Promise<string | null> {
  return (await manifestInForce(env, now))?.id ?? null;
}

/**
 * c (a multiple of 0.05 in 0..1) of each of `operatorIds` in the snapshot in force: 0 for an operator
 * the snapshot lacks, every one 0 before the first snapshot (`snapshot` null). Reads only the buckets
 * the ids fall in, each once per snapshot per isolate. Throws SnapshotUnavailable when R2 cannot be
 * read or a bucket of the snapshot is missing.
 */
export async function credibilityOf(
  env: Pick<Env, "MODEL_BUCKET">,
  operatorIds: readonly number[],
  now: number,
): Promise<{ snapshot: string | null; values: Map<number, number> }> {
  const manifest = await manifestInForce(env, now);
  const values = new Map<number, number>();
  if (!manifest) {
    for (const id of operatorIds) values.set(id, 0);
    return { snapshot: null, values };
  }
  const wanted = new Set<number>();
  for (const id of operatorIds) if (id >= 0 && id < manifest.operators) wanted.add(Math.floor(id / manifest.bucketIds));
  const parts = new Map<number, Uint8Array>();
  await Promise.all(
    [...wanted].map(async (n) => {
      const key = `${manifest.id}/${n}`;
      let part = bucketCache.get(key);
      if (!part) {
        let object: R2ObjectBody | null;
        try {
          object = await env.MODEL_BUCKET.get(`${snapshotPrefix(manifest.id)}b/${n}.bin`);
        } catch (e) {
          throw new SnapshotUnavailable(`bucket ${n} of ${manifest.id}: ${e instanceof Error ? e.message : String(e)}`);
        }
        if (!object) throw new SnapshotUnavailable(`bucket ${n} of ${manifest.id} is missing`);
        part = new Uint8Array(await object.arrayBuffer());
        if (bucketCache.size >= BUCKET_CACHE) bucketCache.delete(bucketCache.keys().next().value!);
        bucketCache.set(key, part);
      }
      parts.set(n, part);
    }),
  );
  for (const id of operatorIds) {
    const n = Math.floor(id / manifest.bucketIds);
    const part = id >= 0 && id < manifest.operators ? parts.get(n) : undefined;
    values.set(id, part ? credibilityOfLevel(part[id - n * manifest.bucketIds] ?? 0) : 0);
  }
  return { snapshot: manifest.id, values };
}
