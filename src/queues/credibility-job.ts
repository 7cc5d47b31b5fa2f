// The credibility job (R1): standing, vouching and agreement computed from the shards' daily rollups,
// never from raw reports, and published as a snapshot that agents' objects read. Run by the Cron
// Trigger every 15 minutes (it does nothing once the day's snapshot is out), by admins on demand
// (POST /admin/model/credibility/run, `npm run admin -- credibility run`) and by tests.
//
// A run reads the last 180 days of rollups shard by shard, a page at a time, and stages each page in
// R2 before it moves its cursor past it: a run stopped by its budget (or killed) resumes at its
// cursor, and a page read again overwrites the same object, so nothing is counted twice. Once every
// shard is read it computes the snapshot with the model's pure `computeStanding` (the previous
// snapshot's standing vouches), publishes it, closes the bootstrap latch if earned standing reached
// its end, prunes rollups past the window and drops the staged pages.

import { readJobState, writeJobState, type JobRun, type JobState } from "../db/credibility-job";
import { currentSnapshot, manifestOf, publishManifest, readSnapshotState, snapshotPrefix, writeSnapshot } from "../db/credibility";
import { readAnchors, recordEarnedShare } from "../db/model-settings";
import { pruneRollups, readRollups } from "../db/rollups";
import { computeStanding, DAY_MS, leanRollups, MODEL, packRollup, type PackedRollup } from "../domain/model";
import { shardDatabases, type Env } from "../env";

/** Rollup rows per page (one D1 query, one staged R2 object). */
export const PAGE_ROWS = 2_000;
/** Pages one invocation reads before it stops (the cron's next run goes on). */
export const PAGES_PER_RUN = 200;
/** Old rollup rows leave in statements of PRUNE_ROWS, at most PRUNE_STATEMENTS per shard per published run. */
const PRUNE_ROWS = 10_000;
const PRUNE_STATEMENTS = 20;
/** Snapshots kept in R2: the current one and two before it (isolates may still read them for a minute). */
const KEEP_SNAPSHOTS = 3;

/**
 * Rows one pass computes at most: a Worker's 128 MB hold a pass over about 290,000 (435 MB per
 * million at the peak, docs/performance.md). Past it the run waits, read, for a split computation,
 * rather than dying of memory every 15 minutes; the snapshot in force stays.
 */
export const MAX_PASS_ROWS = 250_000;
/** CREDIBILITY_MAX_PASS_ROWS (a whole number), else MAX_PASS_ROWS. */
const passRows = (env: Pick<Env, "CREDIBILITY_MAX_PASS_ROWS">) =>
  /^[1-9][0-9]{0,8}$/.test(env.CREDIBILITY_MAX_PASS_ROWS ?? "") ? Number(env.CREDIBILITY_MAX_PASS_ROWS) : MAX_PASS_ROWS;

export interface JobOptions {
  /** Pages to read in this invocation at most (default PAGES_PER_RUN). */
  pages?: number;
  /** Rows per page (default PAGE_ROWS; tests use fewer). */
  pageRows?: number;
  /** Start a new run even though today's snapshot is out. */
  force?: boolean;
  /** Rows one pass may compute (default MAX_PASS_ROWS; tests use fewer). */
  maxRows?: number;
}

export interface JobOutcome {
  /** `published`: this invocation published a snapshot; `in_progress`: the run goes on at the next; `current`: today's is out; `busy`: another runner moved first. */
  status: "published" | "in_progress" | "current" | "busy" | "too_large";
  state: JobState;
  /** Rows and pages this invocation read. */
  read: { rows: number; pages: number };
}

const windowDays = MODEL.credibility.standingWindowMs / DAY_MS;
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const pageKey = (run: JobRun, shard: number, page: number, nonce: string) => `credibility/runs/${run.id}/${shard}/${page}-${nonce}.json`;

