// The service's credibility source (R1): the one place an agent's object asks for the credibility of
// its reporters, and where the credibility job's snapshots live (R2, binding MODEL_BUCKET).
//
// A snapshot is published as a set of objects under `credibility/snapshots/<id>/`: `state.json` (the
// whole StandingSnapshot, the next run's `previous`) and `reporters/<b>.json`, the entries of the
// reporters whose hash falls in bucket b of `buckets`; then `credibility/current.json` names it
// (written last, so a reader sees a whole snapshot or the one before). An isolate keeps the manifest
// for a minute and each bucket it read for as long as that snapshot is current. Reporters are keyed
// by operator id here; the object translates them to its own numbering.

import { bootstrapFloor, snapshotSource, type CredibilitySource, type StandingEntry, type StandingSnapshot } from "../domain/model";
import { fnv1a } from "../domain/identifiers";
import type { Env } from "../env";
import { readModelSettings } from "./model-settings";

/** What `credibility/current.json` holds: the snapshot in force. */
export interface SnapshotManifest {
  /** The snapshot's name: its UTC day and run, e.g. "2026-11-27.1". */
  id: string;
  day: number;
  publishedAt: number;
  buckets: number;
  earnedShare: number;
  reporters: number;
}

export const MANIFEST_KEY = "credibility/current.json";
export const snapshotPrefix = (id: string) => `credibility/snapshots/${id}/`;
const MANIFEST_TTL_MS = 60_000;
/** Reporters per bucket object aimed at: a bucket stays small enough to read on a report's path. */
const REPORTERS_PER_BUCKET = 256;
const MAX_BUCKETS = 4096;
/** Bucket objects an isolate keeps (of the current snapshot). */
const BUCKET_CACHE = 512;

/** No standing computed yet: nobody has earned standing, and the earned share is 0. */
export const EMPTY_SNAPSHOT: StandingSnapshot = { day: 0, reporters: {}, ledger: {}, earnedShare: 0 };

/** The bucket of a reporter among `buckets` (FNV-1a of its id): where its entry is published. */
export const bucketOf = (reporter: string, buckets: number): number => fnv1a(reporter) % buckets;

/** How many buckets a snapshot of `reporters` reporters is published in (a power of two). */
export function bucketCount(reporters: number): number {
  let n = 1;
  while (n < MAX_BUCKETS && n * REPORTERS_PER_BUCKET < reporters) n *= 2;
  return n;
}

type Bucket = Pick<R2Bucket, "get" | "put" | "delete" | "list">;

/**
 * Writes `snapshot` as `id`: its buckets and its state, not yet the manifest (`publishManifest`, once
 * the job's state names it). Idempotent: a run killed halfway writes the same objects again.
 */
export async function writeSnapshot(bucket: Bucket, id: string, snapshot: StandingSnapshot, now: number): Promise<SnapshotManifest> {
  const ids = Object.keys(snapshot.reporters);
  const buckets = bucketCount(ids.length);
  const parts: Record<string, StandingEntry>[] = Array.from({ length: buckets }, () => ({}));
  for (const r of ids) parts[bucketOf(r, buckets)][r] = snapshot.reporters[r];
  const prefix = snapshotPrefix(id);
  // Sequential puts in groups: at most a few hundred in flight.
  for (let i = 0; i < buckets; i += 100) {
    await Promise.all(parts.slice(i, i + 100).map((part, j) => bucket.put(`${prefix}reporters/${i + j}.json`, JSON.stringify(part))));
  }
  await bucket.put(`${prefix}state.json`, JSON.stringify(snapshot));
  return { id, day: snapshot.day, publishedAt: now, buckets, earnedShare: snapshot.earnedShare, reporters: ids.length };
}

/** The order of snapshots: by day, then run. */
const snapshotOrder = (id: string) => id.split(".").map((part, i) => (i === 0 ? Date.parse(part) : Number(part)));
const newer = (a: string, b: string) => {
  const [x, y] = [snapshotOrder(a), snapshotOrder(b)];
  return x[0] !== y[0] ? x[0] > y[0] : x[1] > y[1];
};

/**
 * Makes `manifest` the snapshot in force, unless a newer one is (a runner that stalled after its
 * run was published must not bring an older snapshot back). Returns whether it wrote.
 */
