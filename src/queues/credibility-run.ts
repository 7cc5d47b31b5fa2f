// The cross-agent job (docs/scoring.md, "The cross-agent job"): c(r) per operator from the shards'
// `pairs` rows, published as a quantised snapshot in R2 that agents' objects read (src/db/snapshot.ts).
//
// A run reads each shard's pairs with their agents' owners a page at a time in (sid, reporter) order
// and stages each page in R2 before its cursor moves past it: a run stopped by its budget (or killed)
// resumes at its cursor, and a page read again is staged under a new key that the state never names
// twice, so nothing counts twice. Once every shard is read it maps operator ids to dense indices (in
// id order: the result does not depend on the order shards are read in), runs the pure
// `job.computeCredibility` with the previous snapshot's levels and the anchors, writes the snapshot,
// moves its state, then writes the manifest that puts it in force.
//
// It never stops silently: an error is recorded in the state (the next invocation resumes the run;
// after 5 in a row it starts again), a run over the pairs one Worker computes, or one killed each
// time it computes, is given up until the next day, and `credibilityHealth` (the `/health` field and
// the job's status) reports each, and a run under way for 6 hours, with the age of the snapshot in force.

import { readAnchors } from "../db/model-settings";
import { readPairsPage, type PairRow } from "../db/pairs-pages";
import { readRunState, writeRunState, type CredibilityFailure, type CredibilityRun, type CredibilityRunState } from "../db/credibility-run";
import { BUCKET_IDS, deletePrefix, publishManifest, readLevels, readManifest, snapshotPrefix, writeSnapshot, type SnapshotManifest } from "../db/snapshot";
import { job, DAY_MS } from "../domain/model";
import { shardDatabases, type Env } from "../env";

/** Pairs per page (one D1 query, one staged R2 object). */
export const PAGE_PAIRS = 5_000;
/** Pages one invocation reads before it stops (the cron's next run goes on). */
export const PAGES_PER_RUN = 100;
/**
 * Pairs one run computes at most. The computation holds about 50 bytes a pair at its peak (the
 * columns 22, the owner graph's keys and edges, the per-operator arrays; docs/scoring.md measures
 * 508 MB at 10 million pairs in Node), so a Worker's 128 MB hold about 2 million: 1 million leaves
 * room for the runtime and a staged page. Past it the run is given up for the day, loudly; the
 * snapshot in force stays.
 */
export const MAX_PAIRS = 1_000_000;
/** Errors in a row after which a run starts again from the first page. */
const MAX_FAILURES = 5;
/** Computations started without an end after which the run is given up for the day. */
const MAX_ATTEMPTS = 3;
/** Snapshots kept in R2: the current one, the one it came from, and the last before. */
const KEEP_SNAPSHOTS = 3;

const maxPairsOf = (env: Pick<Env, "CREDIBILITY_MAX_PAIRS">) =>
  /^[1-9][0-9]{0,9}$/.test(env.CREDIBILITY_MAX_PAIRS ?? "") ? Number(env.CREDIBILITY_MAX_PAIRS) : MAX_PAIRS;

export interface RunOptions {
  /** Pages to read in this invocation at most (default PAGES_PER_RUN). */
  pages?: number;
  /** Pairs per page (default PAGE_PAIRS; tests use fewer). */
  pageRows?: number;
  /** Start a new run even though today's snapshot is out (or today's run was given up). */
  force?: boolean;
  /** Pairs one run computes at most (default CREDIBILITY_MAX_PAIRS, else MAX_PAIRS). */
  maxPairs?: number;
  /** Operator ids per bucket object (default BUCKET_IDS; tests use fewer). */
  bucketIds?: number;
}

export interface RunOutcome {
  /**
   * published: this invocation published a snapshot; in_progress: the run goes on at the next;
   * current: today's is out; busy: another runner moved first; too_large: the run was given up for
   * today (more pairs than one run computes); failed: this invocation failed (recorded in the state).
   */
  status: "published" | "in_progress" | "current" | "busy" | "too_large" | "failed";
  state: CredibilityRunState;
  /** Pairs and pages this invocation read. */
  read: { rows: number; pages: number };
  /** What failed (status failed or too_large). */
  error?: string;
}

/** A staged page: its agents (distinct, in order) with their owners, and one element per pair. */
interface StagedPage {
  sids: string[];
  owners: (number | null)[];
  agent: number[];
  operator: number[];
  vote: number[];
  firstAt: number[];
  receiptDay: number[];
}

