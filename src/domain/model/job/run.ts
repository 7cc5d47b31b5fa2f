// One run of the cross-agent job: c(r) = age × breadth × agreement × record, each in [0, 1], from
// pair aggregates alone (pure: callable from Node and from a Worker). Age, breadth, agreement and
// record are per-shard work merged per reporter; only the PageRank is global. Exactly two passes of
// agreement and record, each from the previous pass's values (the first from the previous
// snapshot's), so a run is a function of its input. The snapshot is quantised: c to 0.05, age in
// whole days.

import { LEVELS, MODEL_V4 } from "../constants";
import type { JobInput } from "./columns";
import { emptyAgeBreadth, emptyPassFacts, mergeAgeBreadth, mergePassFacts, shardAgeBreadth, shardPass, type AgeBreadth, type PassFacts } from "./passes";
import { ownerGraph, trustedOwners } from "./pagerank";

export interface CredibilitySnapshot {
  day: number;
  /** c per operator, in levels (c × 20). */
  levels: Uint8Array;
  /** Whole days since the operator's first receipted report (−1: none). */
  ageDays: Int32Array;
  trusted: Uint8Array;
  /** The factors of the last pass, per operator (for the docs and the tests). */
  factors: { age: Float64Array; breadth: Float64Array; agreement: Float64Array; record: Float64Array };
  stats: { edges: number; trusted: number; iterations: { uncapped: number; capped: number } };
}

const quantise = (c: number) => Math.min(LEVELS, Math.max(0, Math.round(c * LEVELS)));

export function computeCredibility(input: JobInput): CredibilitySnapshot {
  const C = MODEL_V4.credibility;
  const n = input.operators;
  const isAnchor = new Uint8Array(n);
  for (const a of input.anchors) if (a >= 0 && a < n) isAnchor[a] = 1;

  const graph = ownerGraph(input);
  const trust = trustedOwners(graph, input);

  // Age and breadth: per shard, merged per reporter.
  const ab: AgeBreadth = emptyAgeBreadth(n);
  for (const shard of input.shards) {
    const part = emptyAgeBreadth(n);
    shardAgeBreadth(shard, input.owners, trust.trusted, part);
    mergeAgeBreadth(ab, part, n);
  }
  const age = new Float64Array(n);
  const ageDays = new Int32Array(n).fill(-1);
  const breadth = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    const first = ab.firstReceiptDay[r];
    if (first >= 0) ageDays[r] = Math.max(0, input.day - first);
    let owners = 0;
    for (let k = 0; k < C.breadthOwners; k++) if (ab.owners[r * C.breadthOwners + k] >= 0) owners++;
    age[r] = isAnchor[r] ? 1 : first < 0 ? 0 : Math.min(1, ageDays[r] / C.ageDays);
    breadth[r] = isAnchor[r] ? 1 : Math.min(1, owners / C.breadthOwners);
  }

  // Two passes of agreement and record, each from the previous one's credibility.
  let c = input.previous ? Uint8Array.from(input.previous) : new Uint8Array(n);
  const agreement = new Float64Array(n);
  const record = new Float64Array(n);
  for (let pass = 0; pass < C.passes; pass++) {
    const facts: PassFacts = emptyPassFacts(n);
    for (const shard of input.shards) {
      const part = emptyPassFacts(n);
      shardPass(shard, input.owners, c, part);
      mergePassFacts(facts, part, n);
    }
    const next = new Uint8Array(n);
    for (let r = 0; r < n; r++) {
      const a = facts.agree[r];
      const d = facts.disagree[r];
      agreement[r] = Math.min(1, (a + 1) / (a + d + 1));
      record[r] = facts.mass[r] > 0 ? Math.min(1, Math.max(0, (facts.massS[r] / facts.mass[r] - C.recordFrom) / C.recordSpan)) : 1;
      next[r] = quantise(age[r] * breadth[r] * agreement[r] * record[r]);
    }
    c = next;
  }
  let trustedCount = 0;
  for (let r = 0; r < n; r++) trustedCount += trust.trusted[r];
  return {
    day: input.day,
    levels: c,
    ageDays,
    trusted: trust.trusted,
    factors: { age, breadth, agreement, record },
    stats: { edges: graph.edges, trusted: trustedCount, iterations: trust.iterations },
  };
}
