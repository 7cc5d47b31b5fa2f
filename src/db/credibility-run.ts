// The cross-agent job's progress in the control database (model_settings, key `credibility_run`):
// the run in progress (which shard, the cursor in its pairs, the pages staged in R2), the snapshot
// in force, and the last failure since it was published. Every write is a compare-and-set on the
// state's version `v`, so two runners (the cron and an admin's run) never both advance it.

import type { Env } from "../env";

/** Where a shard's read stopped: the last (sid, reporter) staged. */
export interface PairCursor {
  sid: string;
  reporter: string;
}

export interface CredibilityRun {
  /** The snapshot this run publishes, e.g. "2026-11-27.3". */
  id: string;
  /** The UTC day it computes credibility for. */
  day: number;
  startedAt: number;
  /** The shard being read, and where in its pairs (null: from the start). */
  shard: number;
  cursor: PairCursor | null;
  /**
   * The staged pages per shard, by their R2 keys. Each key carries a random part of the invocation
   * that wrote it: a runner that lost the compare-and-set never overwrites a page the state names.
   */
  keys: string[][];
  /** Pairs staged per shard. */
  counts: number[];
  /** The snapshot whose levels are `previous` in this run: the last one of an earlier day. */
  previous: string | null;
  /** Computations started (a Worker killed by its memory or CPU limit never records its end). */
  attempts: number;
  /** Errors in a row. */
  failures: number;
}

export interface CredibilityPublished {
  id: string;
  day: number;
  /** The snapshot it was computed from (a second run on the same day starts from it too). */
  previous: string | null;
  publishedAt: number;
  operators: number;
  bucketIds: number;
  buckets: number;
  credible: number;
  pairs: number;
  anchors: number;
}

export interface CredibilityFailure {
  at: number;
  run: string;
  /** error: a run failed (it resumes, or starts again after 5 in a row); too_large and unfinished: it was given up until the next day. */
  kind: "error" | "too_large" | "unfinished";
  message: string;
}

export interface CredibilityRunState {
  v: number;
  /** Runs started so far (the next run's number). */
  runs: number;
  run: CredibilityRun | null;
  last: CredibilityPublished | null;
  /** Snapshots kept in R2, oldest first. */
  kept: string[];
  /** The last failure since the last publication (null once a run publishes). */
  failure: CredibilityFailure | null;
  /** The day a run was given up (too large, or killed each time it computed): the next starts the day after, unless forced. */
  gaveUp: number | null;
}

export const RUN_STATE_KEY = "credibility_run";
const INITIAL: CredibilityRunState = { v: 0, runs: 0, run: null, last: null, kept: [], failure: null, gaveUp: null };

export const parseRunState = (value: string | null | undefined): CredibilityRunState =>
  value ? { ...INITIAL, ...(JSON.parse(value) as CredibilityRunState) } : INITIAL;

export async function readRunState(env: Pick<Env, "DB">): Promise<CredibilityRunState> {
  const row = await env.DB.prepare("SELECT value FROM model_settings WHERE key = ?").bind(RUN_STATE_KEY).first<{ value: string }>();
  return parseRunState(row?.value);
}

/** Writes `next` over `read` (the state it was made from); null when another runner wrote first. */
export async function writeRunState(
  env: Pick<Env, "DB">,
  read: CredibilityRunState,
  next: Omit<CredibilityRunState, "v">,
  now: number,
): Promise<CredibilityRunState | null> {
  const state: CredibilityRunState = { ...next, v: read.v + 1 };
  const text = JSON.stringify(state);
  const iso = new Date(now).toISOString();
  const res =
    read.v === 0
      ? await env.DB.prepare("INSERT OR IGNORE INTO model_settings (key, value, updated_at) VALUES (?, ?, ?)").bind(RUN_STATE_KEY, text, iso).run()
      : await env.DB.prepare("UPDATE model_settings SET value = ?, updated_at = ? WHERE key = ? AND json_extract(value, '$.v') = ?")
          .bind(text, iso, RUN_STATE_KEY, read.v)
          .run();
  return (res.meta.changes ?? 0) === 1 ? state : null;
}

/** A run in progress this long has stalled (the cron goes on every 15 minutes; a run takes a few). */
export const STALLED_MS = 6 * 3_600_000;
/** A snapshot in force older than this is stale: runs have not published for two days. */
export const STALE_MS = 2 * 86_400_000;

export interface CredibilityHealth {
  status: "ok" | "failing";
  /** The snapshot in force (null: none published yet) and its age. */
  snapshot: string | null;
  ageSeconds: number | null;
  /** Why it is failing (null when ok). */
  problem: string | null;
}

/**
 * What `/health` and the job's status say: failing when a run failed since the last publication,
 * when a run has been under way for 6 hours, or when the snapshot in force is over 2 days old.
 */
export function credibilityHealth(state: CredibilityRunState, now: number): CredibilityHealth {
  const snapshot = state.last?.id ?? null;
  const ageSeconds = state.last ? Math.max(0, Math.floor((now - state.last.publishedAt) / 1000)) : null;
  let problem: string | null = null;
  if (state.failure) problem = `run ${state.failure.run}: ${state.failure.message}`;
  else if (state.run && now - state.run.startedAt >= STALLED_MS)
    problem = `run ${state.run.id} started ${Math.floor((now - state.run.startedAt) / 3_600_000)} hours ago and has not finished (shard ${state.run.shard})`;
  else if (state.last && now - state.last.publishedAt >= STALE_MS) problem = `no snapshot published since ${new Date(state.last.publishedAt).toISOString()}`;
  return { status: problem === null ? "ok" : "failing", snapshot, ageSeconds, problem };
}