function stage(rows: PairRow[]): StagedPage {
  const page: StagedPage = { sids: [], owners: [], agent: [], operator: [], vote: [], firstAt: [], receiptDay: [] };
  for (const row of rows) {
    if (page.sids[page.sids.length - 1] !== row.sid) {
      page.sids.push(row.sid);
      page.owners.push(row.owner);
    }
    page.agent.push(page.sids.length - 1);
    page.operator.push(row.operator_id);
    page.vote.push(row.vote);
    page.firstAt.push(row.first_at);
    page.receiptDay.push(row.receipt_day);
  }
  return page;
}

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const pageKey = (run: CredibilityRun, shard: number, page: number, nonce: string) => `snapshot/runs/${run.id}/${shard}/${page}-${nonce}.json`;
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export async function runCredibility(env: Env, now: number, options: RunOptions = {}): Promise<RunOutcome> {
  const budget = options.pages ?? PAGES_PER_RUN;
  const pageRows = options.pageRows ?? PAGE_PAIRS;
  const maxPairs = options.maxPairs ?? maxPairsOf(env);
  const shards = shardDatabases(env);
  const today = Math.floor(now / DAY_MS);
  const read = { rows: 0, pages: 0 };
  let state = await readRunState(env);
  const save = async (next: Omit<CredibilityRunState, "v">) => {
    const written = await writeRunState(env, state, next, now);
    if (written) state = written;
    return written !== null;
  };
  /** Gives the run up until the next day (unless forced), with the reason in the state. */
  const giveUp = async (kind: CredibilityFailure["kind"], why: string) => {
    const run = state.run!;
    console.error(JSON.stringify({ level: "error", message: `credibility run given up: ${why}`, run: run.id }));
    if (!(await save({ ...state, run: null, gaveUp: run.day, failure: { at: now, run: run.id, kind, message: why } }))) return false;
    await deletePrefix(env.MODEL_BUCKET, `snapshot/runs/${run.id}/`).catch(() => undefined);
    return true;
  };

  if (!state.run) {
    if (!options.force && state.last && state.last.day >= today) {
      // A runner that died between its state and its manifest left the manifest behind: written now.
      const { last } = state;
      const manifest: SnapshotManifest = {
        id: last.id,
        day: last.day,
        publishedAt: last.publishedAt,
        operators: last.operators,
        bucketIds: last.bucketIds,
        buckets: last.buckets,
        credible: last.credible,
        pairs: last.pairs,
        anchors: last.anchors,
      };
      try {
        if ((await readManifest(env.MODEL_BUCKET))?.id !== last.id) await publishManifest(env.MODEL_BUCKET, manifest, now);
      } catch (e) {
        // The next invocation tries again; the state already names the snapshot.
        console.error(JSON.stringify({ level: "error", message: "credibility run: the manifest could not be written", snapshot: last.id, error: message(e) }));
      }
      return { status: "current", state, read };
    }
    if (!options.force && state.gaveUp !== null && state.gaveUp >= today) {
      return { status: state.failure?.kind === "too_large" ? "too_large" : "failed", state, read, error: state.failure?.message };
    }
    // Yesterday's levels pass trust today: a second run on the same day starts from the same snapshot.
    const previous = state.last ? (state.last.day >= today ? state.last.previous : state.last.id) : null;
    const run: CredibilityRun = {
      id: `${isoDay(today)}.${state.runs + 1}`,
      day: today,
      startedAt: now,
      shard: 0,
      cursor: null,
      keys: shards.map(() => []),
      counts: shards.map(() => 0),
      previous,
      attempts: 0,
      failures: 0,
    };
    if (!(await save({ ...state, runs: state.runs + 1, run, gaveUp: null }))) return { status: "busy", state, read };
  }

  try {
    // Read: a page at a time, staged before the cursor moves past it.
    const nonce = crypto.randomUUID().slice(0, 8);
    while (state.run!.shard < shards.length && read.pages < budget) {
      const run = state.run!;
      const rows = await readPairsPage(shards[run.shard], run.cursor, pageRows);
      read.pages++;
      read.rows += rows.length;
      const keys = run.keys.map((k) => [...k]);
      const counts = [...run.counts];
      if (rows.length > 0) {
        const key = pageKey(run, run.shard, keys[run.shard].length, nonce);
        await env.MODEL_BUCKET.put(key, JSON.stringify(stage(rows)));
        keys[run.shard].push(key);
        counts[run.shard] += rows.length;
      }
      const done = rows.length < pageRows;
      const last = rows[rows.length - 1];
      const next: CredibilityRun = {
        ...run,
        keys,
        counts,
        shard: done ? run.shard + 1 : run.shard,
        cursor: done ? null : { sid: last.sid, reporter: last.reporter },
        failures: 0,
      };
      if (!(await save({ ...state, run: next }))) return { status: "busy", state, read };
      const total = counts.reduce((a, b) => a + b, 0);
      if (total > maxPairs) {
        const why = `the shards hold more than ${maxPairs} pairs, more than one run computes in a Worker's memory (CREDIBILITY_MAX_PAIRS); the snapshot in force stays`;
        if (!(await giveUp("too_large", why))) return { status: "busy", state, read };
        return { status: "too_large", state, read, error: why };
      }
    }
    if (state.run!.shard < shards.length) return { status: "in_progress", state, read };

    // Compute. A computation that never recorded its end (the Worker killed by its memory or CPU
    // limit) is not tried forever: the run is given up for the day after MAX_ATTEMPTS.
    if (state.run!.attempts >= MAX_ATTEMPTS) {
      const why = `the computation over ${state.run!.counts.reduce((a, b) => a + b, 0)} pairs was started ${MAX_ATTEMPTS} times and never finished (the Worker's memory or CPU limit); the snapshot in force stays`;
      if (!(await giveUp("unfinished", why))) return { status: "busy", state, read };
      return { status: "failed", state, read, error: why };
    }
    if (!(await save({ ...state, run: { ...state.run!, attempts: state.run!.attempts + 1 } }))) return { status: "busy", state, read };
    const run = state.run!;
    const anchorIds = await readAnchors(env);
    // A previous snapshot that cannot be read stops the run: starting from none would make every
    // owner's trust start again from the anchors.
    const previousById = run.previous === null ? null : await readLevels(env.MODEL_BUCKET, run.previous);
    if (run.previous !== null && !previousById) throw new Error(`the previous snapshot ${run.previous} is missing`);
    const input = await buildInput(env.MODEL_BUCKET, run, anchorIds, previousById);
    const snapshot = job.computeCredibility(input.job);
    const levels = new Uint8Array(input.ids.length === 0 ? 0 : input.ids[input.ids.length - 1] + 1);
    let credible = 0;
    for (let i = 0; i < input.ids.length; i++) {
      levels[input.ids[i]] = snapshot.levels[i];
      if (snapshot.levels[i] > 0) credible++;
    }
    const pairs = run.counts.reduce((a, b) => a + b, 0);
    const manifest = await writeSnapshot(
      env.MODEL_BUCKET,
      { id: run.id, day: run.day, publishedAt: now, bucketIds: options.bucketIds ?? BUCKET_IDS, credible, pairs, anchors: anchorIds.length },
      levels,
    );

    const all = [...state.kept.filter((id) => id !== run.id), run.id];
    const keep = new Set([...all.slice(-KEEP_SNAPSHOTS), ...(run.previous === null ? [] : [run.previous])]);
    const kept = all.filter((id) => keep.has(id));
    const dropped = all.filter((id) => !keep.has(id));
    const { operators, bucketIds, buckets } = manifest;
    const published = {
      id: run.id,
      day: run.day,
      previous: run.previous,
      publishedAt: now,
      operators,
      bucketIds,
      buckets,
      credible,
      pairs,
      anchors: anchorIds.length,
    };
    if (!(await save({ ...state, run: null, last: published, kept, failure: null, gaveUp: null }))) return { status: "busy", state, read };
    // Only the runner that published the state writes the manifest (and never over a newer one).
    await publishManifest(env.MODEL_BUCKET, manifest, now);
    console.log(
      JSON.stringify({
        level: "info",
        message: "credibility snapshot published",
        snapshot: run.id,
        pairs,
        operators: input.ids.length,
        credible,
        trusted: snapshot.stats.trusted,
        edges: snapshot.stats.edges,
      }),
    );

    // Housekeeping after the state moved on: a failure here leaves garbage, never a wrong snapshot.
    try {
      await deletePrefix(env.MODEL_BUCKET, `snapshot/runs/${run.id}/`);
      for (const id of dropped) await deletePrefix(env.MODEL_BUCKET, snapshotPrefix(id));
    } catch (e) {
      console.error(
        JSON.stringify({ level: "error", message: "credibility run: staged pages or old snapshots not deleted", snapshot: run.id, error: message(e) }),
      );
    }
    return { status: "published", state, read };
  } catch (e) {
    return { status: "failed", state: await recordFailure(env, now, message(e)), read, error: message(e) };
  }
}

