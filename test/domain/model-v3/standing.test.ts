// Version 3, R1's cross-agent facts: the rollup rows, standing (U, vouching, the per-owner cap and the
// concentration rule), the vouching budget, agreement, and the credibility sources (seeds, snapshot,
// the bootstrap latch).

import { describe, expect, it } from "vitest";
import {
  MODEL,
  addToRollup,
  bootstrapFloor,
  computeStanding,
  credibilityUpdate,
  seedSource,
  setBootstrapEnd,
  snapshotSource,
  startBootstrap,
  type RollupRow,
  type StandingSnapshot,
} from "../../../src/domain/model/index";
import { Agent, DAY, T0, good, standing } from "./helpers";

const D0 = Math.floor(T0 / DAY);

/** One row: `reporter` on `agent` of `owner` on day `day`, one receipted report, established, positive (or negative). */
function row(reporter: string, agent: string, owner: string, day: number, over: Partial<RollupRow> & { sign?: number } = {}): RollupRow {
  const x = (over.sign ?? 1) > 0 ? 1 : 0;
  const base = addToRollup(null, {
    reporter,
    agent,
    owner,
    at: day * DAY + 12 * 3_600_000,
    outcome: x ? "success" : "failure",
    signals: { reliability: 1000 * x },
    receipted: true,
    established: true,
  });
  return { ...base, ...over };
}

/** `reporter` deals with one agent of each owner on `days` consecutive days ending on `end`, beside `vouchers`. */
function dealings(reporter: string, owners: string[], days: number, end: number, vouchers: string[]): RollupRow[] {
  const rows: RollupRow[] = [];
  for (const o of owners) {
    for (let d = end - days + 1; d <= end; d++) {
      rows.push(row(reporter, `a${o}`, o, d));
      for (const v of vouchers) rows.push(row(v, `a${o}`, o, d));
    }
  }
  return rows;
}

const ANCHORS = ["100", "101"];
const run = (rows: RollupRow[], day: number, previous: StandingSnapshot | null = null, anchors = ANCHORS) => computeStanding(rows, { day, previous, anchors });

describe("rollup rows", () => {
  it("count the day's reports and receipts and sum 2x − 1 per observation", () => {
    let r = addToRollup(null, { reporter: "2", agent: "a", owner: "1", at: T0 + 1000, outcome: "success", signals: { reliability: 800 }, receipted: true, established: false });
    r = addToRollup(r, { reporter: "2", agent: "a", owner: "1", at: T0 + 2000, outcome: "failure", signals: {}, receipted: false, established: true });
    expect(r).toMatchObject({ day: D0, reports: 2, receipted: 1, established: true });
    expect(r.net.stability).toBe(0);
    expect(r.net.reliability).toBeCloseTo(0.6, 12);
    expect(r.receiptedNet.stability).toBe(1);
  });
});

