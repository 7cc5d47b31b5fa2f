// The monitor's one step (`npm run monitor`, scripts/monitor.ts): fetch a log's checkpoint, verify
// its signature with the pinned keys, and compare it with the last checkpoint seen. A fork (two
// trees of one size with different roots, or no consistency proof between them) and a shrink (a
// tree older than one already seen) are alerts: either means the log showed someone a history that
// is not the one it shows now.
//
// With the owner's keys (GET /agents/{sid}/log-keys), the owner's check: after a consistent
// checkpoint, every entry of its agent the keys name (from the cut-over on) must have its leaf in the
// checkpoint's tree once it is older than the log's maximum delay.

import { CheckpointError, verifyCheckpoint, type Checkpoint } from "../../src/domain/log/index";
import type { LogClient } from "./log";
import { agentLeaves, leafNames, type OwnerLogKeys } from "./verify";

export interface MonitorState {
  /** The log's origin: every checkpoint must be of it. */
  origin: string;
  /** The pinned verifier keys. */
  keys: string[];
  /** The last checkpoint seen (its signed note), or null before the first. */
  checkpoint: string | null;
}

export type Verdict =
  | { kind: "first"; size: number }
  | { kind: "same"; size: number }
  | { kind: "newer"; from: number; to: number }
  /** Smaller than the last seen, but its prefix: a rollback or a stale view, not newer. */
  | { kind: "shrink"; last: number; seen: number; evidence: [string, string] }
  | { kind: "fork"; last: number; seen: number; evidence: [string, string] }
  | { kind: "bad-signature"; reason: string };

/** Exit codes of `npm run monitor`. */
export const MONITOR_EXIT = { ok: 0, unreachable: 1, fork: 2, shrink: 3, badSignature: 4, missing: 5 } as const;

/** The log's stated maximum delay from a change's commit to its leaf in a checkpoint (docs/transparency.md). */
export const MAX_LOG_DELAY_MS = 5 * 60_000;

export function exitCode(verdict: Verdict): number {
  switch (verdict.kind) {
    case "fork":
      return MONITOR_EXIT.fork;
    case "shrink":
      return MONITOR_EXIT.shrink;
    case "bad-signature":
      return MONITOR_EXIT.badSignature;
    default:
      return MONITOR_EXIT.ok;
  }
}

/**
 * One check; the state to keep after it (the last checkpoint moves only forward) and, when the check
 * held, that checkpoint verified (`kept`: of the size and root the state keeps). Network errors throw.
 */
export async function monitorStep(client: LogClient, state: MonitorState): Promise<{ verdict: Verdict; state: MonitorState; kept?: Checkpoint }> {
  const note = await client.checkpoint();
  let seen: Checkpoint;
  try {
    seen = await verifyCheckpoint(note, state.keys, state.origin);
  } catch (err) {
    if (err instanceof CheckpointError) return { verdict: { kind: "bad-signature", reason: err.message }, state };
    throw err;
  }
  if (state.checkpoint === null) return { verdict: { kind: "first", size: seen.size }, state: { ...state, checkpoint: note }, kept: seen };
  const last = await verifyCheckpoint(state.checkpoint, state.keys, state.origin);
  const relation = await client.compare(last, seen);
  const evidence: [string, string] = [state.checkpoint, note];
  switch (relation) {
    case "same":
      return { verdict: { kind: "same", size: seen.size }, state, kept: seen };
    case "newer":
      return { verdict: { kind: "newer", from: last.size, to: seen.size }, state: { ...state, checkpoint: note }, kept: seen };
    case "stale":
      return { verdict: { kind: "shrink", last: last.size, seen: seen.size, evidence }, state };
    case "fork":
      return { verdict: { kind: "fork", last: last.size, seen: seen.size, evidence }, state };
  }
}

export interface OwnerCheck {
  /** The entries the keys name, up to the keys' `seq`: those after the cut-over, in the epochs the owner holds keys of. */
  entries: number;
  /** How many of them have their leaf in the checkpoint's tree. */
  found: number;
  /** Not in the tree, and older than the maximum delay at `at` (or not dated by the listing): an alert. */
  missing: number[];
  /** Not in the tree yet, but younger than the maximum delay. */
  pending: number[];
}

/**
 * The owner's check of its agent against one (verified, consistent) checkpoint: its leaves, found
 * with the keys in the entry bundles up to the checkpoint's size. `times` are the entries' instants
 * (ms, their `at`) by number; `at` is when the checkpoint was fetched. An entry the listing does not
 * date counts as due: the keys are read before the listing, so it names every entry up to `seq`.
 * A leaf counts as found in its bundle; `npm run verify` proves each one's inclusion.
 */
export async function ownerCheck(client: LogClient, checkpoint: Checkpoint, keys: OwnerLogKeys, times: ReadonlyMap<number, number>, at: number, maxDelayMs = MAX_LOG_DELAY_MS): Promise<OwnerCheck> {
  const names = await leafNames(keys, keys.seq);
  const wanted = new Set([...names.tags.values()].filter((n) => n <= keys.seq));
  const leaves = await agentLeaves(client, checkpoint, names, wanted);
  const check: OwnerCheck = { entries: wanted.size, found: 0, missing: [], pending: [] };
  for (const n of [...wanted].sort((a, b) => a - b)) {
    if (leaves.has(n)) check.found++;
    else if (at - (times.get(n) ?? -Infinity) > maxDelayMs) check.missing.push(n);
    else check.pending.push(n);
  }
  return check;
}
