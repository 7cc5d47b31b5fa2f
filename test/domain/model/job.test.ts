// Version 4's cross-agent job: trusted owners (personalised PageRank with the in-neighbour cap), age,
// breadth, agreement (the first credible voters), record, the two passes, shards merged per reporter.

import { describe, expect, it } from "vitest";
import { DAY_MS, MODEL_V4, job } from "../../../src/domain/model/index";

const DAY = 20_000;

/** Pairs as [agent, reporter, vote, first report day, receipted] with agent i owned by operator owners[i]. */
type Pair = [agent: number, reporter: number, vote: number, day: number, receipt?: boolean];

function columns(pairs: Pair[]): job.PairColumns {
  let c = job.emptyColumns(4);
  for (const [agent, reporter, vote, day, receipt = true] of [...pairs].sort((x, y) => x[0] - y[0])) c = job.pushPair(c, agent, reporter, vote, day * DAY_MS, receipt ? day : -1);
  return c;
}

function run(operators: number, pairs: Pair[], options: { anchors?: number[]; previous?: Uint8Array | null; day?: number; owners?: number[]; shards?: number } = {}) {
  const owners = Int32Array.from(options.owners ?? Array.from({ length: operators }, (_, i) => i));
  const k = options.shards ?? 1;
  const shards = Array.from({ length: k }, (_, s) => columns(pairs.filter(([agent]) => agent % k === s)));
  return job.computeCredibility({ operators, owners, anchors: options.anchors ?? [0], shards, previous: options.previous ?? null, day: options.day ?? DAY + 60 });
}

/** The job run day after day from genesis, as the service runs it. */
function daily(operators: number, pairs: Pair[], days: number, options: { anchors?: number[] } = {}) {
  let previous: Uint8Array | null = null;
  let snapshot = run(operators, pairs, { ...options, previous, day: DAY });
  for (let d = 0; d < days; d++) {
    snapshot = run(operators, pairs, { ...options, previous, day: DAY + d });
    previous = snapshot.levels;
  }
  return snapshot;
}

const full = (n: number) => new Uint8Array(n).fill(20);

describe("trusted owners", () => {
  it("are the anchors and the owners reached by credible receipted praise from ≥ 2 in-neighbours", () => {
    // Anchor 0 and reporters 1, 2 (credible) praise 3's agent; 4's agent only 1 praises.
    const pairs: Pair[] = [[3, 0, 1000, DAY], [3, 1, 1000, DAY], [3, 2, 1000, DAY], [4, 1, 1000, DAY], [1, 0, 1000, DAY], [2, 0, 1000, DAY], [1, 2, 1000, DAY], [2, 1, 1000, DAY]];
    const s = run(5, pairs, { previous: full(5) });
    expect([...s.trusted]).toEqual([1, 1, 1, 1, 0]);
  });

  it("gives a region joined by one honest receipted edge nothing, however its accounts praise each other", () => {
    // An honest core around anchor 0; honest 1 deals with sybil owner 5; sybils 5..9 praise each other.
    const pairs: Pair[] = [[1, 0, 1000, DAY], [2, 0, 1000, DAY], [1, 2, 1000, DAY], [2, 1, 1000, DAY], [5, 1, 1000, DAY]];
    for (let a = 5; a < 10; a++) for (let r = 5; r < 10; r++) if (a !== r) pairs.push([a, r, 1000, DAY]);
    const previous = full(10);
    for (let r = 5; r < 10; r++) previous[r] = 0;
    const s = run(10, pairs, { previous });
    expect([...s.trusted.slice(5)]).toEqual([0, 0, 0, 0, 0]);
    expect(s.trusted[1] && s.trusted[2]).toBe(1);
    // The cap is what holds: without it the one honest edge lifts the sybil owner over κ.
    const uncapped = job.trustedOwners(job.ownerGraph({ operators: 10, owners: Int32Array.from({ length: 10 }, (_, i) => i), shards: [columns(pairs)] }), { operators: 10, anchors: [0], previous });
    expect(uncapped.rank[5]).toBe(0);
  });

  it("takes an anchor's praise alone: the cap is on the other in-neighbours", () => {
    // 1 is praised by anchor 0 only; 2 by non-anchor 1 only.
    const s = run(3, [[1, 0, 1000, DAY], [2, 1, 1000, DAY]], { previous: full(3) });
    expect(s.trusted[1]).toBe(1);
    expect(s.trusted[2]).toBe(0);
  });

  it("passes no trust through a reporter with c = 0", () => {
    const pairs: Pair[] = [[1, 0, 1000, DAY], [2, 0, 1000, DAY], [3, 1, 1000, DAY], [3, 2, 1000, DAY]];
    const previous = full(4);
    expect(run(4, pairs, { previous }).trusted[3]).toBe(1);
    previous[1] = 0;
    previous[2] = 0;
    expect(run(4, pairs, { previous }).trusted[3]).toBe(0);
  });

  it("counts deduplicated owner edges: one reporter praising many agents of one owner is one edge", () => {
    const owners = [0, 1, 2, 3, 3, 3];
    const pairs: Pair[] = [[3, 1, 1000, DAY], [4, 1, 1000, DAY], [5, 1, 1000, DAY], [3, 2, 1000, DAY]];
    const g = job.ownerGraph({ operators: 4, owners: Int32Array.from(owners), shards: [columns(pairs)] });
    expect(g.edges).toBe(2);
  });
});

