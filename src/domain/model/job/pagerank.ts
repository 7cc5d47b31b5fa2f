// Trusted owners: a personalised PageRank from the anchors over receipted positive dealings, global
// over deduplicated owner → owner edges (reporter → the owner of the agent it praised), each edge
// passing the reporter's credibility of the previous snapshot (a reporter at 0 passes no trust), and
// no single in-neighbour contributing more than half of an owner's rank.
//
// The cap is applied as the greatest fixed point below the uncapped ranks: the uncapped PageRank
// first, then the capped map iterated from it (the map is monotone, so the ranks only fall and the
// result does not depend on where an honest cluster's mutual support would otherwise have to start).
// An owner whose rank would come from one in-neighbour alone gets none: one honest receipted edge
// into a region of accounts without credibility of their own makes nobody there trusted.

import { LEVELS, MODEL_V4 } from "../constants";
import type { JobInput } from "./columns";

/** Deduplicated edges as CSR by target: target t's sources are sources[offsets[t] .. offsets[t+1]). */
export interface OwnerGraph {
  offsets: Int32Array;
  sources: Int32Array;
  outDegree: Int32Array;
  edges: number;
}

/** The owner edges of every shard: a pair with a receipt and a stability vote above 500, reporter ≠ owner. */
export function ownerGraph(input: Pick<JobInput, "operators" | "owners" | "shards">): OwnerGraph {
  const n = input.operators;
  let total = 0;
  for (const s of input.shards) total += s.length;
  const keys = new Float64Array(total);
  let k = 0;
  for (const s of input.shards) {
    for (let i = 0; i < s.length; i++) {
      const owner = input.owners[s.agent[i]];
      const r = s.reporter[i];
      if (owner < 0 || owner === r || s.receiptDay[i] < 0 || !(s.vote[i] > 500)) continue;
      keys[k++] = owner * n + r;
    }
  }
  const sorted = keys.subarray(0, k).sort();
  const offsets = new Int32Array(n + 1);
  const sources = new Int32Array(k);
  const outDegree = new Int32Array(n);
  let edges = 0;
  for (let i = 0; i < k; i++) {
    if (i > 0 && sorted[i] === sorted[i - 1]) continue;
    const target = Math.floor(sorted[i] / n);
    const source = sorted[i] - target * n;
    sources[edges++] = source;
    offsets[target + 1]++;
    outDegree[source]++;
  }
  for (let t = 0; t < n; t++) offsets[t + 1] += offsets[t];
  return { offsets, sources: sources.slice(0, edges), outDegree, edges };
}

export interface TrustResult {
  rank: Float64Array;
  trusted: Uint8Array;
  anchorMean: number;
  iterations: { uncapped: number; capped: number };
}

export function trustedOwners(graph: OwnerGraph, input: Pick<JobInput, "operators" | "anchors" | "previous">): TrustResult {
  const C = MODEL_V4.credibility;
  const n = input.operators;
  const d = C.damping;
  const anchors = [...new Set(input.anchors)].filter((a) => a >= 0 && a < n);
  const teleport = new Float64Array(n);
  const isAnchor = new Uint8Array(n);
  for (const a of anchors) isAnchor[a] = 1;
  for (const a of anchors) teleport[a] = (1 - d) / anchors.length;
  // What a source passes along each of its edges: d × its credibility / its out-degree.
  const pass = new Float64Array(n);
  for (let u = 0; u < n; u++) {
    const c = input.previous ? input.previous[u] / LEVELS : 0;
    if (graph.outDegree[u] > 0) pass[u] = (d * c) / graph.outDegree[u];
  }
  const share = C.inNeighbourShare / (1 - C.inNeighbourShare);
  const { offsets, sources } = graph;
  let rank = Float64Array.from(teleport);
  let next = new Float64Array(n);
  const flow = new Float64Array(n);
  const run = (capped: boolean): number => {
    let it = 0;
    for (; it < C.maxIterations; it++) {
      let delta = 0;
      for (let u = 0; u < n; u++) flow[u] = rank[u] * pass[u];
      for (let t = 0; t < n; t++) {
        let sum = 0;
        let max = 0;
        for (let e = offsets[t]; e < offsets[t + 1]; e++) {
          const u = sources[e];
          const x = flow[u];
          sum += x;
          // An anchor's word is the admins': only other in-neighbours are capped.
          if (x > max && isAnchor[u] === 0) max = x;
        }
        let r = teleport[t] + sum;
        if (capped) {
          const others = r - max;
          if (max > share * others) r = others + share * others;
        }
        next[t] = r;
        const dr = Math.abs(r - rank[t]);
        if (dr > delta) delta = dr;
      }
      [rank, next] = [next, rank];
      if (delta <= C.tolerance * ((1 - d) / Math.max(1, anchors.length))) return it + 1;
    }
    return it;
  };
  const uncapped = anchors.length === 0 ? 0 : run(false);
  const capped = anchors.length === 0 ? 0 : run(true);
  let anchorMean = 0;
  for (const a of anchors) anchorMean += rank[a];
  anchorMean = anchors.length === 0 ? 0 : anchorMean / anchors.length;
  const trusted = new Uint8Array(n);
  if (anchors.length > 0) for (let t = 0; t < n; t++) if (rank[t] > 0 && rank[t] >= C.kappa * anchorMean) trusted[t] = 1;
  return { rank, trusted, anchorMean, iterations: { uncapped, capped } };
}
