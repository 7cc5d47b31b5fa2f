// Credibility in force on an agent: the job's snapshot gives c per reporter; the agent's object
// appends a `credibility` entry naming the reporters whose c in force differs (before a reporter's
// first report, and when a new snapshot is taken up), so every replay weighs each vote with the
// values of its time. A reporter the agent has never heard of holds c = 0 (muted until it has
// receipted dealings).

import { credibilityOfLevel } from "./votes";
import type { CredibilityInput, Pairs } from "./transitions";
import { idOrder } from "./vocabulary";

export interface CredibilitySource {
  /** c of `reporter` (a multiple of 0.05 in 0..1): 0 for a reporter the snapshot does not know. */
  credibility(reporter: string): number;
  /** The snapshot the values come from, recorded in the entries it causes (null: none yet). */
  readonly snapshot: string | null;
}

/** No snapshot yet: every reporter at 0. */
export const emptySource: CredibilitySource = { credibility: () => 0, snapshot: null };

/**
 * The `credibility` entry due at `at`: the source's values for the agent's non-owner pairs (and
 * `newReporter`, about to report for the first time) that differ from those in force, or null.
 */
export function credibilityUpdate(pairs: Pairs, source: CredibilitySource, ownerKey: string | null, at: number, newReporter?: string): CredibilityInput | null {
  const values: Record<string, number> = {};
  for (const key of [...pairs.keys()].sort(idOrder)) {
    const p = pairs.get(key)!;
    if (p.owner || key === ownerKey) continue;
    const c = source.credibility(key);
    if (c !== credibilityOfLevel(p.level)) values[key] = c;
  }
  if (newReporter !== undefined && !pairs.has(newReporter) && newReporter !== ownerKey) {
    const c = source.credibility(newReporter);
    if (c !== 0) values[newReporter] = c;
  }
  if (Object.keys(values).length === 0) return null;
  return { at, values, ...(source.snapshot === null ? {} : { snapshot: source.snapshot }) };
}
