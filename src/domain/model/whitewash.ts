// Whitewashing: a new agent that repeats a caution (or suspended) agent of the same owner, by
// configuration fingerprint or by a key that agent proved, inherits its negative pairs. Positive
// votes never carry over. Which agents match is the caller's lookup.

import { MODEL_V4 } from "./constants";
import type { AgentModel } from "./aggregate";
import { cautionAt } from "./view";
import type { InheritanceInput, InheritedPair, Pairs } from "./transitions";
import { DIMENSIONS, idOrder, type Dimension } from "./vocabulary";

/** The agent can pass on its record: in caution (or suspended) with a report within the whitewash window. */
export function isWhitewashSource(model: AgentModel, input: { now: number; suspended: boolean }): boolean {
  const last = model.lastReportAt;
  if (last === null || input.now - last > MODEL_V4.whitewash.reportWithinMs) return false;
  return input.suspended || cautionAt(model, input.now);
}

/**
 * The inheritance entry a new agent gets from `source` at `at`: every non-owner pair with a vote below
 * 500 on some dimension, with those votes only, its credibility in force and its times; and whether
 * the source is in caution (or suspended). Null when there is nothing to pass on.
 */
export function inheritanceFrom(source: AgentModel, pairs: Pairs, at: number, options: { suspended: boolean } = { suspended: false }): InheritanceInput | null {
  const reporters: Record<string, InheritedPair> = {};
  for (const key of [...pairs.keys()].sort(idOrder)) {
    const p = pairs.get(key)!;
    if (p.owner || p.reports === 0) continue;
    const votes: Partial<Record<Dimension, number>> = {};
    for (const d of DIMENSIONS) {
      const v = p.votes[d];
      if (v !== null && v < 500) votes[d] = v;
    }
    if (Object.keys(votes).length === 0) continue;
    reporters[key] = { votes, level: p.level, reports: p.reports, firstAt: p.firstAt, lastAt: p.lastAt, failing: p.failing };
  }
  const caution = options.suspended || cautionAt(source, at);
  return Object.keys(reporters).length === 0 && !caution ? null : { at, reporters, caution };
}