describe("standing", () => {
  it("is min(1, U / 30): U counts distinct (other owner, UTC day) pairs on vouched agents, at most 10 per owner", () => {
    const s = run(dealings("2", ["o1", "o2", "o3"], 12, D0, ANCHORS), D0);
    expect(s.reporters["2"].standing).toBe(1);
    expect(s.reporters["2"].sources).toEqual(["o1", "o2", "o3"]);
    const two = run(dealings("2", ["o1", "o2"], 12, D0, ANCHORS), D0);
    expect(two.reporters["2"].standing).toBeCloseTo(20 / 30, 12);
  });

  it("counts only receipted rows made as an established reporter, in the last 180 days, never on its own agents", () => {
    const rows = dealings("2", ["o1"], 10, D0, ANCHORS);
    const unreceipted = rows.map((r) => (r.reporter === "2" ? { ...r, receipted: 0 } : r));
    expect(run(unreceipted, D0).reporters["2"].standing).toBe(0);
    const fresh = rows.map((r) => (r.reporter === "2" ? { ...r, established: false } : r));
    expect(run(fresh, D0).reporters["2"].standing).toBe(0);
    expect(run(rows, D0 + 185).reporters["2"]).toBeUndefined();
    expect(run(dealings("2", ["2"], 10, D0, ANCHORS), D0).reporters["2"]).toBeUndefined();
  });

  it("needs 2 vouchers on the agent: one is not enough", () => {
    expect(run(dealings("2", ["o1", "o2", "o3"], 12, D0, ["100"]), D0).reporters["2"].standing).toBe(0);
  });

  it("excludes the judged owner: c(r, o) uses the standing without o's pairs", () => {
    const s = run(dealings("2", ["o1", "o2", "o3", "o4"], 10, D0, ANCHORS), D0);
    expect(s.reporters["2"].standing).toBe(1);
    expect(s.reporters["2"].exclusions["o1"]).toBeUndefined(); // 30 pairs left: no lower
    expect(snapshotSource(s).credibility("2", "o1", true)).toBe(1);
    const three = run(dealings("2", ["o1", "o2", "o3"], 10, D0, ANCHORS), D0);
    expect(three.reporters["2"].exclusions["o1"]).toBeCloseTo(20 / 30, 12);
    expect(snapshotSource(three).credibility("2", "o1", true)).toBeCloseTo(20 / 30, 12);
    expect(snapshotSource(three).credibility("2", "o9", true)).toBe(1);
  });

  it("lets no ring vouch for itself: a voucher's standing must come from none of the owners its vouchee deals with", () => {
    // 2 and 3 earned standing from o1..o3; 4 deals with o2, o3, o4: they cannot vouch for it on o4's agent.
    const first = run([...dealings("2", ["o1", "o2", "o3"], 12, D0 - 1, ANCHORS), ...dealings("3", ["o1", "o2", "o3"], 12, D0 - 1, ANCHORS)], D0 - 1);
    const ring = [...dealings("4", ["o4"], 12, D0, ["2", "3"]), ...dealings("4", ["o2", "o3"], 12, D0, [])];
    expect(run(ring, D0, first, []).reporters["4"].standing).toBe(0);
    // The same vouchers vouch for a reporter that deals with other owners.
    const fair = [...dealings("5", ["o4", "o5", "o6"], 12, D0, ["2", "3"])];
    expect(run(fair, D0, first, []).reporters["5"].standing).toBe(1);
  });

  it("limits a voucher to 5 reporters new to standing in any 30 days", () => {
    // 2 and 3 hold standing from o1..o3 (vouched by the anchors) all along.
    const own = [...dealings("2", ["o1", "o2", "o3"], 45, D0 + 30, ANCHORS), ...dealings("3", ["o1", "o2", "o3"], 45, D0 + 30, ANCHORS)];
    const vouchers = run(own, D0 - 1);
    const newcomers = Array.from({ length: 7 }, (_, i) => String(10 + i));
    const dealt = (end: number) => newcomers.flatMap((r) => dealings(r, ["o4", "o5", "o6"], 12, end, [])).concat(dealings("2", ["o4", "o5", "o6"], 12, end, ["3"]));
    const s = run([...own, ...dealt(D0)], D0, vouchers);
    expect(newcomers.filter((r) => (s.reporters[r]?.standing ?? 0) > 0)).toHaveLength(5);
    expect(Object.keys(s.ledger["2"]).filter((r) => newcomers.includes(r))).toHaveLength(5);
    // 30 days later the vouchers admit the other two.
    const later = run([...own, ...dealt(D0 + 30)], D0 + 30, s);
    expect(newcomers.filter((r) => (later.reporters[r]?.standing ?? 0) > 0)).toHaveLength(7);
  });
});

