// The transitions the agent's object applies, one per history entry, with the caution episode (R3)
// brought up to date at each: a score is a pure function of the entries and the time because the
// episode changes only at entries, by these rules.
//
// At an entry at time t the caution verdict is taken twice:
// - before it, on the state forgotten to t: the caution rules, or the idle hold (the agent was in
//   caution after its last entry and its last report is less than 365 days old: forgetting alone
//   never lifts a caution sooner). A caution entered by time alone between entries (a reporter
//   becoming established, a vote expiring) is thus recorded at the next entry and begins there.
// - after it: a configuration change, an inheritance or the model switch never end a caution (the
//   verdict before stands if it was caution), and an inheritance from a cautioned agent starts one;
//   a credibility entry ends one exactly when the rules no
//   longer hold and the idle hold did not carry it; a report ends one only when the rules no longer
//   hold and it is a success from a reporter that counts (incumbents lift a caution at once,
//   newcomers awaiting tenure and failing reports never do).

import type { ChangeType } from "../configuration";
import { assess, rememberAssessment } from "./assess";
import { MODEL } from "./constants";
import { addConfigChange, addCredibility, addInheritance, addReport, forgetTo } from "./evidence";
import { entriesOf, type AgentState, type CredibilityInput, type Episode, type InheritanceInput, type ReportInput } from "./state";
import { awaitsTenure } from "./weighing";

/** The idle hold at `now`: in caution after the last entry, and the last report younger than 365 days. */
export function heldAt(state: AgentState, now: number): boolean {
  if (!state.episode.open) return false;
  const lastActivity = state.lastReportAt ?? state.episode.since ?? state.at;
  return now - lastActivity < MODEL.idleHoldMs;
}

/** The caution verdict at `now` of a state forgotten to `now`: the rules, or the idle hold. */
export function cautionAt(state: AgentState, now: number): { rules: boolean; held: boolean } {
  const rules = assess(state, entriesOf(state), now).caution;
  return { rules, held: !rules && heldAt(state, now) };
}

/**
 * The episode after a verdict at `at`. An episode lasts until 90 days after the agent was last in
 * caution: a caution that returns within them continues it (its start stays), so a newcomer cannot
 * become an incumbent by waiting for a caution to lapse and return.
 */
function nextEpisode(e: Episode, caution: boolean, at: number): Episode {
  if (!caution) return { open: false, since: e.since, lastAt: e.lastAt };
  const continues = e.since !== null && (e.open || (e.lastAt !== null && at - e.lastAt <= MODEL.episode.afterMs));
  return { open: true, since: continues ? e.since : at, lastAt: at };
}

type Kind = "report" | "config" | "credibility" | "inheritance" | "switch";

/**
 * The verdict before the entry (recorded in the episode), the entry applied by `apply`, and the
 * verdict after it by the rules of this module's header.
 */
function step(
  state: AgentState,
  at: number,
  kind: Kind,
  apply: (s: AgentState) => AgentState,
  liftsHeld: (s: AgentState) => boolean,
  starts = false,
): AgentState {
  const before = forgetTo(state, at);
  // Time never runs backwards: an entry older than the state is judged at the state's time.
  const t = before.at;
  const pre = cautionAt(before, t);
  const wasCaution = pre.rules || pre.held;
  const episode = nextEpisode(state.episode, wasCaution, t);
  const applied = apply({ ...before, episode });
  const assessment = assess(applied, entriesOf(applied), applied.at);
  const rules = assessment.caution;
  let caution: boolean;
  if (kind === "credibility") caution = rules || pre.held;
  else if (kind === "report") caution = rules || (wasCaution && !liftsHeld(applied));
  else caution = rules || wasCaution || starts;
  const next = { ...applied, episode: nextEpisode(episode, caution, t) };
  // The episode is all that differs, and it weighs reporters only through its start and whether it
  // is open (the last caution only while closed): an unchanged one leaves the assessment as it was.
  const e0 = applied.episode;
  const e1 = next.episode;
  if (e0.open === e1.open && e0.since === e1.since && (e1.open || e0.lastAt === e1.lastAt)) rememberAssessment(next, applied.at, assessment);
  return next;
}

/**
 * Applies one report. `k` = earlier reports by the same reporter on this agent in the damping window
 * (the caller counts them on the live path; replay counts them itself). `ownerKey`: the agent's owner.
 */
export function applyReport(state: AgentState, input: ReportInput, ownerKey: string | null, k: number): { state: AgentState; weight: number } {
  let weight = 0;
  const next = step(
    state,
    input.at,
    "report",
    (s) => {
      const r = addReport(s, input, ownerKey, k);
      weight = r.weight;
      return r.state;
    },
    (s) => {
      const r = s.reporters[input.reporter];
      return input.outcome === "success" && !r.owner && !awaitsTenure(s, input.reporter, r, input.at);
    },
  );
  return { state: next, weight };
}

/** Applies a configuration change (R3: it never raises a score and never ends a caution). */
export function applyConfigChange(state: AgentState, changes: ChangeType[], now: number): AgentState {
  return step(state, now, "config", (s) => addConfigChange(s, changes, now), () => false);
}

/** Applies a `credibility` entry: the values in force for the reporters it names from its time on. */
export function applyCredibility(state: AgentState, input: CredibilityInput): AgentState {
  return step(state, input.at, "credibility", (s) => addCredibility(s, input), () => false);
}

/** Applies an `inheritance` entry (R6). */
export function applyInheritance(state: AgentState, input: InheritanceInput): AgentState {
  return step(state, input.at, "inheritance", (s) => addInheritance(s, input), () => false, input.caution);
}

/** The model-switch entry: the evidence is version 3's already; only the episode is brought up to date. */
export function applySwitch(state: AgentState, at: number): AgentState {
  return step(state, at, "switch", (s) => s, () => false);
}