describe("age and breadth", () => {
  it("are whole days since the first receipted report over 30, and distinct trusted owners over 3", () => {
    // Reporter 4 deals (receipted) with anchor 0's agent on DAY, and with owner 1's and 2's (trusted) later.
    const pairs: Pair[] = [[1, 0, 1000, DAY], [2, 0, 1000, DAY], [1, 2, 1000, DAY], [2, 1, 1000, DAY], [0, 4, 1000, DAY], [1, 4, 1000, DAY + 5], [3, 4, 1000, DAY + 5, false]];
    const s = run(5, pairs, { previous: full(5), day: DAY + 15 });
    expect(s.ageDays[4]).toBe(15);
    expect(s.factors.age[4]).toBe(0.5);
    expect(s.factors.breadth[4]).toBeCloseTo(2 / 3);
    expect(s.levels[4]).toBe(Math.round(0.5 * (2 / 3) * 20));
    expect(run(5, pairs, { previous: full(5), day: DAY + 30 }).factors.age[4]).toBe(1);
  });

  it("give anchors 1 each; their c is agreement × record", () => {
    const s = run(3, [[1, 0, 1000, DAY], [1, 2, 0, DAY]], { previous: full(3), anchors: [0] });
    expect(s.factors.age[0]).toBe(1);
    expect(s.factors.breadth[0]).toBe(1);
    expect(s.levels[0]).toBe(Math.round(20 * s.factors.agreement[0] * s.factors.record[0]));
  });
});

describe("agreement", () => {
  it("counts agreements only among the first 5 credible voters on an agent: praising a popular agent buys nothing", () => {
    // Agent of owner 1 praised by credible 2..8 in order of days; 8 is the 7th voter.
    const pairs: Pair[] = [];
    for (let r = 2; r <= 8; r++) pairs.push([1, r, 1000, DAY + r]);
    const s = run(9, pairs, { previous: full(9) });
    expect(s.factors.agreement[2]).toBe(1);
    const facts = job.emptyPassFacts(9);
    job.shardPass(columns(pairs), Int32Array.from({ length: 9 }, (_, i) => i), full(9), facts);
    expect([...facts.agree.slice(2)]).toEqual([1, 1, 1, 1, 1, 0, 0]);
  });

  it("counts every disagreement with the leave-one-out credible consensus, credible or not: (a + 1)/(a + d + 1)", () => {
    // A slanderer (9) fails three agents that credible 2, 3, 4 praise; it agrees on one where it was first.
    const pairs: Pair[] = [];
    for (const agent of [1, 5, 6]) {
      for (const r of [2, 3, 4]) pairs.push([agent, r, 1000, DAY]);
      pairs.push([agent, 9, 0, DAY + 1]);
    }
    pairs.push([7, 9, 1000, DAY - 5], [7, 2, 1000, DAY]);
    const previous = full(10);
    previous[9] = 0;
    const facts = job.emptyPassFacts(10);
    job.shardPass(columns(pairs), Int32Array.from({ length: 10 }, (_, i) => i), previous, facts);
    expect(facts.disagree[9]).toBe(3);
    // On agent 7 it has c = 0: not among the credible first voters, so its agreement there does not count.
    expect(facts.agree[9]).toBe(0);
    // In a run: pass 1 (from the previous snapshot) gives it 1/4, so c > 0 and, in pass 2, its first
    // vote on agent 7 counts as an agreement: (1 + 1)/(1 + 3 + 1).
    expect(run(10, pairs, { previous, anchors: [2, 3, 4] }).factors.agreement[9]).toBe(2 / 5);
  });
});

