// The metrics of `npm run evaluate` (DESIGN section 4, "Proof"), and the simple baselines they are
// read beside: mean rating received, share of negatives received, and fairness-goodness.

import type { Rating } from "./parse";

/**
 * Mann-Whitney AUC of `positive` against the rest, by `score` (higher: more positive), ties ½:
 * P(score of a positive > score of a negative) + ½ P(equal). NaN without both classes.
 */
export function auc(items: readonly { score: number; positive: boolean }[]): number {
  const sorted = [...items].sort((a, b) => a.score - b.score);
  let pos = 0;
  let neg = 0;
  let rankSum = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j].score === sorted[i].score) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) {
      if (sorted[k].positive) {
        pos++;
        rankSum += rank;
      } else neg++;
    }
    i = j;
  }
  if (pos === 0 || neg === 0) return NaN;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

/**
 * Average precision, step-wise with ties grouped: items ranked by score (highest first); each group of
 * equal scores adds (its positives / all positives) × the precision at the group's end.
 */
export function averagePrecision(items: readonly { score: number; positive: boolean }[]): number {
  const sorted = [...items].sort((a, b) => b.score - a.score);
  const total = sorted.filter((x) => x.positive).length;
  if (total === 0) return NaN;
  let seen = 0;
  let hits = 0;
  let ap = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    let groupHits = 0;
    while (j < sorted.length && sorted[j].score === sorted[i].score) {
      if (sorted[j].positive) groupHits++;
      j++;
    }
    seen += j - i;
    hits += groupHits;
    ap += (groupHits / total) * (hits / seen);
    i = j;
  }
  return ap;
}

/** Per user: mean rating received, and the share of its ratings received that are negative (≤ −1). */
export function receivedStats(ratings: readonly Rating[]): Map<number, { sum: number; count: number; negatives: number }> {
  const out = new Map<number, { sum: number; count: number; negatives: number }>();
  for (const r of ratings) {
    const s = out.get(r.target) ?? { sum: 0, count: 0, negatives: 0 };
    s.sum += r.rating;
    s.count++;
    if (r.rating <= -1) s.negatives++;
    out.set(r.target, s);
  }
  return out;
}

/**
 * Fairness-goodness (Kumar et al., ICDM 2016): g(v) = mean over ratings in of f(u)·w, w = rating/10;
 * f(u) = 1 − Σ|w − g(v)| / (2·out-degree(u)); from f = 1, 100 iterations or until no value moves by
 * 1e-9. A user with no rating in has g = 0.
 */
export function fairnessGoodness(ratings: readonly Rating[]): Map<number, number> {
  const users = [...new Set(ratings.flatMap((r) => [r.source, r.target]))].sort((a, b) => a - b);
  const idx = new Map(users.map((u, i) => [u, i]));
  const n = users.length;
  const src = Int32Array.from(ratings, (r) => idx.get(r.source)!);
  const dst = Int32Array.from(ratings, (r) => idx.get(r.target)!);
  const w = Float64Array.from(ratings, (r) => r.rating / 10);
  const inDeg = new Int32Array(n);
  const outDeg = new Int32Array(n);
  for (let e = 0; e < ratings.length; e++) {
    inDeg[dst[e]]++;
    outDeg[src[e]]++;
  }
  const f = new Float64Array(n).fill(1);
  const g = new Float64Array(n);
  for (let it = 0; it < 100; it++) {
    const g2 = new Float64Array(n);
    for (let e = 0; e < ratings.length; e++) g2[dst[e]] += f[src[e]] * w[e];
    for (let v = 0; v < n; v++) g2[v] = inDeg[v] > 0 ? g2[v] / inDeg[v] : 0;
    const err = new Float64Array(n);
    for (let e = 0; e < ratings.length; e++) err[src[e]] += Math.abs(w[e] - g2[dst[e]]);
    let delta = 0;
    for (let v = 0; v < n; v++) {
      delta = Math.max(delta, Math.abs(g2[v] - g[v]));
      g[v] = g2[v];
      const f2 = outDeg[v] > 0 ? 1 - err[v] / (2 * outDeg[v]) : 1;
      delta = Math.max(delta, Math.abs(f2 - f[v]));
      f[v] = f2;
    }
    if (delta < 1e-9) break;
  }
  return new Map(users.map((u, i) => [u, g[i]]));
}