/**
 * Records a failed invocation in the state (re-read: the failure may have come from a write): the
 * run stays and the next invocation resumes it, or after MAX_FAILURES in a row starts again.
 */
async function recordFailure(env: Env, now: number, why: string): Promise<CredibilityRunState> {
  for (let attempt = 0; attempt < 3; attempt++) {
    let state: CredibilityRunState;
    try {
      state = await readRunState(env);
    } catch {
      break;
    }
    const run = state.run;
    const failures = (run?.failures ?? 0) + 1;
    const failure: CredibilityFailure = {
      at: now,
      run: run?.id ?? "none",
      kind: "error",
      message: failures >= MAX_FAILURES ? `${why} (${failures} failures in a row: the run starts again)` : why,
    };
    console.error(JSON.stringify({ level: "error", message: "credibility run failed", run: failure.run, error: why, failures }));
    const written = await writeRunState(env, state, { ...state, run: run && failures < MAX_FAILURES ? { ...run, failures } : null, failure }, now).catch(
      () => null,
    );
    if (written) {
      if (run && failures >= MAX_FAILURES) await deletePrefix(env.MODEL_BUCKET, `snapshot/runs/${run.id}/`).catch(() => undefined);
      return written;
    }
  }
  console.error(JSON.stringify({ level: "error", message: "credibility run failed and its failure could not be recorded", error: why }));
  return readRunState(env).catch(() => ({ v: 0, runs: 0, run: null, last: null, kept: [], failure: null, gaveUp: null }));
}

