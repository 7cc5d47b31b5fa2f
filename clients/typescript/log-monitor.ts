// The monitor's one step (`npm run monitor`, scripts/monitor.ts): fetch a log's checkpoint, verify
// its signature with the pinned keys, and compare it with the last checkpoint seen. A fork (two
// trees of one size with different roots, or no consistency proof between them) and a shrink (a
// tree older than one already seen) are alerts: either means the log showed someone a history that
// is not the one it shows now.

import { CheckpointError, verifyCheckpoint, type Checkpoint } from "../../src/domain/log/index";
import type { LogClient } from "./log";

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
export const MONITOR_EXIT = { ok: 0, unreachable: 1, fork: 2, shrink: 3, badSignature: 4 } as const;

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

/** One check; the state to keep after it (the last checkpoint moves only forward). Network errors throw. */
export async function monitorStep(client: LogClient, state: MonitorState): Promise<{ verdict: Verdict; state: MonitorState }> {
  const note = await client.checkpoint();
  let seen: Checkpoint;
  try {
    seen = await verifyCheckpoint(note, state.keys, state.origin);
  } catch (err) {
    if (err instanceof CheckpointError) return { verdict: { kind: "bad-signature", reason: err.message }, state };
    throw err;
  }
  if (state.checkpoint === null) return { verdict: { kind: "first", size: seen.size }, state: { ...state, checkpoint: note } };
  const last = await verifyCheckpoint(state.checkpoint, state.keys, state.origin);
  const relation = await client.compare(last, seen);
  const evidence: [string, string] = [state.checkpoint, note];
  switch (relation) {
    case "same":
      return { verdict: { kind: "same", size: seen.size }, state };
    case "newer":
      return { verdict: { kind: "newer", from: last.size, to: seen.size }, state: { ...state, checkpoint: note } };
    case "stale":
      return { verdict: { kind: "shrink", last: last.size, seen: seen.size, evidence }, state };
    case "fork":
      return { verdict: { kind: "fork", last: last.size, seen: seen.size, evidence }, state };
  }
}
