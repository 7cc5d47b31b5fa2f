// The seeded simulation at the TEST size (npm run simulate runs the full one): every row of the targets
// table under both signal models, on version 3's own functions, with the world's standing job. Rows
// whose target version 3 misses (docs/scoring.md, "Known gaps") are held to what was measured, so a
// regression shows; the rest are held to their targets.

import { beforeAll, describe, expect, it } from "vitest";
import { TEST, auc, buildWorld, median, quantile, randomFor, runSignal, type Row, type SignalResult } from "../../scripts/simulation/index";

const SEED = "trust-v3-test";
const results = {} as Record<"profile" | "outcome", SignalResult>;
let world: ReturnType<typeof buildWorld> | undefined;

/**
 * One signal model's run, in the hook of its own tests. A hook past its timeout skips every test
 * under it (all 21 did, with both runs in one file-wide hook of 120 s, on a loaded machine): each run
 * has its own hook, with room for the full suite running beside it, and the statistics tests need none.
 */
const SIMULATION_TIMEOUT_MS = 600_000;
function runFor(signal: "profile" | "outcome"): void {
  world ??= buildWorld(SEED, TEST.world);
  results[signal] = runSignal({ seed: SEED, size: TEST, signal, withV2: false }, world);
}

const row = (signal: "profile" | "outcome", key: string): Row => {
  const found = results[signal].rows.find((r) => r.key === key);
  if (!found) throw new Error(`no row ${key}`);
  return found;
};

/** Rows whose target is missed by design (docs/scoring.md, "Known gaps"). */
const KNOWN_GAPS = ["seeds", "slanderer", "operator"];

describe.each(["profile", "outcome"] as const)("the seeded simulation, signals centred on the %s", (signal) => {
  beforeAll(() => runFor(signal), SIMULATION_TIMEOUT_MS);

  it("measures every row of the targets table", () => {
    expect(results[signal].rows.map((r) => r.key)).toEqual([
      "good",
      "bad",
      "auc",
      "standing-30",
      "standing-100",
      "exit-scam",
      "flips",
      "idle",
      "self-reports",
      "ring-new",
      "ring-aged",
      "colluders-new",
      "colluders-aged",
      "colluders-aged-more",
      "competitor-new",
      "competitor-aged",
      "competitors-new",
      "competitors-aged-later",
      "seeds",
      "slanderer",
      "operator",
      "operator-slandered",
      "operator-aged-friends",
      "whitewash",
    ]);
  });

  it("meets every target but the known gaps", () => {
    const missed = results[signal].rows.filter((r) => r.v3.pass === false).map((r) => r.key);
    expect(missed.filter((k) => !KNOWN_GAPS.includes(k))).toEqual([]);
  });

  it("good agents: clear after a median ≤ 20 reports, clear at 100 ≥ 80%, ever caution ≤ 0.5%", () => {
    const f = row(signal, "good").v3.figures;
    expect(f.medianReportsToClear).toBeLessThanOrEqual(20);
    expect(f.clearAt100).toBeGreaterThanOrEqual(0.8);
    expect(f.everCautionShare).toBeLessThanOrEqual(0.005);
  });

  it("exit scam: clear withdrawn after a median ≤ 10 failed transactions (p90 ≤ 20), caution ≤ 25 (p90 ≤ 40)", () => {
    const f = row(signal, "exit-scam").v3.figures;
    expect(f.withdrawnMedian).toBeLessThanOrEqual(10);
    expect(f.withdrawnP90).toBeLessThanOrEqual(20);
    expect(f.cautionMedian).toBeLessThanOrEqual(25);
    expect(f.cautionP90).toBeLessThanOrEqual(40);
  });

  it("a caution agent stays caution through 4 provider flips, and idle for at least 365 days (median ≥ 600)", () => {
    expect(row(signal, "flips").v3.figures.higher).toBe(0);
    expect(row(signal, "flips").v3.figures.stayed).toBe(row(signal, "flips").v3.figures.agents);
    expect(row(signal, "idle").v3.figures.minimum).toBeGreaterThanOrEqual(365);
    expect(row(signal, "idle").v3.figures.median).toBeGreaterThanOrEqual(600);
  });

  it("rings and colluders of new accounts never make clear; aged colluders do nothing within 30 days", () => {
    expect(row(signal, "ring-new").v3.figures.clear).toBe(0);
    for (const key of ["colluders-new", "colluders-aged"]) {
      expect(row(signal, key).v3.figures.clear).toBe(0);
      expect(row(signal, key).v3.figures.worstExcess).toBeLessThanOrEqual(0.02);
    }
  });

  it("one competitor, or two new-account competitors, put at most 6% of good agents in caution (the small run's bound)", () => {
    for (const key of ["competitor-new", "competitor-aged", "competitors-new"]) {
      const f = row(signal, key).v3.figures;
      expect(f.n).toBe(TEST.competitorVictims);
      expect(f.caution).toBeLessThanOrEqual(0.06 * f.n);
    }
  });

  it("whitewashing: the new SID starts in caution, by configuration or by key; a healthy fleet is untouched", () => {
    const f = row(signal, "whitewash").v3.figures;
    expect(f.n).toBeGreaterThan(0);
    expect(f.byConfig).toBe(f.n);
    expect(f.byKey).toBe(f.n);
    expect(f.fleetSources).toBe(0);
  });

  it("the known gaps stay where docs/scoring.md puts them", () => {
    // 3 aged seeds mint standing at the vouching budget's pace (5 new reporters per voucher per 30 days).
    expect(row(signal, "seeds").v3.figures.gained).toBeLessThanOrEqual(17);
    // A slanderer holding 3 agreeing votes falls below 0.5 after 3 × 3 + 3 = 12 slandered agents.
    expect(row(signal, "slanderer").v3.figures.agentsUntilBelow).toBe(12);
    expect(row(signal, "slanderer").v3.figures.minEarlyC).toBeGreaterThanOrEqual(0.9);
    // New accounts move an operator score only from 8 on (R_c ≥ 2 at c = 0.25), as 2 aged friends do.
    const op = row(signal, "operator").v3.figures;
    expect([op.k1, op.k2, op.k4, op.k7, op.competitor]).toEqual([0, 0, 0, 0, 0]);
  });
});

describe("the simulation's statistics", () => {
  it("AUC counts ties as half and orders by value", () => {
    expect(auc([3, 4], [1, 2])).toBe(1);
    expect(auc([1, 2], [3, 4])).toBe(0);
    expect(auc([2], [2])).toBe(0.5);
    expect(auc([1, 3], [2])).toBe(0.5);
  });

  it("median and quantiles interpolate, and keep Infinity", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([1, Infinity, Infinity])).toBe(Infinity);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 0.9)).toBe(10);
  });

  it("random streams are seeded and uniform enough", () => {
    const a = randomFor("x", 1);
    const b = randomFor("x", 1);
    const draws = Array.from({ length: 10_000 }, () => a());
    expect(Array.from({ length: 10_000 }, () => b())).toEqual(draws);
    const mean = draws.reduce((s, v) => s + v, 0) / draws.length;
    expect(mean).toBeGreaterThan(0.49);
    expect(mean).toBeLessThan(0.51);
    expect(randomFor("x", 2)()).not.toBe(randomFor("x", 1)());
  });
});
