// The facts every decision reads at one time: the shown and record scores, N, R_c, the credible
// negatives (R3) and the fast negative path (R4), and whether the caution rules hold. The caution
// episode's memory (the idle hold, what ends a caution) is ./transitions' and ./score's.

import { MODEL } from "./constants";
import type { AgentState, Entry } from "./state";
import { mapDims, type Dimension, type Pair } from "./vocabulary";
import { compositeOf, dimensionScore, evidenceOf, seedOf, sums, weigh, type Weights } from "./weighing";

export interface Assessment {
  /** The shown evidence: weighted sums, rounded dimension scores, composite, N. */
  shown: { sums: Record<Dimension, Pair>; dimensions: Record<Dimension, number>; composite: number; evidence: number };
  /** The shown composite without the reporters at their seed credibility (new accounts): clear needs it too. */
  earnedComposite: number;
  /** The same over the record (no configuration decay): what caution reads. */
  record: { sums: Record<Dimension, Pair>; dimensions: Record<Dimension, number>; composite: number; evidence: number };
  /** R_c: Σ c over established, counted, non-owner reporters whose last report is within the window. */
  credible: number;
  /** The part of R_c whose record is negative on no corroboration dimension: what clear needs (R5). */
  supporting: number;
  /** Σ c over counted non-owner reporters active in the window, established or not. */
  present: number;
  /** Σ c of credible negatives on a corroboration dimension that scores below 500 (record). */
  negativesBelow: number;
  /** Σ c of active credible negatives on any corroboration dimension: objectors. */
  objectors: number;
  /** max(minCredible, R_c / shareDivisor): what negatives must reach. */
  bar: number;
  looksBad: boolean;
  recentFailures: boolean;
  fastCaution: boolean;
  /** The caution rules hold now (without the episode's memory). */
  caution: boolean;
}

/** The reporter's record is negative on the dimension (a < b) and it reported enough negative evidence there (seen b). */
function negativeOn(r: Entry[1], d: Dimension): boolean {
  const p = r.record[d];
  return p.a < p.b && r.seen[d].b >= MODEL.recommendation.corroboration.minEvidence;
}

/** The reporter's record is negative on none of the corroboration dimensions: it supports clear. */
function supports(r: Entry[1]): boolean {
  return MODEL.recommendation.corroboration.dimensions.every((d) => !(r.record[d].a < r.record[d].b));
}

function looksBad(composite: number, dims: Record<Dimension, number>, evidence: number): boolean {
  const r = MODEL.recommendation;
  if (composite < r.cautionBelowComposite) return true;
  if (r.cautionDimensions.some((d) => dims[d] < r.cautionBelowDimension)) return true;
  return evidence >= r.midpointFromEvidence && r.midpointDimensions.some((d) => dims[d] < 500);
}

/**
 * R4: each established, counted non-owner reporter whose last report is under `voteMs` old votes with
 * it; the most credible failing voter is left out (the first in key order on a tie) before every
 * threshold is checked.
 */
function fastPath(w: Weights, now: number): { recentFailures: boolean; fastCaution: boolean } {
  const F = MODEL.fastPath;
  let voting = 0;
  let failing = 0;
  let failingCount = 0;
  let repeat = 0;
  let top = -1;
  let topRepeat = false;
  for (let i = 0; i < w.entries.length; i++) {
    const c = w.credible[i];
    const r = w.entries[i][1];
    if (c === 0 || !w.established[i] || !(now - r.lastAt < F.voteMs) || r.lastAt > now) continue;
    voting += c;
    if (!(r.lastValue <= F.failAtOrBelow)) continue;
    failing += c;
    failingCount++;
    let recent = 0;
    for (const t of r.failures) if (t > now - F.fastCaution.windowMs && t <= now) recent++;
    const isRepeat = recent >= F.fastCaution.failures;
    if (isRepeat) repeat += c;
    if (c > top) {
      top = c;
      topRepeat = isRepeat;
    }
  }
  if (failingCount === 0) return { recentFailures: false, fastCaution: false };
  voting -= top;
  failing -= top;
  failingCount--;
  if (topRepeat) repeat -= top;
  const rf = F.recentFailures;
  const recentFailures = failingCount >= rf.voters && failing >= rf.credible && failing >= rf.share * voting;
  const fc = F.fastCaution;
  const fastCaution = recentFailures && repeat >= fc.credible && repeat >= fc.share * voting;
  return { recentFailures, fastCaution };
}