describe("agreement", () => {
  /** r reports `sign` on agent g of owner o on day d; 3 credible others report positive over the next 30 days. */
  const vote = (r: string, g: string, d: number, sign: number) => [row(r, g, `o${g}`, d, { sign }), ...ANCHORS.flatMap((a) => [row(a, g, `o${g}`, d + 1), row(a, g, `o${g}`, d + 20)])];

  it("is min(1, 2E), E = (agree + 1) / (agree + disagree + 2), one vote per agent, judged 30 days after it", () => {
    const rows = [...vote("9", "g1", D0, 1), ...vote("9", "g2", D0, -1), ...vote("9", "g3", D0, -1), ...vote("9", "g4", D0 + 10, -1)];
    const s = run(rows, D0 + 30);
    expect(s.reporters["9"]).toMatchObject({ agree: 1, disagree: 2 });
    expect(s.reporters["9"].agreement).toBeCloseTo(2 * (2 / 5), 12);
    const later = run(rows, D0 + 40);
    expect(later.reporters["9"]).toMatchObject({ agree: 1, disagree: 3 });
    expect(later.reporters["9"].agreement).toBeCloseTo(2 * (2 / 6), 12);
  });

  it("judges an early reporter by the consensus 30 days later, not by the one it broke from", () => {
    // The others were positive before the vote and turn negative after it: the early reporter agrees.
    const rows = [row("9", "g", "og", D0, { sign: -1 }), row("100", "g", "og", D0 - 5), row("101", "g", "og", D0 - 5), row("100", "g", "og", D0 + 3, { sign: -1 }), row("101", "g", "og", D0 + 4, { sign: -1 })];
    expect(run(rows, D0 + 30).reporters["9"]).toMatchObject({ agree: 1, disagree: 0 });
  });

  it("multiplies c: max(seed, standing) × agreement", () => {
    const s = run(vote("9", "g1", D0, -1), D0 + 30);
    expect(snapshotSource(s).credibility("9", "o", true)).toBeCloseTo(MODEL.credibility.seed.verified * s.reporters["9"].agreement, 12);
  });
});

describe("the credibility sources", () => {
  it("seeds: 0.25 for a verified operator, 0.1 for an unverified one", () => {
    expect(seedSource.credibility("2", "1", true)).toBe(0.25);
    expect(seedSource.credibility("2", "1", false)).toBe(0.1);
  });

  it("give the object the values that differ from those in force, for its reporters and the one about to report", () => {
    const a = new Agent().credibility(T0, { "2": 1 }).report(good("2", T0)).report(good("3", T0));
    const s = run(dealings("3", ["o1", "o2", "o3"], 12, D0, ANCHORS), D0);
    const entry = credibilityUpdate(a.state, snapshotSource(s), "1", T0 + DAY, { reporter: "7", verified: false });
    expect(entry).toEqual({ at: T0 + DAY, values: { "2": 0.25, "3": 1 }, bootstrap: false });
    expect(credibilityUpdate(a.state, { credibility: (r) => (r === "2" ? 1 : 0.25), bootstrap: false }, "1", T0 + DAY)).toBeNull();
  });

  it("the bootstrap latch: a floor for verified operators, 1 below 30% earned share, 0 at 70%, closed for good at the end date or at 70%", () => {
    const latch = startBootstrap(T0);
    expect(latch.endsAt).toBe(T0 + 180 * DAY);
    expect(bootstrapFloor(latch, T0, 0.2).floor).toBe(1);
    expect(bootstrapFloor(latch, T0, 0.5).floor).toBeCloseTo(0.5, 12);
    const reached = bootstrapFloor(latch, T0 + DAY, 0.7);
    expect(reached.floor).toBe(0);
    expect(bootstrapFloor(reached.latch, T0 + 2 * DAY, 0.1).floor).toBe(0); // one-way
    expect(bootstrapFloor(latch, T0 + 180 * DAY, 0).floor).toBe(0);
    expect(() => setBootstrapEnd(latch, T0 + 181 * DAY, T0)).toThrow(RangeError);
    expect(setBootstrapEnd(latch, T0 + 10 * DAY, T0).endsAt).toBe(T0 + 10 * DAY);
  });

  it("floor standing raises c of verified operators only, and never enters the snapshot (it never vouches)", () => {
    const s = run([], D0);
    const source = snapshotSource(s, 0.6);
    expect(source.bootstrap).toBe(true);
    expect(source.credibility("2", "1", true)).toBe(0.6);
    expect(source.credibility("2", "1", false)).toBe(0.1);
    expect(s.reporters["2"]).toBeUndefined();
    const a = new Agent().credibility(T0, standing(["2"]));
    expect(credibilityUpdate(a.state, source, "1", T0)?.bootstrap).toBe(true);
  });
});
