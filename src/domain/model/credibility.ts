// Credibility through one interface (R1): the agent's object asks a source for `c(r, o)` of its
// reporters and appends a `credibility` entry when a value differs from the one in force. Sources:
// the seeds alone, or a standing snapshot (./standing) with the bootstrap latch's floor.

import { MODEL } from "./constants";
import type { StandingSnapshot } from "./standing";
import { entriesOf, type AgentState, type CredibilityInput } from "./state";
import { credibilityOf } from "./weighing";

export interface CredibilitySource {
  /** c(r, o) of reporter `reporter` on an agent of owner `owner` (null: unclaimed). */
  credibility(reporter: string, owner: string | null, verified: boolean): number;
  /** The bootstrap latch is on: scores say so (`model.bootstrap`). */
  readonly bootstrap: boolean;
  /** The standing snapshot the values come from, recorded in the `credibility` entries it causes. */
  readonly snapshot?: string | null;
}

export function seedCredibility(verified: boolean): number {
  return verified ? MODEL.credibility.seed.verified : MODEL.credibility.seed.unverified;
}

/** Seeds only: what an agent's reporters have before any snapshot exists. */
export const seedSource: CredibilitySource = { credibility: (_r, _o, verified) => seedCredibility(verified), bootstrap: false };

/**
 * The bootstrap latch: on from the deployment's first start until `endsAt` (set by an admin, at most
 * 180 days ahead, by default 180 days after the start), and off for good from the first time it is
 * read at or past `endsAt` or with the earned share at or above `shareTo`.
 */
export interface BootstrapLatch {
  startedAt: number;
  endsAt: number;
  closedAt: number | null;
}

export function startBootstrap(now: number): BootstrapLatch {
  return { startedAt: now, endsAt: now + MODEL.bootstrap.maxMs, closedAt: null };
}

/** An admin moves the end date: never more than 180 days ahead, never reopening a closed latch. */
export function setBootstrapEnd(latch: BootstrapLatch, endsAt: number, now: number): BootstrapLatch {
  if (!Number.isFinite(endsAt) || endsAt > now + MODEL.bootstrap.maxMs) throw new RangeError("the bootstrap end is at most 180 days ahead");
  return latch.closedAt !== null ? latch : { ...latch, endsAt };
}

/**
 * The standing floor of verified operators at `now`, given the share of active reporters holding
 * earned standing: 1 at or below `shareFrom`, falling linearly to 0 at `shareTo`; 0 once closed.
 * Returns the latch as it is after this reading (the caller stores it: the latch is one-way).
 */
export function bootstrapFloor(latch: BootstrapLatch, now: number, earnedShare: number): { floor: number; latch: BootstrapLatch } {
  const b = MODEL.bootstrap;
  if (latch.closedAt !== null) return { floor: 0, latch };
  if (now >= latch.endsAt || earnedShare >= b.shareTo) return { floor: 0, latch: { ...latch, closedAt: now } };
  const floor = Math.min(1, Math.max(0, (b.shareTo - earnedShare) / (b.shareTo - b.shareFrom)));
  return { floor, latch };
}

/**
 * c(r, o) = max(seed, standing excluding o, floor for a verified operator) × agreement. Floor standing
 * is only ever here: it never vouches and never adds to U (the snapshot knows nothing of it).
 */
export function snapshotSource(snapshot: StandingSnapshot, floor = 0): CredibilitySource {
  return {
    bootstrap: floor > 0,
    credibility(reporter, owner, verified) {
      const entry = snapshot.reporters[reporter];
      const seed = seedCredibility(verified);
      const bootstrap = verified ? floor : 0;
      if (!entry) return Math.max(seed, bootstrap);
      const standing = owner !== null && entry.exclusions[owner] !== undefined ? entry.exclusions[owner] : entry.standing;
      return Math.max(seed, standing, bootstrap) * entry.agreement;
    },
  };
}

/**
 * The `credibility` entry the object appends at `at`: the values of `source` for the agent's non-owner
 * reporters whose value in force differs (and the bootstrap flag when it changed), or null when
 * nothing changed. `extra` names a reporter about to report for the first time, so its first report
 * is weighed with the source's value.
 */
export function credibilityUpdate(
  state: AgentState,
  source: CredibilitySource,
  ownerKey: string | null,
  at: number,
  extra?: { reporter: string; verified: boolean },
): CredibilityInput | null {
  const values: Record<string, number> = {};
  for (const [id, r] of entriesOf(state)) {
    if (r.owner || id === ownerKey) continue;
    const c = source.credibility(id, ownerKey, r.verified);
    if (c !== credibilityOf(state, id, r)) values[id] = c;
  }
  if (extra && !state.reporters[extra.reporter] && extra.reporter !== ownerKey) {
    const c = source.credibility(extra.reporter, ownerKey, extra.verified);
    if (c !== seedCredibility(extra.verified)) values[extra.reporter] = c;
  }
  if (Object.keys(values).length === 0 && source.bootstrap === state.bootstrap) return null;
  return { at, values, bootstrap: source.bootstrap, ...(source.snapshot ? { snapshot: source.snapshot } : {}) };
}
