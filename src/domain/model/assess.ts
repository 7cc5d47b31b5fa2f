// The facts every decision reads at a time t, from the aggregates alone: the scores (main sums and
// the tenure buckets matured by t), S, the masses, and the recent windows as they stand at t.
// Masses are in levels (1.0 of credibility = 20).

import { MODEL_V4, levelsOf } from "./constants";
import { copyMass, histogramFacts, sumMass, tenureActive, type AgentModel, type Histogram, type Mass } from "./aggregate";
import { compositeOf, dimensionScores } from "./scores";
import { dayOf, hourOf, type Dimension } from "./vocabulary";

export interface Assessment {
  mass: Mass;
  dimensions: Record<Dimension, number>;
  composite: number;
  /** S: the stability (outcome) dimension, on which caution and clear are decided. */
  s: number;
  negative: { mass: number; top: number; count: number };
  /** The fast caution's window (48 hours): every vote's mass, and the failing ones. */
  recent: { voting: number; failing: { mass: number; top: number; count: number } };
  /** Failing votes within 30 days. */
  failing30: { mass: number; top: number; count: number };
  /** The slow caution rule: S ≤ 450 with credible negative mass that no one reporter makes. */
  slowCaution: boolean;
  fastCaution: boolean;
  recentFailures: boolean;
  /** The caution rules hold at t (without the episode's memory). */
  caution: boolean;
}

const RECENT_HOURS = MODEL_V4.fastCaution.windowMs / 3_600_000;
const FAILING_DAYS = MODEL_V4.recentFailures.windowMs / 86_400_000;

function merged(hs: Histogram[]): { mass: number; top: number; count: number } {
  let mass = 0;
  let count = 0;
  let top = 0;
  for (const h of hs) {
    const f = histogramFacts(h);
    mass += f.mass;
    count += f.count;
    top = Math.max(top, f.top);
  }
  return { mass, top, count };
}

/** The main sums with the tenure buckets matured by t (all of them once the tenure rule no longer applies). */
export function massAt(model: AgentModel, t: number): Mass {
  const all = !tenureActive(model.episode, t);
  const day = dayOf(t);
  const matured = model.pending.filter((b) => all || b.day <= day);
  if (matured.length === 0) return model.main;
  const m = copyMass(model.main);
  for (const b of matured) sumMass(m, b.mass);
  return m;
}

export function assess(model: AgentModel, t: number): Assessment {
  const mass = massAt(model, t);
  const dimensions = dimensionScores(mass.dims);
  const composite = compositeOf(mass.dims, dimensions);
  const s = dimensions.stability;
  const negative = merged([model.negative]);

  const hour = hourOf(t);
  const day = dayOf(t);
  const recentBuckets = model.recent.filter((b) => hour - b.hour < RECENT_HOURS && b.hour <= hour);
  const recent = { voting: recentBuckets.reduce((x, b) => x + b.voting, 0), failing: merged(recentBuckets.map((b) => b.failing)) };
  const failing30 = merged(model.failing.filter((b) => day - b.day < FAILING_DAYS && b.day <= day).map((b) => b.failing));

  const C = MODEL_V4.caution;
  const slowCaution = s <= C.atOrBelow && negative.mass >= levelsOf(C.negativeMass) && negative.mass - negative.top >= levelsOf(C.withoutTop);
  // Both recent tests hold without the single most credible failing voter, on every side of every
  // threshold (as version 3's fast path did): one voter, however credible, never tips them.
  const F = MODEL_V4.fastCaution;
  const failingWithout = recent.failing.mass - recent.failing.top;
  const fastCaution =
    recent.failing.count >= F.failing && failingWithout >= levelsOf(F.withoutTop) && failingWithout >= F.share * (recent.voting - recent.failing.top);
  // RECENT_FAILURES: failing votes of the last 30 days at double weight against the other votes of the last 48 hours.
  const R = MODEL_V4.recentFailures;
  const failingWeighted = R.failingWeight * (failing30.mass - failing30.top);
  const others = recent.voting - recent.failing.mass;
  const recentFailures = failing30.count >= R.failing && failingWeighted >= levelsOf(R.withoutTop) && failingWeighted >= R.share * (failingWeighted + others);
  return { mass, dimensions, composite, s, negative, recent, failing30, slowCaution, fastCaution, recentFailures, caution: slowCaution || fastCaution };
}
