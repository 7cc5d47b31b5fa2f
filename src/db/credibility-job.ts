// The credibility job's progress in the control database (model_settings, key `credibility_job`):
// the run in progress (which shard, the cursor in its rollups, the pages staged in R2) and the last
// published snapshot. Every write is a compare-and-set on the state's version `v`, so two runners
// (the cron and an admin's run) never both advance it: the one that loses stops.

import type { Env } from "../env";
import type { RollupCursor } from "./rollups";

export interface JobRun {
  /** The snapshot this run publishes, e.g. "2026-11-27.3". */
  id: string;
  /** The UTC day it computes standing for. */
  day: number;
  startedAt: number;
  /** The shard being read, and where in its rollups (null: from the window's start). */
  shard: number;
  cursor: RollupCursor | null;
  /**
   * The staged pages per shard so far, by their R2 keys. Each key carries a random part of the
   * invocation that wrote it: a runner that lost the compare-and-set never overwrites a page the
   * state names, whatever order their writes land in.
   */
  keys: string[][];
  rows: number;
  /** The snapshot whose standing vouches in this run: the last one of an earlier day. */
  previous: string | null;
}

export interface JobPublished {
  id: string;
  day: number;
  /** The snapshot it was computed from (a second run on the same day starts from it too). */
  previous: string | null;
  publishedAt: number;
  rows: number;
  reporters: number;
  earnedShare: number;
}

export interface JobState {
  /** The state's version: each write expects the one it read. */
  v: number;
  /** Runs started so far (the next run's number). */
  runs: number;
  run: JobRun | null;
  last: JobPublished | null;
  /** Snapshots kept in R2, oldest first (the job deletes those past the last 3). */
  kept: string[];
}

const KEY = "credibility_job";
const INITIAL: JobState = { v: 0, runs: 0, run: null, last: null, kept: [] };

export async function readJobState(env: Pick<Env, "DB">): Promise<JobState> {
  const row = await env.DB.prepare("SELECT value FROM model_settings WHERE key = ?").bind(KEY).first<{ value: string }>();
  return row ? (JSON.parse(row.value) as JobState) : INITIAL;
}

/** Writes `next` over `read` (the state it was made from); false when another runner wrote first. */
export async function writeJobState(env: Pick<Env, "DB">, read: JobState, next: Omit<JobState, "v">, now: number): Promise<JobState | null> {
  const state: JobState = { ...next, v: read.v + 1 };
  const text = JSON.stringify(state);
  const iso = new Date(now).toISOString();
  const res =
    read.v === 0
      ? await env.DB.prepare("INSERT OR IGNORE INTO model_settings (key, value, updated_at) VALUES (?, ?, ?)").bind(KEY, text, iso).run()
      : await env.DB.prepare("UPDATE model_settings SET value = ?, updated_at = ? WHERE key = ? AND json_extract(value, '$.v') = ?").bind(text, iso, KEY, read.v).run();
  return (res.meta.changes ?? 0) === 1 ? state : null;
}