export async function runCredibilityJob(env: Env, now: number, options: JobOptions = {}): Promise<JobOutcome> {
  const budget = options.pages ?? PAGES_PER_RUN;
  const pageRows = options.pageRows ?? PAGE_ROWS;
  const shards = shardDatabases(env);
  const today = Math.floor(now / DAY_MS);
  const read = { rows: 0, pages: 0 };
  let state = await readJobState(env);
  const save = async (next: Omit<JobState, "v">) => {
    const written = await writeJobState(env, state, next, now);
    if (written) state = written;
    return written !== null;
  };

  if (!state.run) {
    if (!options.force && state.last && state.last.day >= today) {
      // A runner that died between its state and its manifest left the manifest behind: written now.
      if ((await currentSnapshot(env.MODEL_BUCKET, now))?.id !== state.last.id) {
        const manifest = await manifestOf(env.MODEL_BUCKET, state.last.id, state.last.publishedAt);
        if (manifest) await publishManifest(env.MODEL_BUCKET, manifest, now);
      }
      return { status: "current", state, read };
    }
    // Yesterday's standing vouches today: a second run on the same day starts from the same snapshot.
    const previous = state.last ? (state.last.day >= today ? state.last.previous : state.last.id) : null;
    const run: JobRun = { id: `${isoDay(today)}.${state.runs + 1}`, day: today, startedAt: now, shard: 0, cursor: null, keys: shards.map(() => []), rows: 0, previous };
    if (!(await save({ ...state, runs: state.runs + 1, run }))) return { status: "busy", state, read };
  }

  // Read: a page at a time, staged before the cursor moves past it.
  const fromDay = state.run!.day - windowDays + 1;
  const nonce = crypto.randomUUID().slice(0, 8);
  while (state.run!.shard < shards.length && read.pages < budget) {
    const run = state.run!;
    const page = await readRollups(shards[run.shard], fromDay, run.cursor, pageRows);
    read.pages++;
    read.rows += page.rows.length;
    const keys = run.keys.map((k) => [...k]);
    keys[run.shard] ??= [];
    if (page.rows.length > 0) {
      const key = pageKey(run, run.shard, keys[run.shard].length, nonce);
      await env.MODEL_BUCKET.put(key, JSON.stringify(page.rows.map(packRollup)));
      keys[run.shard].push(key);
    }
    const done = page.rows.length < pageRows;
    const next: JobRun = { ...run, keys, rows: run.rows + page.rows.length, shard: done ? run.shard + 1 : run.shard, cursor: done ? null : page.last };
    if (!(await save({ ...state, run: next }))) return { status: "busy", state, read };
  }
  if (state.run!.shard < shards.length) return { status: "in_progress", state, read };

  // Compute and publish.
  const run = state.run!;
  const maxRows = options.maxRows ?? passRows(env);
  if (run.rows > maxRows) {
    console.error(JSON.stringify({ level: "error", message: "credibility job: the window holds more rollup rows than one pass computes; the snapshot in force stays", run: run.id, rows: run.rows, max: maxRows }));
    return { status: "too_large", state, read };
  }
  const lean = leanRollups();
  for (const key of run.keys.flat()) {
    const object = await env.MODEL_BUCKET.get(key);
    if (!object) throw new Error(`credibility job ${run.id}: staged page ${key} is missing`);
    for (const packed of (await object.json()) as PackedRollup[]) lean.add(packed);
  }
  // A previous snapshot that cannot be read stops the run: starting from none would wipe every
  // voucher's standing and the vouching ledger.
  const previous = run.previous === null ? null : await readSnapshotState(env.MODEL_BUCKET, run.previous);
  if (run.previous !== null && !previous) throw new Error(`credibility job ${run.id}: the previous snapshot ${run.previous} is missing`);
  const anchors = (await readAnchors(env)).map(String);
  const snapshot = computeStanding(lean.rows, { day: run.day, previous, anchors });
  const manifest = await writeSnapshot(env.MODEL_BUCKET, run.id, snapshot, now);

  // Kept: the new snapshot, the one it came from (a same-day run starts there again), and the last before.
  const all = [...state.kept.filter((id) => id !== run.id), run.id];
  const keep = new Set([...all.slice(-KEEP_SNAPSHOTS), ...(run.previous === null ? [] : [run.previous])]);
  const kept = all.filter((id) => keep.has(id));
  const dropped = all.filter((id) => !keep.has(id));
  const published = { id: run.id, day: run.day, previous: run.previous, publishedAt: now, rows: run.rows, reporters: manifest.reporters, earnedShare: snapshot.earnedShare };
  if (!(await save({ ...state, run: null, last: published, kept }))) return { status: "busy", state, read };
  // Only the runner that published the state writes the manifest (and never over a newer one).
  await publishManifest(env.MODEL_BUCKET, manifest, now);
  await recordEarnedShare(env, snapshot.earnedShare, now);

  // Housekeeping after the state moved on: a failure here leaves garbage, never a wrong snapshot.
  for (const shard of shards) {
    for (let i = 0; i < PRUNE_STATEMENTS; i++) if ((await pruneRollups(shard, run.day - windowDays + 1, PRUNE_ROWS)) < PRUNE_ROWS) break;
  }
  await deletePrefix(env.MODEL_BUCKET, `credibility/runs/${run.id}/`);
  for (const id of dropped) await deletePrefix(env.MODEL_BUCKET, snapshotPrefix(id));
  console.log(JSON.stringify({ level: "info", message: "credibility snapshot published", snapshot: run.id, rows: run.rows, reporters: manifest.reporters, earned_share: snapshot.earnedShare }));
  return { status: "published", state, read };
}

async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix, cursor });
    if (listed.objects.length > 0) await bucket.delete(listed.objects.map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}
