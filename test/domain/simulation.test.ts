// The seeded simulation at a small size (npm run simulate runs the full one): every target of
// DESIGN's table, on the model's own functions, on the population docs/scoring.md describes
// (signals centred on the agent's success share).

import { beforeAll, describe, expect, it } from "vitest";
import { SMALL, auc, colluderAttack, median, randomFor, runSimulation, type Row, type SimulationResult } from "../../scripts/simulation";

let result: SimulationResult;
const row = (key: string): Row => {
  const found = result.rows.find((r) => r.key === key);
  if (!found) throw new Error(`no row ${key}`);
  return found;
};
const figures = (key: string) => row(key).figures;

beforeAll(() => {
  result = runSimulation({ seed: "trust-v2-test", size: SMALL });
}, 60_000);

describe("the seeded simulation (small)", () => {
  it("measures every row of DESIGN's table", () => {
    expect(result.rows.map((r) => r.key)).toEqual([
      "flips",
      "idle",
      "colluders-new",
      "colluders-caution",
      "competitor",
      "self-reports",
      "operator",
      "good",
      "bad",
      "auc",
    ]);
    expect(figures("flips").agents).toBeGreaterThan(300); // most bad and awful agents are in caution at 40 reports
  });

  it("a caution agent stays caution through 4 provider flips, its composite not higher", () => {
    expect(figures("flips").stayed).toBe(figures("flips").agents);
    expect(figures("flips").higher).toBe(0);
  });

  it("an idle caution agent stays in caution a median of at least 600 days, and every one at least 400", () => {
    expect(figures("idle").median).toBeGreaterThanOrEqual(600);
    expect(figures("idle").minimum).toBeGreaterThanOrEqual(400);
  });

  it("two colluding operators never make a new agent clear, at any volume", () => {
    expect(row("colluders-new").pass).toBe(true);
    expect(figures("colluders-new").highest).toBe(885); // 23/26: both at their caps
  });

  it("two colluders never make clear a caution agent with 6 honest reporters (40 reports)", () => {
    // At this size only a rate well above 1 in 50 would show; npm run simulate measures 1,000 agents.
    expect(figures("colluders-caution").agents).toBe(50);
    expect(figures("colluders-caution").clear).toBe(0);
  });

  it("two colluders joining at the first report that puts an agent in caution rarely make it clear: its reporters object", () => {
    // Not a target of DESIGN's table, but its sharpest case: without the objection rule all 50 are clear.
    // At full size 1 of 1,000 is (npm run simulate, the lines under the table).
    const r = colluderAttack({ seed: "trust-v2-test", size: SMALL }, "firstCaution", SMALL.colluderVictims);
    expect(r.victims).toBe(50);
    expect(r.clear).toBeLessThanOrEqual(1);
  });

  it("one competitor never puts a new agent, or a good agent with 100 reports, in caution", () => {
    expect(figures("competitor").newAgentCaution).toBe(0);
    expect(figures("competitor").caution).toBe(0);
  });

  it("the owner's 1,000 self-reports leave the composite at most 700 and never clear", () => {
    expect(figures("self-reports").highest).toBeLessThanOrEqual(700);
    expect(figures("self-reports").clear).toBe(0);
  });

  it("7 days of self-reports on 10 dummy agents move the operator score at most 10", () => {
    expect(figures("operator").moves).toBeLessThanOrEqual(10);
  });

  it("good agents are clear after a median of at most 18 reports, and ever in caution at most 0.5%", () => {
    expect(figures("good").medianReportsToClear).toBeLessThanOrEqual(18);
    expect(figures("good").everCautionShare).toBeLessThanOrEqual(0.005);
  });

  it("40%-success agents are in caution after 100 reports, at least 85%", () => {
    expect(figures("bad").cautionShare).toBeGreaterThanOrEqual(0.85);
  });

  it("AUC good vs bad is at least 0.99 at 10, 30 and 100 reports", () => {
    expect(figures("auc").at10).toBeGreaterThanOrEqual(0.99);
    expect(figures("auc").at30).toBeGreaterThanOrEqual(0.99);
    expect(figures("auc").at100).toBeGreaterThanOrEqual(0.99);
  });

  it("is seeded: the same seed gives the same table", () => {
    const again = runSimulation({ seed: "trust-v2-test", size: { ...SMALL, agentsPerProfile: 20, colluderVictims: 4, competitorVictims: 4, attackDays: 2 } });
    const twice = runSimulation({ seed: "trust-v2-test", size: { ...SMALL, agentsPerProfile: 20, colluderVictims: 4, competitorVictims: 4, attackDays: 2 } });
    expect(twice).toEqual(again);
  });
});

describe("the simulation's statistics", () => {
  it("AUC counts ties as half and orders by value", () => {
    expect(auc([3, 4], [1, 2])).toBe(1);
    expect(auc([1, 2], [3, 4])).toBe(0);
    expect(auc([2], [2])).toBe(0.5);
    expect(auc([1, 3], [2])).toBe(0.5);
  });

  it("median of odd and even counts", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([1, Infinity, Infinity])).toBe(Infinity);
  });

  it("random streams are seeded and uniform enough", () => {
    const a = randomFor("x", 1);
    const b = randomFor("x", 1);
    const draws = Array.from({ length: 10_000 }, () => a());
    expect(Array.from({ length: 10_000 }, () => b())).toEqual(draws);
    const mean = draws.reduce((s, v) => s + v, 0) / draws.length;
    expect(mean).toBeGreaterThan(0.49);
    expect(mean).toBeLessThan(0.51);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    expect(randomFor("x", 2)()).not.toBe(randomFor("x", 1)());
  });
});