describe("record", () => {
  it("is clamp((S_own − 300)/200, 0, 1) over the operator's agents with credible mass ≥ 1, and 1 with none", () => {
    // Operator 1's agent: one credible failure and two partial votes: S = 500 + 500·(−1)/(3 + 2) = 400 → record 0.5.
    const pairs: Pair[] = [[1, 2, 0, DAY], [1, 3, 500, DAY], [1, 4, 500, DAY]];
    const previous = full(5);
    const facts = job.emptyPassFacts(5);
    job.shardPass(columns(pairs), Int32Array.from({ length: 5 }, (_, i) => i), previous, facts);
    expect(facts.massS[1] / facts.mass[1]).toBe(400);
    const s = run(5, pairs, { previous, anchors: [2, 3, 4] });
    expect(s.factors.record[1]).toBe(0.5);
    expect(s.factors.record[2]).toBe(1);
  });
});

describe("one run", () => {
  it("runs exactly two passes of agreement and record, each from the previous pass's c", () => {
    expect(MODEL_V4.credibility.passes).toBe(2);
    // Owner 1's agent is failed by 2 and 3 (c from the previous snapshot: 1) and praised by 4.
    // Pass 1: 1's record from c = 1; pass 2 from pass 1's c, where 2 and 3 have none (new, no breadth).
    const pairs: Pair[] = [[1, 2, 0, DAY], [1, 3, 0, DAY], [1, 4, 1000, DAY], [2, 0, 1000, DAY]];
    const previous = full(5);
    const s = run(5, pairs, { previous, day: DAY + 1 });
    // After two passes the failures carry no credibility: 1's agent has mass < 1 and its record is 1 again.
    expect(s.factors.record[1]).toBe(1);
    const one = job.emptyPassFacts(5);
    job.shardPass(columns(pairs), Int32Array.from({ length: 5 }, (_, i) => i), previous, one);
    expect(one.mass[1]).toBeGreaterThan(0);
  });

  it("gives the same snapshot from one shard or several (agents whole on a shard, merged per reporter)", () => {
    const pairs: Pair[] = [];
    for (let a = 1; a < 12; a++) for (let r = 0; r < 12; r++) if (r !== a && (a * 7 + r * 3) % 4 !== 0) pairs.push([a, r, (a + r) % 5 === 0 ? 0 : 1000, DAY + ((a + r) % 9)]);
    const one = daily(12, pairs, 40);
    let previous: Uint8Array | null = null;
    let three = run(12, pairs, { previous, day: DAY, shards: 3 });
    for (let d = 0; d < 40; d++) {
      three = run(12, pairs, { previous, day: DAY + d, shards: 3 });
      previous = three.levels;
    }
    expect([...three.levels]).toEqual([...one.levels]);
    expect([...one.levels].every((l) => Number.isInteger(l) && l >= 0 && l <= 20)).toBe(true);
    expect(one.levels.some((l) => l > 0 && l < 20)).toBe(true);
  });

  it("grows trust from the anchors one step a day, and nothing is trusted without an anchor", () => {
    const pairs: Pair[] = [[1, 0, 1000, DAY], [2, 0, 1000, DAY], [1, 2, 1000, DAY], [2, 1, 1000, DAY], [3, 1, 1000, DAY], [3, 2, 1000, DAY]];
    expect(daily(4, pairs, 60, { anchors: [] }).trusted.every((t) => t === 0)).toBe(true);
    const grown = daily(4, pairs, 60);
    expect([...grown.trusted]).toEqual([1, 1, 1, 1]);
  });
});
