// R6 whitewashing: a new agent that repeats a cautioned (or suspended) agent of the same owner, by
// configuration fingerprint or by a key that agent proved, inherits that agent's negative reporter
// pairs. Positive evidence never carries over. Which agents match is the caller's lookup.

import { MODEL } from "./constants";
import { forgetTo } from "./evidence";
import { assessAt } from "./score";
import { entriesOf, type AgentState, type InheritanceInput, type InheritedReporter } from "./state";
import { DIMENSIONS, type Dimension, type Pair } from "./vocabulary";
import { credibilityOf } from "./weighing";

/** The agent can pass on its record: in caution (or suspended) with a report within the whitewash window. */
export function isWhitewashSource(state: AgentState, input: { now: number; suspended: boolean }): boolean {
  const last = state.lastReportAt;
  if (last === null || input.now - last > MODEL.whitewash.reportWithinMs) return false;
  return input.suspended || assessAt(state, input.now).caution;
}

/**
 * The inheritance entry a new agent gets from `source` at `at`: every non-owner reporter with a
 * negative record pair (a < b) on some dimension, with those pairs (shown and record) only, its
 * days, times and the `c` in force, and whether the source is in caution (or suspended): then the new
 * agent starts in caution. Null when there is nothing to pass on.
 */
export function inheritanceFrom(source: AgentState, at: number, options: { suspended: boolean } = { suspended: false }): InheritanceInput | null {
  const forgotten = forgetTo(source, at);
  const reporters: Record<string, InheritedReporter> = {};
  for (const [id, r] of entriesOf(forgotten)) {
    if (r.owner) continue;
    const dims: Partial<Record<Dimension, Pair>> = {};
    const record: Partial<Record<Dimension, Pair>> = {};
    const seen: Partial<Record<Dimension, Pair>> = {};
    for (const d of DIMENSIONS) {
      if (!(r.record[d].a < r.record[d].b)) continue;
      dims[d] = { ...r.dims[d] };
      record[d] = { ...r.record[d] };
      seen[d] = { ...r.seen[d] };
    }
    if (Object.keys(record).length === 0) continue;
    reporters[id] = {
      dims,
      record,
      seen,
      verified: r.verified,
      firstAt: r.firstAt,
      lastAt: r.lastAt,
      days: r.days,
      lastDay: r.lastDay,
      lastValue: r.lastValue,
      failures: [...r.failures],
      credibility: credibilityOf(forgotten, id, r),
    };
  }
  const caution = options.suspended || assessAt(source, at).caution;
  return Object.keys(reporters).length === 0 && !caution ? null : { at, reporters, caution };
}