export async function publishManifest(bucket: Bucket, manifest: SnapshotManifest, now: number): Promise<boolean> {
  const current = await bucket.get(MANIFEST_KEY);
  const id = current ? ((await current.json()) as SnapshotManifest).id : null;
  if (id === manifest.id || (id !== null && newer(id, manifest.id))) return false;
  await bucket.put(MANIFEST_KEY, JSON.stringify(manifest));
  manifestCache = { manifest, at: now };
  return true;
}

/** The manifest of snapshot `id` as written with it (its state's figures), for a manifest written late. */
export async function manifestOf(bucket: Bucket, id: string, publishedAt: number): Promise<SnapshotManifest | null> {
  const state = await readSnapshotState(bucket, id);
  if (!state) return null;
  const reporters = Object.keys(state.reporters).length;
  return { id, day: state.day, publishedAt, buckets: bucketCount(reporters), earnedShare: state.earnedShare, reporters };
}

/** The whole snapshot `id` (the job's `previous`), or null. */
export async function readSnapshotState(bucket: Bucket, id: string): Promise<StandingSnapshot | null> {
  const object = await bucket.get(`${snapshotPrefix(id)}state.json`);
  return object ? ((await object.json()) as StandingSnapshot) : null;
}

let manifestCache: { manifest: SnapshotManifest | null; at: number } | null = null;
const bucketCache = new Map<string, Record<string, StandingEntry>>();

/** The snapshot in force (from the isolate's copy when under a minute old), or null before the first. */
export async function currentSnapshot(bucket: Bucket, now: number): Promise<SnapshotManifest | null> {
  if (manifestCache && Math.abs(now - manifestCache.at) < MANIFEST_TTL_MS) return manifestCache.manifest;
  const object = await bucket.get(MANIFEST_KEY);
  const manifest = object ? ((await object.json()) as SnapshotManifest) : null;
  if (manifest?.id !== manifestCache?.manifest?.id) bucketCache.clear();
  manifestCache = { manifest, at: now };
  return manifest;
}

/** Drops this isolate's copies (tests, and after a publication elsewhere that must show at once). */
export function forgetSnapshots(): void {
  manifestCache = null;
  bucketCache.clear();
}

/** The entries of `reporters` in snapshot `manifest`, reading only the buckets they fall in. */
export async function snapshotOf(bucket: Bucket, manifest: SnapshotManifest, reporters: Iterable<string>): Promise<StandingSnapshot> {
  const wanted = new Set<number>();
  for (const r of reporters) wanted.add(bucketOf(r, manifest.buckets));
  const parts = await Promise.all(
    [...wanted].map(async (b) => {
      const key = `${manifest.id}/${b}`;
      const cached = bucketCache.get(key);
      if (cached) return cached;
      const object = await bucket.get(`${snapshotPrefix(manifest.id)}reporters/${b}.json`);
      // Never "nobody has standing" for a bucket that is not there: the caller keeps the values in force.
      if (!object) throw new Error(`credibility snapshot ${manifest.id}: bucket ${b} is missing`);
      const part = (await object.json()) as Record<string, StandingEntry>;
      if (bucketCache.size >= BUCKET_CACHE) bucketCache.delete(bucketCache.keys().next().value!);
      bucketCache.set(key, part);
      return part;
    }),
  );
  const entries: Record<string, StandingEntry> = {};
  for (const r of reporters) {
    for (const part of parts) if (part[r]) entries[r] = part[r];
  }
  return { day: manifest.day, reporters: entries, ledger: {}, earnedShare: manifest.earnedShare };
}

/**
 * The credibility source at `now` for `reporters` (operator ids): c = max(seed, standing without the
 * judged owner, the bootstrap floor for a verified operator) × agreement, from the current snapshot
 * (none before the first run) and the latch.
 */
export async function credibilitySource(env: Pick<Env, "DB" | "MODEL_SHADOW_DAYS" | "MODEL_BUCKET">, now: number, reporters: Iterable<string> = []): Promise<CredibilitySource> {
  const [{ latch }, manifest] = await Promise.all([readModelSettings(env, now), env.MODEL_BUCKET ? currentSnapshot(env.MODEL_BUCKET, now) : Promise.resolve(null)]);
  const snapshot = manifest ? await snapshotOf(env.MODEL_BUCKET, manifest, reporters) : EMPTY_SNAPSHOT;
  const { floor } = bootstrapFloor(latch, now, snapshot.earnedShare);
  return { ...snapshotSource(snapshot, floor), snapshot: manifest?.id ?? null };
}
