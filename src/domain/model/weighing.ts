// How much each reporter's evidence counts at a given time (R1-R3): its credibility `c`, whether it
// counts at all (the caution episode's tenure rule), whether it is established and active, and the
// lone-dissenter factor per dimension. Then the sums α, β and N the scores are made of.

import { MODEL } from "./constants";
import type { AgentState, Entry, ReporterState } from "./state";
import { DIMENSIONS, mapDims, type Dimension, type Pair } from "./vocabulary";

/** The credibility in force for a reporter: the last `credibility` entry's value, else its seed. */
export function credibilityOf(state: AgentState, id: string, r: ReporterState): number {
  const c = state.credibility[id];
  return c !== undefined ? c : seedOf(r);
}

export function isEstablished(r: Pick<ReporterState, "days" | "firstAt">, now: number): boolean {
  return r.days >= MODEL.established.days && now - r.firstAt >= MODEL.established.ageMs;
}

function netPositive(r: ReporterState): boolean {
  let net = 0;
  for (const d of DIMENSIONS) net += r.record[d].a - r.record[d].b;
  return net > 0;
}

/** A reporter's seed credibility: what it has without standing. */
export const seedOf = (r: ReporterState) => (r.verified ? MODEL.credibility.seed.verified : MODEL.credibility.seed.unverified);

/**
 * R3 tenure: within `afterMs` of the agent's last caution, a net-positive reporter that first reported
 * at or after the episode began counts only once it has `tenureMs` on the agent, and only if it holds
 * more than its seed credibility: newcomers without standing never lift a caution, however long they
 * stay (at any time, k new accounts cannot do what k/4 aged ones do after 30 days).
 */
export function awaitsTenure(state: AgentState, id: string, r: ReporterState, now: number): boolean {
  const { since, lastAt, open } = state.episode;
  if (since === null || r.owner || r.firstAt < since) return false;
  const lastInCaution = open ? now : (lastAt ?? since);
  if (now - lastInCaution > MODEL.episode.afterMs || !netPositive(r)) return false;
  return now - r.firstAt < MODEL.episode.tenureMs || !(credibilityOf(state, id, r) > seedOf(r));
}

/** Every reporter's standing in one assessment, in entry order. */
export interface Weights {
  entries: readonly Entry[];
  /** 1 for the owner, `c` for others, 0 for a reporter that does not count (tenure). */
  weight: number[];
  /** `c` of a counted non-owner reporter, else 0: what enters R_c, negatives and votes. */
  credible: number[];
  established: boolean[];
  /** The lone-dissenter factor per dimension, in (0, 1]. */
  factor: Record<Dimension, number[]>;
}

/**
 * The weights at `now` (the state already forgotten to `now`). The lone-dissenter rule (R2) reads the
 * record: on a dimension, a non-owner reporter whose sign is opposite to the sign of the others'
 * weighted sum, with no other non-owner reporter of its sign that has reported `allyEvidence` of
 * that sign there (its seen a for a positive sign, b for a negative one), is scaled to at most share × (the others' weighted evidence + priorEvidence). "The others"
 * are the totals minus the reporter's own term (so a second implementation must subtract too).
 */
export function weigh(state: AgentState, entries: readonly Entry[], now: number): Weights {
  const n = entries.length;
  const weight = new Array<number>(n);
  const credible = new Array<number>(n);
  const established = new Array<boolean>(n);
  for (let i = 0; i < n; i++) {
    const [id, r] = entries[i];
    const counts = !awaitsTenure(state, id, r, now);
    const c = r.owner ? 1 : credibilityOf(state, id, r);
    weight[i] = counts ? c : 0;
    credible[i] = counts && !r.owner ? c : 0;
    established[i] = isEstablished(r, now);
  }
  const L = MODEL.loneDissenter;
  const factor = mapDims((d) => {
    let net = 0;
    let total = 0;
    let positiveAllies = 0;
    let negativeAllies = 0;
    for (let i = 0; i < n; i++) {
      const r = entries[i][1];
      if (r.owner || credible[i] === 0) continue;
      const p = r.record[d];
      net += credible[i] * (p.a - p.b);
      total += credible[i] * (p.a + p.b);
      if (p.a > p.b && r.seen[d].a >= L.allyEvidence) positiveAllies++;
      else if (p.a < p.b && r.seen[d].b >= L.allyEvidence) negativeAllies++;
    }
    const f = new Array<number>(n).fill(1);
    for (let i = 0; i < n; i++) {
      const r = entries[i][1];
      if (r.owner || credible[i] === 0) continue;
      const p = r.record[d];
      const sign = Math.sign(p.a - p.b);
      if (sign === 0) continue;
      const own = credible[i] * (p.a - p.b);
      const others = net - own;
      if (Math.sign(others) !== -sign) continue;
      const isAlly = sign > 0 ? r.seen[d].a >= L.allyEvidence : r.seen[d].b >= L.allyEvidence;
      const allies = (sign > 0 ? positiveAllies : negativeAllies) - (isAlly ? 1 : 0);
      if (allies > 0) continue;
      const evidence = credible[i] * (p.a + p.b);
      const bound = L.share * (total - evidence + L.priorEvidence);
      if (evidence > bound) f[i] = bound / evidence;
    }
    return f;
  });
  return { entries, weight, credible, established, factor };
}

/** Per dimension, Σ weight × factor × pair over the reporters, of `dims` or of `record`, in entry order. */
export function sums(w: Weights, which: "dims" | "record"): Record<Dimension, Pair> {
  const out = {} as Record<Dimension, Pair>;
  for (const d of DIMENSIONS) {
    let a = 0;
    let b = 0;
    const f = w.factor[d];
    for (let i = 0; i < w.entries.length; i++) {
      const k = w.weight[i] * f[i];
      if (k === 0) continue;
      const p = w.entries[i][1][which][d];
      a += k * p.a;
      b += k * p.b;
    }
    out[d] = { a, b };
  }
  return out;
}

export function dimensionScore(p: Pair): number {
  const alpha = MODEL.prior + p.a;
  const beta = MODEL.prior + p.b;
  return Math.round((1000 * alpha) / (alpha + beta));
}

/** Over the observed dimensions, from the rounded dimension scores (a client can recompute it). */
export function compositeOf(s: Record<Dimension, Pair>, dimensions: Record<Dimension, number>): number {
  const w = MODEL.compositeWeights;
  let totalWeight = 0;
  let pull = 0;
  for (const d of DIMENSIONS) {
    if (!(s[d].a + s[d].b > MODEL.observedEpsilon)) continue;
    totalWeight += w[d];
    pull += w[d] * (dimensions[d] - 500);
  }
  return totalWeight > 0 ? Math.round(500 + pull / totalWeight) : 500;
}

export function evidenceOf(s: Record<Dimension, Pair>): number {
  let n = 0;
  for (const d of DIMENSIONS) n += Math.max(0, s[d].a + s[d].b);
  return n;
}