/**
 * The computation's input from the staged pages: operator ids mapped to dense indices in id order,
 * agents numbered as they come (an agent's pairs are contiguous on its shard, possibly across pages).
 */
async function buildInput(
  bucket: R2Bucket,
  run: CredibilityRun,
  anchorIds: readonly number[],
  previousById: Uint8Array | null,
): Promise<{ job: job.JobInput; ids: number[] }> {
  const seen = new Map<number, number>();
  const firstSeen: number[] = [];
  const index = (id: number) => {
    let i = seen.get(id);
    if (i === undefined) {
      i = firstSeen.length;
      seen.set(id, i);
      firstSeen.push(id);
    }
    return i;
  };
  const owners: number[] = [];
  const shards: job.PairColumns[] = [];
  for (let s = 0; s < run.keys.length; s++) {
    let columns = job.emptyColumns(run.counts[s]);
    let lastSid: string | null = null;
    for (const key of run.keys[s]) {
      const object = await bucket.get(key);
      if (!object) throw new Error(`staged page ${key} is missing`);
      const page = (await object.json()) as StagedPage;
      const agents = page.sids.map((sid, j) => {
        if (sid === lastSid) return owners.length - 1;
        owners.push(page.owners[j] === null ? -1 : index(page.owners[j]!));
        return owners.length - 1;
      });
      lastSid = page.sids[page.sids.length - 1] ?? lastSid;
      for (let i = 0; i < page.agent.length; i++) {
        columns = job.pushPair(columns, agents[page.agent[i]], index(page.operator[i]), page.vote[i], page.firstAt[i], page.receiptDay[i]);
      }
    }
    shards.push(columns);
  }
  for (const id of anchorIds) index(id);
  // Indices in id order, so ties (first reports at the same ms) break the same way whatever the reading order.
  const ids = [...firstSeen].sort((a, b) => a - b);
  const remap = new Int32Array(firstSeen.length);
  const position = new Map(ids.map((id, i) => [id, i]));
  for (let i = 0; i < firstSeen.length; i++) remap[i] = position.get(firstSeen[i])!;
  for (const columns of shards) for (let i = 0; i < columns.length; i++) columns.reporter[i] = remap[columns.reporter[i]];
  const ownerIndex = Int32Array.from(owners, (o) => (o < 0 ? -1 : remap[o]));
  const previous = previousById ? Uint8Array.from(ids, (id) => previousById[id] ?? 0) : null;
  return {
    job: { operators: ids.length, owners: ownerIndex, anchors: anchorIds.map((id) => position.get(id)!), shards, previous, day: run.day },
    ids,
  };
}