// A state is never changed once made, and an assessment is a function of the state and the time: the
// last one of each state is kept, so a score read at an entry's time reuses the entry's own.
const lastAssessment = new WeakMap<AgentState, { now: number; assessment: Assessment }>();

/** The assessment at `now` of a state already forgotten to `now`. */
export function assess(state: AgentState, entries: readonly Entry[], now: number): Assessment {
  const cached = lastAssessment.get(state);
  if (cached && cached.now === now) return cached.assessment;
  const assessment = assessUncached(state, entries, now);
  lastAssessment.set(state, { now, assessment });
  return assessment;
}

/** Keeps `assessment` as `state`'s at `now` (a state whose assessment is known to be the same as another's). */
export function rememberAssessment(state: AgentState, now: number, assessment: Assessment): void {
  lastAssessment.set(state, { now, assessment });
}

function assessUncached(state: AgentState, entries: readonly Entry[], now: number): Assessment {
  const w = weigh(state, entries, now);
  const shownSums = sums(w, "dims");
  const recordSums = sums(w, "record");
  // "Observed" reads the record, so a configuration change never takes a dimension out of the composite.
  const observed = (s: Record<Dimension, Pair>) => mapDims((d) => (recordSums[d].a + recordSums[d].b > MODEL.observedEpsilon ? s[d] : { a: 0, b: 0 }));
  const dimensions = mapDims((d) => dimensionScore(shownSums[d]));
  const recordDimensions = mapDims((d) => dimensionScore(recordSums[d]));
  const shown = { sums: shownSums, dimensions, composite: compositeOf(observed(shownSums), dimensions), evidence: evidenceOf(shownSums) };
  // The same composite without the reporters at their seed: clear must hold without them (R5).
  const earned = { ...w, weight: w.weight.map((k, i) => (w.credible[i] > 0 && !(w.credible[i] > seedOf(entries[i][1])) ? 0 : k)) };
  const earnedSums = sums(earned, "dims");
  const earnedComposite = compositeOf(observed(earnedSums), mapDims((d) => dimensionScore(earnedSums[d])));
  const record = { sums: recordSums, dimensions: recordDimensions, composite: compositeOf(recordSums, recordDimensions), evidence: evidenceOf(recordSums) };

  const corroboration = MODEL.recommendation.corroboration;
  const below = corroboration.dimensions.filter((d) => recordDimensions[d] < 500);
  let credible = 0;
  let supporting = 0;
  let negativesBelow = 0;
  let objectors = 0;
  let present = 0;
  for (let i = 0; i < entries.length; i++) {
    const c = w.credible[i];
    if (c === 0) continue;
    const r = entries[i][1];
    const active = now - r.lastAt <= MODEL.independentReporterWindowMs;
    if (active) present += c;
    if (!w.established[i]) continue;
    if (active) credible += c;
    if (active && supports(r)) supporting += c;
    // An objection is a current dispute: only active reporters object. A bad record is not: the
    // negatives that corroborate a bad look count however long ago they reported.
    if (active && corroboration.dimensions.some((d) => negativeOn(r, d))) objectors += c;
    if (below.some((d) => negativeOn(r, d))) negativesBelow += c;
  }
  const bar = Math.max(corroboration.minCredible, credible / corroboration.shareDivisor);
  const bad = looksBad(record.composite, recordDimensions, record.evidence);
  const fast = fastPath(w, now);
  const caution =
    (bad && negativesBelow >= bar) || (objectors >= bar && objectors > corroboration.majority * credible) || fast.fastCaution;
  return { shown, earnedComposite, record, credible, supporting, present, negativesBelow, objectors, bar, looksBad: bad, ...fast, caution };
}

