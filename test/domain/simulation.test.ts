// The seeded simulation of version 4 at the TEST size (npm run simulate runs the full one): every row
// of the targets table under both signal models, with the world's job; and the ring and competitor
// rows injected into a slice of Bitcoin OTC. Rows with a target are held to it; priced rows to what
// docs/scoring.md says they cost.

import { beforeAll, describe, expect, it } from "vitest";
import otcNetwork from "../../data/otc/network.csv?raw";
import otcLabels from "../../data/otc/labels.csv?raw";
import { parseLabels, parseNetwork } from "../../scripts/evaluation/parse";
import { TEST, auc, buildWorld, median, otcRows, quantile, randomFor, runSignal, verdict, type Row, type SignalResult } from "../../scripts/simulation/index";

const SEED = "trust-v4-test";
const results = {} as Record<"profile" | "outcome", SignalResult>;
let world: ReturnType<typeof buildWorld> | undefined;
const TIMEOUT_MS = 600_000;

const row = (signal: "profile" | "outcome", key: string): Row => {
  const found = results[signal].rows.find((r) => r.key === key);
  if (!found) throw new Error(`no row ${key}`);
  return found;
};

describe.each(["profile", "outcome"] as const)("the seeded simulation, signals centred on the %s", (signal) => {
  beforeAll(() => {
    world ??= buildWorld(SEED, TEST.world);
    results[signal] = runSignal({ seed: SEED, size: TEST, signal }, world);
  }, TIMEOUT_MS);

  it("measures every row of the targets table", () => {
    expect(results[signal].rows.map((r) => r.key)).toEqual([
      "good",
      "bad",
      "auc",
      "credible-30",
      "credible-100",
      "exit-scam",
      "slow-drip",
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
      "competitors-aged-two",
      "aged-sybils",
      "sybil-region",
      "slanderer",
      "operator",
      "operator-slandered",
      "operator-aged-friends",
      "whitewash",
    ]);
  });

  it("says pass only where the figures meet the target", () => {
    const good = row(signal, "good").cell;
    expect(good.pass).toBe(good.figures.medianReportsToClear <= 10 && good.figures.everCautionShare <= 0.05);
    expect(verdict([{ text: "", pass: true, figures: {} }, { text: "", pass: false, figures: {} }])).toBe("**miss**");
    expect(verdict([{ text: "", pass: null, figures: {} }])).toBe("");
  });

  it("rings, sybils and colluders without receipted dealings never make clear nor lift a caution", () => {
    expect(row(signal, "ring-new").cell.figures).toMatchObject({ clear: 0, lifted: 0 });
    expect(row(signal, "aged-sybils").cell.figures.clear).toBe(0);
    expect(row(signal, "aged-sybils").cell.figures.highestLevel).toBe(0);
    expect(row(signal, "colluders-new").cell.figures).toMatchObject({ clear: 0, worstExcess: 0 });
    expect(row(signal, "colluders-aged").cell.figures.clear).toBe(0);
  });

  it("a sybil region behind one honest edge is never trusted; a slanderer loses its credibility within 10 slanders", () => {
    expect(row(signal, "sybil-region").cell.figures).toEqual({ trusted: 0, highestLevel: 0 });
    expect(row(signal, "slanderer").cell.figures.slanders).toBeLessThanOrEqual(10);
  });

  it("the exit scam and the slow drip are caught", () => {
    expect(row(signal, "exit-scam").cell.figures.withdrawnMedian).toBeLessThanOrEqual(6);
    expect(row(signal, "exit-scam").cell.figures.cautionMedian).toBeLessThanOrEqual(10);
    expect(row(signal, "slow-drip").cell.figures.worst).toBeLessThanOrEqual(5);
  });

  it("version 3's rows keep their targets: flips, idleness, self-reports, the operator score, whitewashing", () => {
    for (const key of ["flips", "idle", "self-reports", "operator", "whitewash"]) expect([key, row(signal, key).cell.pass]).toEqual([key, true]);
  });
});

describe("the ring and competitor rows injected into Bitcoin OTC (its first 10,000 ratings)", () => {
  let rows: Row[] = [];
  beforeAll(() => {
    rows = otcRows(parseNetwork(otcNetwork).slice(0, 10_000), parseLabels(otcLabels), [2, 5, 10]).rows;
  }, TIMEOUT_MS);

  it("a ring of new accounts never clears a fraudster nor its own agent, nor lifts a caution", () => {
    const ring = rows.find((r) => r.key === "ring")!.cell.figures;
    expect(ring.runs).toBeGreaterThan(0);
    expect(ring).toMatchObject({ clear: 0, lifted: 0 });
  });

  it("one competitor, new or aged, puts at most its bound of benign users in caution", () => {
    const neu = rows.find((r) => r.key === "competitor-new")!.cell.figures;
    const aged = rows.find((r) => r.key === "competitor-aged")!.cell.figures;
    expect(neu.n).toBeGreaterThan(50);
    expect(neu.caused).toBeLessThanOrEqual(0.03 * neu.n);
    expect(aged.caused).toBeLessThanOrEqual(0.1 * aged.n);
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
