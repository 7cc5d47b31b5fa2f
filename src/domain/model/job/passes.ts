// The job's per-shard work (an agent's pairs all live on its shard) and its merge per reporter:
// age and breadth once per run, agreement and record once per pass.

import { LEVELS, MODEL_V4, OWNER_LEVEL, PRIOR_LEVELS } from "../constants";
import type { PairColumns } from "./columns";

/** Per reporter: the first receipted report's day, and up to `breadthOwners` distinct trusted owners that gave it a receipt. */
export interface AgeBreadth {
  firstReceiptDay: Int32Array;
  /** Up to B owner indices per reporter (−1: none), B = breadthOwners. */
  owners: Int32Array;
}

const B = MODEL_V4.credibility.breadthOwners;

export function emptyAgeBreadth(operators: number): AgeBreadth {
  return { firstReceiptDay: new Int32Array(operators).fill(-1), owners: new Int32Array(operators * B).fill(-1) };
}

function addOwner(owners: Int32Array, r: number, o: number): void {
  for (let k = 0; k < B; k++) {
    const at = r * B + k;
    if (owners[at] === o) return;
    if (owners[at] < 0) {
      owners[at] = o;
      return;
    }
  }
}

/** One shard's age and breadth facts, added into `into` (the merge is the same operation). */
export function shardAgeBreadth(shard: PairColumns, owners: Int32Array, trusted: Uint8Array, into: AgeBreadth): void {
  for (let i = 0; i < shard.length; i++) {
    const day = shard.receiptDay[i];
    const r = shard.reporter[i];
    const o = owners[shard.agent[i]];
    if (day < 0 || o === r) continue;
    const first = into.firstReceiptDay[r];
    if (first < 0 || day < first) into.firstReceiptDay[r] = day;
    if (o >= 0 && trusted[o]) addOwner(into.owners, r, o);
  }
}

export function mergeAgeBreadth(into: AgeBreadth, part: AgeBreadth, operators: number): void {
  for (let r = 0; r < operators; r++) {
    const day = part.firstReceiptDay[r];
    if (day >= 0 && (into.firstReceiptDay[r] < 0 || day < into.firstReceiptDay[r])) into.firstReceiptDay[r] = day;
    for (let k = 0; k < B; k++) {
      const o = part.owners[r * B + k];
      if (o >= 0) addOwner(into.owners, r, o);
    }
  }
}

/** Per reporter: agreements and disagreements; per owner: Σ m·S and Σ m over its agents with m ≥ 1. */
export interface PassFacts {
  agree: Int32Array;
  disagree: Int32Array;
  massS: Float64Array;
  mass: Float64Array;
}

export function emptyPassFacts(operators: number): PassFacts {
  return { agree: new Int32Array(operators), disagree: new Int32Array(operators), massS: new Float64Array(operators), mass: new Float64Array(operators) };
}

const FIRST = MODEL_V4.credibility.firstVoters;
const MIN_MASS = MODEL_V4.operatorMinMass * LEVELS;

/**
 * One shard's agreement and record facts under the credibility levels `c` (the previous pass's),
 * added into `into`. Per agent: the leave-one-out consensus of the other non-owner votes on S
 * weighted by c; a reporter agrees where its vote's side is the consensus's and it was among the
 * first 5 voters with c > 0 (by first report), and disagrees wherever it is not (any position,
 * c or not). The agent's S (the model's formula, the owner at its fixed weight) and credible mass
 * feed its owner's record when that mass is at least 1 without the agent's most credible reporter.
 */
export function shardPass(shard: PairColumns, owners: Int32Array, c: Uint8Array, into: PassFacts): void {
  const firstIdx = new Int32Array(FIRST);
  let start = 0;
  while (start < shard.length) {
    const agent = shard.agent[start];
    let end = start + 1;
    while (end < shard.length && shard.agent[end] === agent) end++;
    const owner = owners[agent];
    let total = 0;
    let weight = 0;
    let ownerN = 0;
    let ownerW = 0;
    let firstCount = 0;
    let top = 0;
    for (let i = start; i < end; i++) {
      const v = shard.vote[i];
      if (v < 0) continue;
      const r = shard.reporter[i];
      if (r === owner) {
        ownerN += OWNER_LEVEL * (2 * v - 1000);
        ownerW += OWNER_LEVEL;
        continue;
      }
      const level = c[r];
      total += level * (2 * v - 1000);
      weight += level;
      if (level > top) top = level;
      if (level === 0 || v === 500) continue;
      // The first voters with credibility, by first report (then reporter index): a small insertion.
      let k = firstCount < FIRST ? firstCount++ : FIRST;
      if (k === FIRST) {
        const last = firstIdx[FIRST - 1];
        if (!(shard.firstAt[i] < shard.firstAt[last] || (shard.firstAt[i] === shard.firstAt[last] && r < shard.reporter[last]))) continue;
        k = FIRST - 1;
      }
      while (k > 0) {
        const prev = firstIdx[k - 1];
        if (shard.firstAt[prev] < shard.firstAt[i] || (shard.firstAt[prev] === shard.firstAt[i] && shard.reporter[prev] < r)) break;
        firstIdx[k] = prev;
        k--;
      }
      firstIdx[k] = i;
    }
    for (let i = start; i < end; i++) {
      const v = shard.vote[i];
      const r = shard.reporter[i];
      if (v < 0 || v === 500 || r === owner) continue;
      const others = total - c[r] * (2 * v - 1000);
      if (others === 0) continue;
      if (v > 500 === others > 0) {
        let first = false;
        for (let k = 0; k < firstCount; k++) if (firstIdx[k] === i) first = true;
        if (first) into.agree[r]++;
      } else into.disagree[r]++;
    }
    // No one reporter makes an agent count for its owner's record.
    if (owner >= 0 && weight - top >= MIN_MASS) {
      const s = 500 + (total + ownerN) / (2 * (weight + ownerW + PRIOR_LEVELS));
      const m = weight / LEVELS;
      into.massS[owner] += m * s;
      into.mass[owner] += m;
    }
    start = end;
  }
}

export function mergePassFacts(into: PassFacts, part: PassFacts, operators: number): void {
  for (let r = 0; r < operators; r++) {
    into.agree[r] += part.agree[r];
    into.disagree[r] += part.disagree[r];
    into.massS[r] += part.massS[r];
    into.mass[r] += part.mass[r];
  }
}
