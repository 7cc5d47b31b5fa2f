// The service's credibility source (R1): the one place an agent's object asks for the credibility of
// its reporters. Today it gives the seeds by verification and the bootstrap latch's floor (no standing
// snapshot exists yet: the earned share is 0, so the floor is 1 while the latch is on); the scheduled
// job that computes standing snapshots from the shards' daily rollups will hand its latest snapshot to
// `credibilitySource` and nothing else changes. Reporters are keyed by operator id here; the object
// translates them to its own numbering.

import { bootstrapFloor, snapshotSource, type CredibilitySource, type StandingSnapshot } from "../domain/model";
import type { Env } from "../env";
import { readModelSettings } from "./model-settings";

/** No standing computed yet: nobody has earned standing, and the earned share is 0. */
export const EMPTY_SNAPSHOT: StandingSnapshot = { day: 0, reporters: {}, ledger: {}, earnedShare: 0 };

/**
 * The credibility source at `now`: c = max(seed, standing without the judged owner, the bootstrap
 * floor for a verified operator) × agreement, from `snapshot` (by default none yet) and the latch.
 */
export async function credibilitySource(env: Pick<Env, "DB" | "MODEL_SHADOW_DAYS">, now: number, snapshot: StandingSnapshot = EMPTY_SNAPSHOT): Promise<CredibilitySource> {
  const { latch } = await readModelSettings(env, now);
  const { floor } = bootstrapFloor(latch, now, snapshot.earnedShare);
  return snapshotSource(snapshot, floor);
}
