import { describe, expect, it } from "vitest";
import {
  CHANGE_TYPES,
  DIMENSIONS,
  MODEL,
  OUTCOMES,
  applyConfigChange,
  applyReport,
  baseFor,
  corroborationNeeded,
  damping,
  emptyEvidence,
  evidenceFactor,
  forgetTo,
  independentContribution,
  independentReporters,
  negativeReporters,
  objectingReporters,
  operatorScore,
  operatorScoreFromSums,
  penaltyAt,
  replay,
  scoreOf,
  type AgentEvidence,
  type ChangeType,
  type Dimension,
  type HistoryEvent,
  type Outcome,
  type Pair,
  type ReportInput,
  type ScoreView,
  type SignalDimension,
} from "../../src/domain/model-v2";
import { randomFor, type Random } from "../../scripts/simulation";

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const OWNER = 1;

const allSignals = (v: number): Record<SignalDimension, number> => ({ reliability: v, quality: v, financial: v, security: v });

function report(reporter: number, at: number, over: Partial<ReportInput> = {}): ReportInput {
  return { reporter, at, outcome: "success", signals: allSignals(1000), base: 1, evidence: 1, penalty: 1, ...over };
}

const reportEvent = (reporter: number, at: number, over: Partial<ReportInput> = {}): HistoryEvent => ({ kind: "report", ...report(reporter, at, over) });

/** Reports in order, k counted as the service does. */
const fold = (inputs: ReportInput[], ownerId: number | null = OWNER) =>
  replay(
    inputs.map((r) => ({ kind: "report" as const, ...r })),
    ownerId,
    T0,
  );

const ctx = (over: Partial<{ now: number; ownerId: number | null; identityLevel: number; operatorScore: number }> = {}) => ({
  now: T0,
  ownerId: OWNER,
  identityLevel: 1,
  operatorScore: 500,
  ...over,
});

type Dims = Partial<Record<Dimension, [a: number, b: number]>>;

/** Evidence built directly: reporter id → its pairs above the prior (missing dimensions 0). */
function evidence(reporters: Record<number, Dims>, over: Partial<AgentEvidence> = {}, lastAt = T0): AgentEvidence {
  const state = emptyEvidence(T0);
  for (const [id, dims] of Object.entries(reporters)) {
    state.reporters[id] = {
      dims: Object.fromEntries(DIMENSIONS.map((d) => [d, { a: dims[d]?.[0] ?? 0, b: dims[d]?.[1] ?? 0 }])) as Record<Dimension, Pair>,
      lastAt,
    };
  }
  return { ...state, ...over };
}

const pair = (s: AgentEvidence, reporter: number, d: Dimension) => s.reporters[String(reporter)].dims[d];

/** Every number in two values identical (Object.is), with the same keys. */
function expectBitIdentical(x: unknown, y: unknown): void {
  expect(JSON.stringify(x)).toBe(JSON.stringify(y));
  const walk = (p: unknown, q: unknown): void => {
    if (typeof p === "number") {
      expect(Object.is(p, q)).toBe(true);
      return;
    }
    if (p && typeof p === "object") {
      expect(Object.keys(p)).toEqual(Object.keys(q as object));
      for (const k of Object.keys(p)) walk((p as Record<string, unknown>)[k], (q as Record<string, unknown>)[k]);
      return;
    }
    expect(p).toBe(q);
  };
  walk(x, y);
}

describe("constants", () => {
  it("are the product's (DESIGN section 4)", () => {
    expect(MODEL.prior).toBe(3);
    expect(MODEL.outcomeValue).toEqual({ success: 1, partial: 0.5, timeout: 0.25, error: 0.1, failure: 0 });
    expect(MODEL.reporterBase).toEqual({ verified: 1, unverified: 0.75, owner: 0.25 });
    expect(MODEL.receiptFactor).toBe(1.5);
    expect(MODEL.cap).toEqual({ reporter: 10, owner: 2.5 });
    expect(MODEL.halfLifeMs).toEqual({ good: 90 * DAY, bad: 365 * DAY });
    expect(MODEL.dampingWindowMs).toBe(DAY);
    expect(MODEL.compositeWeights).toEqual({ reliability: 0.3, quality: 0.25, security: 0.2, financial: 0.15, stability: 0.1 });
    expect(MODEL.confidence.high).toEqual({ evidence: 100, reporters: 5 });
    expect(MODEL.confidence.medium).toEqual({ evidence: 20, reporters: 2 });
    expect(MODEL.recommendation).toMatchObject({
      cautionBelowComposite: 400,
      cautionBelowDimension: 350,
      midpointFromEvidence: 20,
      clearFromComposite: 700,
      clearMinDimension: 450,
      clearMinReporters: 3,
    });
    expect(MODEL.recommendation.corroboration).toEqual({
      minReporters: 2,
      reporterShareDivisor: 3,
      dimensions: ["reliability", "security", "stability"],
      minEvidence: 0.5,
    });
    expect(MODEL.changeKept).toEqual({
      provider_change: { all: 0.3 },
      model_swap: { all: 0.5 },
      prompt_change: { all: 0.75 },
      tools_change: { all: 0.8, security: 0.6 },
      memory_change: { all: 0.9 },
    });
    expect(MODEL.penalty).toEqual({ withdrawals: 3, windowMs: 90 * DAY, durationMs: 90 * DAY, factor: 0.5 });
    expect(MODEL.operatorPriorWeight).toBe(50);
    expect(MODEL.independentReporterWindowMs).toBe(90 * DAY);
  });
});

describe("a new agent", () => {
  it("is 500 everywhere, low confidence, review", () => {
    const view = scoreOf(emptyEvidence(T0), ctx({ identityLevel: 0 }));
    expect(view).toEqual({
      composite: 500,
      dimensions: { reliability: 500, quality: 500, financial: 500, security: 500, stability: 500 },
      confidence: "low",
      recommendation: "review",
      evidence: 0,
      independentReporters: 0,
      reasons: ["FEW_INDEPENDENT_REPORTERS", "INSUFFICIENT_EVIDENCE", "IDENTITY_UNVERIFIED"],
    });
  });

  it("survives a JSON round trip (the stored form)", () => {
    const s = fold([report(2, T0), report(3, T0 + HOUR, { outcome: "partial", signals: { quality: 420 } })]);
    expectBitIdentical(JSON.parse(JSON.stringify(s)), s);
    expect(scoreOf(JSON.parse(JSON.stringify(s)), ctx({ now: T0 + DAY }))).toEqual(scoreOf(s, ctx({ now: T0 + DAY })));
  });
});

describe("report weight", () => {
  it("base by who reports; receipts 1.5; damping 1/√(1+k)", () => {
    expect(baseFor({ isOwner: false, verified: true })).toBe(1);
    expect(baseFor({ isOwner: false, verified: false })).toBe(0.75);
    expect(baseFor({ isOwner: true, verified: true })).toBe(0.25);
    expect(evidenceFactor(true)).toBe(1.5);
    expect(evidenceFactor(false)).toBe(1);
    expect(damping(0)).toBe(1);
    expect(damping(1)).toBeCloseTo(Math.SQRT1_2, 15);
    expect(damping(3)).toBe(0.5);
    expect(damping(-2)).toBe(1);
  });

  it("is base × damping × evidence × penalty", () => {
    const { weight } = applyReport(emptyEvidence(T0), report(2, T0, { base: 0.75, evidence: 1.5, penalty: 0.5 }), OWNER, 3);
    expect(weight).toBe(0.75 * 0.5 * 1.5 * 0.5);
  });

  it("uses the owner base for the agent's owner, whatever base the report carries", () => {
    expect(applyReport(emptyEvidence(T0), report(OWNER, T0, { base: 1 }), OWNER, 0).weight).toBe(0.25);
    expect(applyReport(emptyEvidence(T0), report(OWNER, T0, { base: 1 }), null, 0).weight).toBe(1);
  });

  it("refuses what would store NaN", () => {
    const s = emptyEvidence(T0);
    expect(() => applyReport(s, report(2, T0, { outcome: "maybe" as Outcome }), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report(2, T0, { outcome: "toString" as Outcome }), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report(2, T0, { base: NaN }), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report(2, T0, { base: -1 }), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report(2, T0, { evidence: 0 }), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report(2, T0, { penalty: 2 }), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report(2, NaN), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report(2.5, T0), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report(2, T0), OWNER, NaN)).toThrow(RangeError);
    expect(() => forgetTo(s, NaN)).toThrow(RangeError);
    expect(() => scoreOf(s, ctx({ now: Infinity }))).toThrow(RangeError);
  });
});

describe("what a report observes", () => {
  it("adds w·x and w·(1 − x) to the reporter's own pair, starting at 0", () => {
    const { state } = applyReport(emptyEvidence(T0), report(2, T0, { signals: { reliability: 800 }, base: 0.75 }), OWNER, 1);
    const w = 0.75 / Math.SQRT2;
    expect(pair(state, 2, "reliability").a).toBeCloseTo(w * 0.8, 15);
    expect(pair(state, 2, "reliability").b).toBeCloseTo(w * 0.2, 15);
    expect(pair(state, 2, "stability")).toEqual({ a: w, b: 0 });
    expect(pair(state, 2, "quality")).toEqual({ a: 0, b: 0 });
  });

  it("observes the outcome on stability with the outcome map, and nothing else moves", () => {
    for (const outcome of OUTCOMES) {
      const { state } = applyReport(emptyEvidence(T0), report(2, T0, { outcome, signals: {} }), OWNER, 0);
      const x = MODEL.outcomeValue[outcome];
      expect(pair(state, 2, "stability")).toEqual({ a: x, b: 1 - x });
      for (const d of ["reliability", "quality", "financial", "security"] as const) expect(pair(state, 2, d)).toEqual({ a: 0, b: 0 });
    }
  });

  it("clamps a signal to 0..1000 and skips one that is not a finite number", () => {
    const signals = { reliability: 1500, quality: -3, financial: NaN, security: "9" as unknown as number };
    const { state } = applyReport(emptyEvidence(T0), report(2, T0, { signals }), OWNER, 0);
    expect(pair(state, 2, "reliability")).toEqual({ a: 1, b: 0 });
    expect(pair(state, 2, "quality")).toEqual({ a: 0, b: 1 });
    expect(pair(state, 2, "financial")).toEqual({ a: 0, b: 0 });
    expect(pair(state, 2, "security")).toEqual({ a: 0, b: 0 });
  });

  it("never changes the state it is given", () => {
    const s = fold([report(2, T0)]);
    const copy = JSON.parse(JSON.stringify(s));
    applyReport(s, report(2, T0 + 30 * DAY), OWNER, 0);
    applyConfigChange(s, ["provider_change"], T0 + DAY);
    scoreOf(s, ctx({ now: T0 + 400 * DAY }));
    independentContribution(s, OWNER, T0 + 400 * DAY);
    expect(s).toEqual(copy);
  });
});

describe("the cap", () => {
  const flood = (reporter: number, n: number, over: Partial<ReportInput> = {}) =>
    Array.from({ length: n }, (_, i) => report(reporter, T0 + i * 60_000, over));

  it("holds one reporter at C = 10 per dimension: 13/16 (813) alone, however many reports", () => {
    const s = fold(flood(2, 1000));
    for (const d of DIMENSIONS) expect(pair(s, 2, d)).toEqual({ a: 10, b: 0 });
    const view = scoreOf(s, ctx({ now: s.at }));
    expect(view.composite).toBe(813);
    expect(view.dimensions.reliability).toBe(813);
  });

  it("beyond the cap, volume changes nothing: 1,000 reports weigh what 40 do", () => {
    const forty = fold(flood(2, 40)); // Σ 1/√(1+k) over 40 reports ≈ 11.2: past the cap
    const thousand = fold(flood(2, 1000));
    for (const d of DIMENSIONS) {
      expect(pair(forty, 2, d)).toEqual({ a: 10, b: 0 });
      expect(pair(thousand, 2, d)).toEqual({ a: 10, b: 0 });
    }
  });

  it("is 2.5 for the owner: 5.5/8.5 (647)", () => {
    const s = fold(flood(OWNER, 1000, { evidence: 1.5 }));
    expect(pair(s, OWNER, "security")).toEqual({ a: 2.5, b: 0 });
    expect(scoreOf(s, ctx({ now: s.at })).composite).toBe(647);
  });

  it("is halved with the penalty (5, owner 1.25)", () => {
    expect(pair(fold(flood(2, 100, { penalty: 0.5 })), 2, "quality")).toEqual({ a: 5, b: 0 });
    expect(pair(fold(flood(OWNER, 100, { penalty: 0.5 })), OWNER, "quality")).toEqual({ a: 1.25, b: 0 });
    expect(pair(fold(flood(2, 100)), 2, "quality")).toEqual({ a: 10, b: 0 });
  });

  it("scales the pair down keeping its proportions", () => {
    const s = evidence({ 2: { reliability: [6, 6] } });
    const after = applyReport(s, report(2, T0, { signals: { reliability: 1000 } }), OWNER, 0).state;
    expect(pair(after, 2, "reliability").a).toBeCloseTo(70 / 13, 12); // (7, 6) scaled to sum 10
    expect(pair(after, 2, "reliability").b).toBeCloseTo(60 / 13, 12);
  });

  it("applies to all the reporter's pairs when it reports, so a penalised report cuts its standing evidence too", () => {
    const before = fold(flood(2, 30));
    expect(pair(before, 2, "security").a).toBeGreaterThan(9); // Σ 1/√(1+k) over 30 reports ≈ 9.5
    const after = applyReport(before, report(2, before.at + 60_000, { signals: {}, penalty: 0.5 }), OWNER, 30).state;
    expect(pair(after, 2, "security")).toEqual({ a: 5, b: 0 });
  });

  it("two reporters at their caps: 23/26 (885)", () => {
    const s = fold([...flood(2, 50), ...flood(3, 50).map((r) => ({ ...r, at: r.at + 30_000 }))].sort((x, y) => x.at - y.at));
    expect(scoreOf(s, ctx({ now: s.at })).dimensions.reliability).toBe(885);
  });
});

describe("forgetting", () => {
  it("halves a dimension with α ≥ β every 90 days, and one with α < β every 365 days", () => {
    const s = evidence({ 2: { reliability: [6, 2], stability: [1, 5], quality: [2, 2] } });
    const after90 = forgetTo(s, T0 + 90 * DAY);
    expect(pair(after90, 2, "reliability").a).toBeCloseTo(3, 12);
    expect(pair(after90, 2, "reliability").b).toBeCloseTo(1, 12);
    expect(pair(after90, 2, "quality").a).toBeCloseTo(1, 12); // α = β counts as good
    expect(pair(after90, 2, "stability").b).toBeCloseTo(5 * 2 ** (-90 / 365), 12);
    const after365 = forgetTo(s, T0 + 365 * DAY);
    expect(pair(after365, 2, "stability").a).toBeCloseTo(0.5, 12);
    expect(pair(after365, 2, "stability").b).toBeCloseTo(2.5, 12);
    expect(after365.at).toBe(T0 + 365 * DAY);
  });

  it("takes the sign of the dimension, not of the reporter: every share scales by the same factor", () => {
    // Reporter 2 is negative on reliability, but the dimension is positive: both halve in 90 days.
    const s = forgetTo(evidence({ 2: { reliability: [1, 3] }, 3: { reliability: [8, 0] } }), T0 + 90 * DAY);
    expect(pair(s, 2, "reliability").a).toBeCloseTo(0.5, 12);
    expect(pair(s, 2, "reliability").b).toBeCloseTo(1.5, 12);
    expect(pair(s, 3, "reliability").a).toBeCloseTo(4, 12);
  });

  it("never crosses 500 and only moves toward it (random states and times)", () => {
    const random = randomFor("forgetting");
    for (let i = 0; i < 300; i++) {
      const reporters: Record<number, Dims> = {};
      for (let r = 2; r < 2 + 1 + Math.floor(random() * 5); r++) {
        reporters[r] = Object.fromEntries(DIMENSIONS.map((d) => [d, [random() * 10, random() * 10]])) as Dims;
      }
      const s = evidence(reporters);
      const before = scoreOf(s, ctx()).dimensions;
      const after = scoreOf(s, ctx({ now: T0 + random() * 3000 * DAY })).dimensions;
      for (const d of DIMENSIONS) {
        expect(Math.abs(after[d] - 500)).toBeLessThanOrEqual(Math.abs(before[d] - 500));
        expect((after[d] - 500) * (before[d] - 500)).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("keeps a bad record four times as long as a good one", () => {
    const good = evidence({ 2: { reliability: [20, 0] }, 3: { reliability: [20, 0] } });
    const bad = evidence({ 2: { reliability: [0, 20] }, 3: { reliability: [0, 20] } });
    const year = (s: AgentEvidence) => scoreOf(s, ctx({ now: T0 + 365 * DAY })).dimensions.reliability;
    const kept = 2 ** (-365 / 90);
    expect(year(good)).toBe(Math.round((1000 * (3 + 40 * kept)) / (6 + 40 * kept)));
    expect(Math.abs(year(good) - 500)).toBeLessThan(Math.abs(year(bad) - 500) / 2);
    expect(year(bad)).toBe(Math.round((1000 * 3) / (6 + 20)));
  });

  it("never runs backwards", () => {
    const s = evidence({ 2: { reliability: [6, 2] } }, { at: T0 + DAY });
    const same = forgetTo(s, T0);
    expect(same.at).toBe(T0 + DAY);
    expect(pair(same, 2, "reliability")).toEqual({ a: 6, b: 2 });
  });

  it("drops a reporter whose evidence has faded away once it is outside the R window", () => {
    const s = evidence({ 2: { reliability: [1e-7, 0] }, 3: { reliability: [5, 0] } });
    expect(Object.keys(forgetTo(s, T0 + 89 * DAY).reporters)).toEqual(["2", "3"]);
    expect(Object.keys(forgetTo(s, T0 + 91 * DAY).reporters)).toEqual(["3"]);
    const faded = forgetTo(evidence({ 2: { reliability: [5, 0] } }), T0 + 20 * 365 * DAY);
    expect(Object.keys(faded.reporters)).toEqual([]);
    expect(scoreOf(faded, ctx({ now: faded.at })).evidence).toBe(0);
  });
});

describe("configuration changes", () => {
  const mixed = () =>
    evidence({
      2: { reliability: [6, 2], security: [1, 5], stability: [2, 2] },
      3: { reliability: [1, 3], security: [4, 4] },
    });

  it("decay every reporter's share only on dimensions above 500", () => {
    const s = applyConfigChange(mixed(), ["model_swap"], T0);
    // reliability α = 10, β = 8: above 500, every share halves (reporter 3 is negative there, halved too)
    expect(pair(s, 2, "reliability")).toEqual({ a: 3, b: 1 });
    expect(pair(s, 3, "reliability")).toEqual({ a: 0.5, b: 1.5 });
    // security (α < β) and stability (α = β) keep their evidence exactly
    expect(pair(s, 2, "security")).toEqual({ a: 1, b: 5 });
    expect(pair(s, 3, "security")).toEqual({ a: 4, b: 4 });
    expect(pair(s, 2, "stability")).toEqual({ a: 2, b: 2 });
    expect(s.lastConfigChangeAt).toBe(T0);
  });

  it("multiply several changes' fractions; tools keep 60% of security", () => {
    const s = evidence({ 2: { reliability: [8, 0], security: [8, 0] } });
    const both = applyConfigChange(s, ["provider_change", "prompt_change", "tools_change", "memory_change"], T0);
    expect(pair(both, 2, "reliability").a).toBeCloseTo(8 * 0.3 * 0.75 * 0.8 * 0.9, 12);
    expect(pair(both, 2, "security").a).toBeCloseTo(8 * 0.3 * 0.75 * 0.6 * 0.9, 12);
    const twice = applyConfigChange(s, ["tools_change", "tools_change"], T0);
    expect(pair(twice, 2, "reliability").a).toBeCloseTo(8 * 0.8, 12);
  });

  it("never raise a score, and move good scores toward 500 (random states, every change)", () => {
    const random = randomFor("config");
    for (let i = 0; i < 200; i++) {
      const reporters: Record<number, Dims> = {};
      for (let r = 2; r < 5; r++) reporters[r] = Object.fromEntries(DIMENSIONS.map((d) => [d, [random() * 10, random() * 10]])) as Dims;
      const s = evidence(reporters);
      const changes = CHANGE_TYPES.filter(() => random() < 0.5);
      const before = scoreOf(s, ctx());
      const after = scoreOf(applyConfigChange(s, changes, T0), ctx());
      expect(after.composite).toBeLessThanOrEqual(before.composite);
      for (const d of DIMENSIONS) {
        expect(after.dimensions[d]).toBeLessThanOrEqual(before.dimensions[d]);
        expect(after.dimensions[d]).toBeGreaterThanOrEqual(Math.min(500, before.dimensions[d]));
      }
    }
  });

  it("with no change, forget to now and nothing else", () => {
    const s = applyConfigChange(mixed(), [], T0 + 90 * DAY);
    expect(s.lastConfigChangeAt).toBeNull();
    expectBitIdentical(s, forgetTo(mixed(), T0 + 90 * DAY));
  });

  it("refuse an unknown change", () => {
    expect(() => applyConfigChange(mixed(), ["haircut" as ChangeType], T0)).toThrow(RangeError);
  });
});

describe("independent reporters (R) and corroboration", () => {
  it("R counts non-owner reporters whose last report is at most 90 days old", () => {
    const s = fold([report(2, T0), report(3, T0 + DAY), report(OWNER, T0 + DAY)]);
    expect(independentReporters(s, OWNER, T0 + 90 * DAY)).toBe(2);
    expect(independentReporters(s, OWNER, T0 + 90 * DAY + 1)).toBe(1);
    expect(independentReporters(s, null, T0 + DAY)).toBe(3);
  });

  it("needs max(2, ⌈R/3⌉) negative reporters", () => {
    expect([0, 1, 2, 3, 6, 7, 9, 10].map(corroborationNeeded)).toEqual([2, 2, 2, 2, 2, 3, 3, 4]);
  });

  it("one negative reporter cannot make caution, however bad it says the agent is", () => {
    const flood = Array.from({ length: 200 }, (_, i) => report(9, T0 + i * HOUR, { outcome: "failure", signals: allSignals(0), evidence: 1.5 }));
    const s = fold(flood);
    const view = scoreOf(s, ctx({ now: s.at }));
    expect(view.composite).toBe(188); // 3/16: held at its cap
    expect(view.recommendation).toBe("review");
    // a second, independent one corroborates it
    const two = fold([...flood, report(8, flood[199].at + 1, { outcome: "failure", signals: allSignals(0) })]);
    expect(scoreOf(two, ctx({ now: two.at })).recommendation).toBe("caution");
  });

  it("with R = 7, two negative reporters are not enough; three are", () => {
    const positive: Dims = { quality: [3, 0] };
    const negative: Dims = { reliability: [0, 10] };
    const reporters = (bad: number) => Object.fromEntries(Array.from({ length: 7 }, (_, i) => [i + 2, i < bad ? negative : positive]));
    expect(scoreOf(evidence(reporters(2)), ctx()).dimensions.reliability).toBeLessThan(350);
    expect(scoreOf(evidence(reporters(2)), ctx()).recommendation).toBe("review");
    expect(scoreOf(evidence(reporters(3)), ctx()).recommendation).toBe("caution");
  });

  it("counts a reporter only with a + b ≥ 0.5 of its own, negative on a critical dimension that scores below 500", () => {
    const s = evidence({
      2: { reliability: [0, 20] }, // negative, reliability below 500: counts
      3: { reliability: [0.1, 0.39] }, // too little evidence of its own
      4: { quality: [0, 10] }, // quality is not a critical dimension
      5: { security: [1, 2] }, // negative, but security scores above 500 thanks to reporter 6
      6: { security: [10, 0] },
      [OWNER]: { stability: [0, 2.5] }, // the owner never corroborates
    });
    expect(negativeReporters(s, OWNER)).toBe(1);
    expect(negativeReporters(evidence({ 2: { reliability: [0, 20] }, 3: { reliability: [0.1, 0.4] } }), OWNER)).toBe(2);
  });

  it("looks bad: composite < 400, or a critical dimension < 350, or N ≥ 20 with reliability or stability < 500", () => {
    const two = (dims: Dims) => scoreOf(evidence({ 2: dims, 3: dims }), ctx()).recommendation;
    expect(two({ stability: [4.5, 5.5], quality: [5, 5] })).toBe("caution"); // N = 40, stability 475
    expect(two({ stability: [4.5, 5.5] })).toBe("caution"); // N = 20 exactly
    expect(two({ stability: [4.4, 5.4] })).toBe("review"); // N = 19.6
    // Quality alone looks bad (composite 3/26 = 115) but no critical dimension is below 500 to corroborate.
    expect(two({ quality: [0, 10] })).toBe("review");
    expect(scoreOf(evidence({ 2: { quality: [0, 10] }, 3: { quality: [0, 10] } }), ctx()).composite).toBe(115);
  });
});

describe("clear", () => {
  const trusted = (reporters: number) =>
    evidence(Object.fromEntries(Array.from({ length: reporters }, (_, i) => [i + 2, Object.fromEntries(DIMENSIONS.map((d) => [d, [9, 1]]))])));

  it("needs R ≥ 3", () => {
    expect(scoreOf(trusted(2), ctx()).recommendation).toBe("review");
    expect(scoreOf(trusted(2), ctx()).confidence).toBe("medium");
    expect(scoreOf(trusted(3), ctx()).recommendation).toBe("clear");
  });

  it("needs an owner", () => {
    const view = scoreOf(trusted(5), ctx({ ownerId: null }));
    expect(view.recommendation).toBe("review");
    expect(view.reasons).toEqual(["NO_OWNER"]);
  });

  it("needs confidence: N ≥ 20", () => {
    const thin = evidence({ 2: { reliability: [5, 0] }, 3: { reliability: [5, 0] }, 4: { reliability: [5, 0] } });
    expect(scoreOf(thin, ctx()).composite).toBeGreaterThanOrEqual(700);
    expect(scoreOf(thin, ctx()).recommendation).toBe("review");
  });

  it("needs every dimension ≥ 450", () => {
    const s = trusted(3);
    s.reporters["2"].dims.financial = { a: 0, b: 30 };
    const view = scoreOf(s, ctx());
    expect(view.composite).toBeGreaterThanOrEqual(700);
    expect(view.dimensions.financial).toBeLessThan(450);
    expect(view.recommendation).toBe("review");
  });

  it("is withheld while max(2, ⌈R/3⌉) reporters object: negative on reliability, security or stability, whatever the agent scores there", () => {
    const objector: Dims = { security: [0, 1] };
    const one = trusted(3);
    one.reporters["5"] = evidence({ 5: objector }).reporters["5"];
    const two = trusted(3);
    two.reporters["5"] = evidence({ 5: objector }).reporters["5"];
    two.reporters["6"] = evidence({ 6: objector }).reporters["6"];
    expect(scoreOf(one, ctx()).recommendation).toBe("clear"); // one objector of R = 4: not corroborated
    const view = scoreOf(two, ctx());
    expect(view.independentReporters).toBe(5);
    expect(objectingReporters(two, OWNER)).toBe(2);
    expect(view.dimensions.security).toBeGreaterThan(500); // the record says security is good; two reporters disagree
    expect(view.composite).toBeGreaterThanOrEqual(700);
    expect(DIMENSIONS.every((d) => view.dimensions[d] >= 450)).toBe(true);
    expect(view.recommendation).toBe("review");
  });

  it("counts objectors as corroboration counts reporters: a + b ≥ 0.5 of their own, never the owner, never quality or financial", () => {
    const s = trusted(3);
    const others = evidence({
      5: { security: [0.1, 0.39] }, // too little evidence of its own
      6: { quality: [0, 2], financial: [0, 2] }, // not critical dimensions
      7: { reliability: [0, 1] }, // objects
      [OWNER]: { stability: [0, 2.5] }, // the owner never objects
    });
    Object.assign(s.reporters, others.reporters);
    expect(objectingReporters(s, OWNER)).toBe(1);
    expect(scoreOf(s, ctx()).independentReporters).toBe(6);
    expect(scoreOf(s, ctx()).recommendation).toBe("clear");
    s.reporters["5"].dims.security = { a: 0.1, b: 0.4 };
    expect(objectingReporters(s, OWNER)).toBe(2);
    expect(scoreOf(s, ctx()).recommendation).toBe("review");
  });

  it("the bar for objectors grows with R: with R = 9, two are not enough; three are", () => {
    const withObjectors = (trustedCount: number, objectors: number) => {
      const s = trusted(trustedCount);
      for (let i = 0; i < objectors; i++) s.reporters[String(20 + i)] = evidence({ [20 + i]: { stability: [0, 1] } }).reporters[String(20 + i)];
      return scoreOf(s, ctx());
    };
    expect(withObjectors(7, 2).independentReporters).toBe(9);
    expect(withObjectors(7, 2).recommendation).toBe("clear");
    expect(withObjectors(6, 3).independentReporters).toBe(9);
    expect(withObjectors(6, 3).composite).toBeGreaterThanOrEqual(700);
    expect(withObjectors(6, 3).recommendation).toBe("review");
  });

  it("high confidence needs N ≥ 100 and R ≥ 5, and identity level 0 caps it at medium", () => {
    expect(scoreOf(trusted(5), ctx()).confidence).toBe("high");
    expect(scoreOf(trusted(4), ctx()).confidence).toBe("medium");
    expect(scoreOf(trusted(5), ctx({ identityLevel: 0 })).confidence).toBe("medium");
    expect(scoreOf(trusted(5), ctx({ identityLevel: 0 })).recommendation).toBe("clear");
  });
});

describe("reasons", () => {
  it("LOW_<DIMENSION> first, lowest first, ties in composite-weight order, at most 4", () => {
    const s = evidence({ 2: { reliability: [1, 3], financial: [1, 3], security: [0.5, 3.5], quality: [4, 0] } }, { lastConfigChangeAt: T0 - DAY });
    expect(scoreOf(s, ctx({ ownerId: null, operatorScore: 0, identityLevel: 0 })).reasons).toEqual([
      "LOW_SECURITY",
      "LOW_RELIABILITY",
      "LOW_FINANCIAL",
      "RECENT_CONFIG_CHANGE",
    ]);
  });

  it("then RECENT_CONFIG_CHANGE, NO_OWNER, OPERATOR_RECORD, FEW_INDEPENDENT_REPORTERS, INSUFFICIENT_EVIDENCE, IDENTITY_UNVERIFIED", () => {
    const s = evidence({ 2: { quality: [1, 0] } }, { lastConfigChangeAt: T0 - 29 * DAY });
    const all = ctx({ ownerId: null, operatorScore: 399, identityLevel: 0 });
    expect(scoreOf(s, all).reasons).toEqual(["RECENT_CONFIG_CHANGE", "NO_OWNER", "OPERATOR_RECORD", "FEW_INDEPENDENT_REPORTERS"]);
    expect(scoreOf(s, { ...all, now: T0 + DAY }).reasons).toEqual(["NO_OWNER", "OPERATOR_RECORD", "FEW_INDEPENDENT_REPORTERS", "INSUFFICIENT_EVIDENCE"]);
    expect(scoreOf(s, ctx({ now: T0 + DAY, operatorScore: 400, identityLevel: 0 })).reasons).toEqual([
      "FEW_INDEPENDENT_REPORTERS",
      "INSUFFICIENT_EVIDENCE",
      "IDENTITY_UNVERIFIED",
    ]);
  });

  it("FEW_INDEPENDENT_REPORTERS below 3, INSUFFICIENT_EVIDENCE below N = 20", () => {
    const ten: Dims = { quality: [10, 0] };
    const six: Dims = { quality: [6, 0] };
    expect(scoreOf(evidence({ 2: ten, 3: ten }), ctx()).reasons).toEqual(["FEW_INDEPENDENT_REPORTERS"]);
    expect(scoreOf(evidence({ 2: ten, 3: ten, 4: ten }), ctx()).reasons).toEqual([]);
    expect(scoreOf(evidence({ 2: six, 3: six, 4: six }), ctx()).reasons).toEqual(["INSUFFICIENT_EVIDENCE"]);
  });
});

describe("the operator score", () => {
  it("counts independent evidence only: self-reports give nothing", () => {
    const self = fold(Array.from({ length: 100 }, (_, i) => report(OWNER, T0 + i * HOUR)));
    expect(independentContribution(self, OWNER, self.at)).toEqual({ evidence: 0, composite: 500 });
    expect(operatorScore([independentContribution(self, OWNER, self.at)])).toBe(500);
  });

  it("computes the composite from the non-owner evidence alone", () => {
    const s = evidence({ 2: { reliability: [0, 4] }, [OWNER]: { reliability: [2.5, 0] } });
    const c = independentContribution(s, OWNER, T0);
    expect(c.evidence).toBe(4);
    expect(c.composite).toBe(300); // 3/10; with the owner's share it would be 5.5/12.5 = 440
    expect(scoreOf(s, ctx()).composite).toBe(440);
  });

  it("forgets: an agent idle for years stops counting", () => {
    const s = fold([report(2, T0), report(3, T0), report(4, T0)]);
    const now = independentContribution(s, OWNER, T0);
    const later = independentContribution(s, OWNER, T0 + 10 * 365 * DAY);
    expect(now.evidence).toBeCloseTo(15, 12);
    expect(later.evidence).toBeLessThan(1e-10);
    expect(operatorScore([later])).toBe(500);
    expect(operatorScore([now])).toBe(Math.round((50 * 500 + 15 * now.composite) / 65));
  });

  it("is the evidence-weighted mean shrunk to 500, from contributions or from sums", () => {
    const agents = [
      { evidence: 30, composite: 800 },
      { evidence: 20, composite: 300 },
      { evidence: -5, composite: 900 }, // negative evidence counts as none
    ];
    expect(operatorScore(agents)).toBe(Math.round((50 * 500 + 30 * 800 + 20 * 300) / 100));
    expect(operatorScoreFromSums(50, 30 * 800 + 20 * 300)).toBe(operatorScore(agents));
    expect(operatorScore([])).toBe(500);
  });
});

describe("claims", () => {
  const history = (claimerBase: number): HistoryEvent[] => [
    reportEvent(2, T0, { signals: { reliability: 900, quality: 700 } }),
    reportEvent(7, T0 + HOUR, { base: claimerBase, signals: { reliability: 600, security: 800 } }),
    reportEvent(3, T0 + 2 * HOUR, { signals: { reliability: 800 } }),
    reportEvent(7, T0 + 3 * HOUR, { base: claimerBase, outcome: "partial", signals: { quality: 900 } }),
    { kind: "config", at: T0 + DAY, changes: ["prompt_change"] },
    reportEvent(2, T0 + 2 * DAY, { signals: { quality: 800 } }),
  ];

  for (const claimerBase of [1, 0.75]) {
    it(`a replay with the new owner rescales the claimer's reports by 0.25 ÷ ${claimerBase}, nothing else`, () => {
      const before = replay(history(claimerBase), null, T0);
      const after = replay(history(claimerBase), 7, T0);
      for (const d of DIMENSIONS) {
        expect(pair(after, 7, d).a).toBeCloseTo((pair(before, 7, d).a * 0.25) / claimerBase, 12);
        expect(pair(after, 7, d).b).toBeCloseTo((pair(before, 7, d).b * 0.25) / claimerBase, 12);
      }
      expectBitIdentical(after.reporters["2"], before.reporters["2"]);
      expectBitIdentical(after.reporters["3"], before.reporters["3"]);
      expect(independentReporters(after, 7, T0 + 2 * DAY)).toBe(2);
      expect(independentReporters(before, null, T0 + 2 * DAY)).toBe(3);
    });
  }

  it("puts the claimer under the owner cap", () => {
    const events = Array.from({ length: 60 }, (_, i) => reportEvent(7, T0 + i * HOUR));
    expect(pair(replay(events, null, T0), 7, "reliability").a).toBeCloseTo(10, 9);
    expect(pair(replay(events, 7, T0), 7, "reliability").a).toBeCloseTo(2.5, 12);
  });
});

describe("penalties", () => {
  it("start at the third withdrawal within 90 days and last 90 days", () => {
    const w = [T0, T0 + 10 * DAY, T0 + 20 * DAY];
    expect(penaltyAt(w, T0 + 20 * DAY - 1)).toBe(1);
    expect(penaltyAt(w, T0 + 20 * DAY)).toBe(0.5);
    expect(penaltyAt(w, T0 + 110 * DAY - 1)).toBe(0.5);
    expect(penaltyAt(w, T0 + 110 * DAY)).toBe(1);
    expect(penaltyAt(w.slice(0, 2), T0 + 30 * DAY)).toBe(1);
    expect(penaltyAt([T0, T0 + 50 * DAY, T0 + 90 * DAY], T0 + 91 * DAY)).toBe(1); // not within 90 days
    expect(penaltyAt([T0 + 20 * DAY, T0, T0 + 10 * DAY], T0 + 25 * DAY)).toBe(0.5); // order does not matter
  });

  it("halve the weight of each report they are stored with, and a replay reproduces it", () => {
    const penalised = replay([reportEvent(2, T0, { penalty: 0.5, signals: { reliability: 1000 } })], OWNER, T0);
    expect(pair(penalised, 2, "reliability").a).toBe(0.5);
    expect(pair(penalised, 2, "stability").a).toBe(0.5);
  });
});

describe("replay", () => {
  it("counts k as the reporter's earlier reports less than 24 hours before, as the live path does", () => {
    const at = [T0, T0 + DAY - 1, T0 + DAY, T0 + 2 * DAY];
    const replayed = replay(
      at.map((t) => reportEvent(2, t, { signals: {} })),
      OWNER,
      T0,
    );
    // k = 0; 1 (T0 is within 24 h); 1 (T0 is exactly 24 h before: out); 0 (T0 + DAY is exactly 24 h before)
    let s = emptyEvidence(T0);
    [0, 1, 1, 0].forEach((k, i) => (s = applyReport(s, report(2, at[i], { signals: {} }), OWNER, k).state));
    expectBitIdentical(replayed, s);
  });

  it("equals the live fold bit for bit (random histories with configuration changes)", () => {
    for (let seed = 0; seed < 20; seed++) {
      const random = randomFor("replay", seed);
      const events = randomHistory(random, 150);
      const ownerId = random() < 0.8 ? OWNER : null;
      // The live path: state stored as JSON between events; k from every earlier report's time (SQL: created_at > now − 24 h).
      let stored = JSON.stringify(emptyEvidence(T0));
      const seen: { reporter: number; at: number }[] = [];
      for (const e of events) {
        const state = JSON.parse(stored) as AgentEvidence;
        if (e.kind === "config") {
          stored = JSON.stringify(applyConfigChange(state, e.changes, e.at));
          continue;
        }
        const k = seen.filter((r) => r.reporter === e.reporter && r.at > e.at - DAY).length;
        stored = JSON.stringify(applyReport(state, e, ownerId, k).state);
        seen.push({ reporter: e.reporter, at: e.at });
      }
      const replayed = replay(events, ownerId, T0);
      expectBitIdentical(replayed, JSON.parse(stored));
      expect(scoreOf(replayed, ctx({ now: replayed.at, ownerId }))).toEqual(scoreOf(JSON.parse(stored), ctx({ now: replayed.at, ownerId })));
    }
  });
});

/** The live path: k counted per reporter over the damping window; the score after every report. */
function live(inputs: ReportInput[], ownerId: number | null): ScoreView[] {
  let s = emptyEvidence(T0);
  const views: ScoreView[] = [];
  inputs.forEach((input, i) => {
    const k = inputs.slice(0, i).filter((r) => r.reporter === input.reporter && r.at > input.at - DAY).length;
    s = applyReport(s, input, ownerId, k).state;
    views.push(scoreOf(s, ctx({ now: input.at, ownerId })));
  });
  return views;
}

function randomHistory(random: Random, n: number): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  let at = T0;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  for (let i = 0; i < n; i++) {
    const gap = random();
    at += gap < 0.1 ? 0 : gap < 0.2 ? DAY : gap < 0.23 ? 400 * DAY : Math.floor(random() * random() * 2 * DAY);
    if (random() < 0.08) {
      events.push({ kind: "config", at, changes: CHANGE_TYPES.filter(() => random() < 0.4) });
      continue;
    }
    const signals: Partial<Record<SignalDimension, number>> = {};
    for (const d of ["reliability", "quality", "financial", "security"] as const) {
      if (random() < 0.6) signals[d] = random() < 0.8 ? Math.floor(random() * 1001) : random() * 1000;
    }
    events.push({
      kind: "report",
      reporter: 1 + Math.floor(random() * 6),
      at,
      outcome: pick(OUTCOMES),
      signals,
      base: pick([1, 0.75, 0.25]),
      evidence: pick([1, 1.5]),
      penalty: random() < 0.1 ? 0.5 : 1,
    });
  }
  return events;
}

describe("attacks, at unit level", () => {
  const praise = (reporter: number, at: number) => report(reporter, at, { evidence: 1.5 });

  it("two colluders on a new agent are never clear: R = 2", () => {
    const reports = Array.from({ length: 500 }, (_, i) => praise(2 + (i % 2), T0 + i * 60_000));
    const s = fold(reports);
    const view = scoreOf(s, ctx({ now: s.at, identityLevel: 2 }));
    expect(view.composite).toBe(885);
    expect(view.confidence).toBe("medium");
    expect(view.recommendation).toBe("review");
  });

  it("two colluders cannot lift a caution agent to clear: its honest reporters' objections withhold it", () => {
    const honest: Dims = { reliability: [1.5, 2.5], stability: [1.5, 2.5], quality: [2, 2], security: [0.5, 0.5] };
    const record = evidence({ 2: honest, 3: honest, 4: honest, 5: honest });
    expect(scoreOf(record, ctx()).recommendation).toBe("caution"); // reliability and stability 409, N = 52
    const colluder = Object.fromEntries(DIMENSIONS.map((d) => [d, [10, 0]])) as Dims;
    const attacked = evidence({ 2: honest, 3: honest, 4: honest, 5: honest, 8: colluder, 9: colluder });
    const view = scoreOf(attacked, ctx({ identityLevel: 2 }));
    expect(view.composite).toBe(760); // every other condition of clear holds
    expect(view.confidence).toBe("high");
    expect(DIMENSIONS.every((d) => view.dimensions[d] >= 450)).toBe(true);
    expect(objectingReporters(attacked, OWNER)).toBe(4);
    expect(view.recommendation).toBe("review");
  });

  it("the owner's 1,000 self-reports reach 647 and never clear", () => {
    const s = fold(Array.from({ length: 1000 }, (_, i) => praise(OWNER, T0 + i * 86_000)));
    const view = scoreOf(s, ctx({ now: s.at, identityLevel: 2 }));
    expect(view.composite).toBe(647);
    expect(view.recommendation).toBe("review");
  });

  it("provider flips cannot shed a bad record", () => {
    const bad = fold(
      [2, 3, 4].flatMap((r, j) =>
        Array.from({ length: 8 }, (_, i) => report(r, T0 + i * DAY + j * HOUR, { outcome: i % 3 ? "failure" : "success", signals: { reliability: i % 3 ? 100 : 900, quality: 900 } })),
      ).sort((x, y) => x.at - y.at),
    );
    const before = scoreOf(bad, ctx({ now: bad.at }));
    expect(before.recommendation).toBe("caution");
    let flipped = bad;
    for (let f = 1; f <= 4; f++) flipped = applyConfigChange(flipped, ["provider_change"], bad.at + f * HOUR);
    const after = scoreOf(flipped, ctx({ now: bad.at + 4 * HOUR }));
    expect(after.recommendation).toBe("caution");
    expect(after.composite).toBeLessThanOrEqual(scoreOf(bad, ctx({ now: bad.at + 4 * HOUR })).composite);
    expect(after.dimensions.quality).toBeLessThan(before.dimensions.quality); // the good dimension decayed
    expect(after.dimensions.reliability).toBe(before.dimensions.reliability); // the bad one did not
  });

  it("a bad record outlives a year of idleness: caution while N ≥ 20, which halves only every 365 days", () => {
    // reliability 417, stability 423, composite 419: bad only by the N ≥ 20 rule; N = 50.
    const dims: Dims = { reliability: [4, 6], stability: [4, 6] };
    const bad = evidence({ 2: dims, 3: dims, 4: { reliability: [4, 6] } });
    const at = (days: number) => scoreOf(bad, ctx({ now: T0 + days * DAY }));
    expect(at(0).composite).toBe(419);
    expect(at(365).recommendation).toBe("caution");
    expect(at(482).recommendation).toBe("caution"); // N = 50 · 2^(−482/365) = 20.0
    expect(at(483).evidence).toBeLessThan(20);
    expect(at(483).recommendation).toBe("review");
    // The same record on the good side is gone four times faster.
    const good = evidence({ 2: { reliability: [6, 4] }, 3: { reliability: [6, 4] } });
    expect(scoreOf(good, ctx({ now: T0 + 365 * DAY })).evidence).toBeCloseTo(20 * 2 ** (-365 / 90), 12);
  });

  it("one competitor, at any volume, cannot put an agent with a good record in caution", () => {
    const honest = [2, 3, 4].flatMap((r, j) => Array.from({ length: 20 }, (_, i) => report(r, T0 + i * DAY + j * HOUR)));
    const slander = Array.from({ length: 600 }, (_, i) => report(9, T0 + 10 * DAY + i * HOUR, { outcome: "failure", signals: allSignals(0), evidence: 1.5 }));
    const views = live([...honest, ...slander].sort((x, y) => x.at - y.at), OWNER);
    expect(views.filter((v) => v.recommendation === "caution")).toEqual([]);
    // From the first slander on (after the 30 honest reports of the first ten days) it stays far from every caution bar.
    const attacked = views.slice(30);
    expect(Math.min(...attacked.map((v) => v.composite))).toBeGreaterThan(650);
    expect(Math.min(...attacked.map((v) => Math.min(v.dimensions.reliability, v.dimensions.stability)))).toBeGreaterThan(600);
  });

  it("self-reports on 10 dummy agents do not move the operator score", () => {
    const real = independentContribution(fold([report(2, T0), report(3, T0), report(4, T0, { outcome: "failure", signals: allSignals(0) })]), OWNER, T0 + 7 * DAY);
    const dummy = fold(Array.from({ length: 168 }, (_, i) => praise(OWNER, T0 + i * HOUR)));
    const dummies = Array.from({ length: 10 }, () => independentContribution(dummy, OWNER, T0 + 7 * DAY));
    expect(operatorScore([real, ...dummies])).toBe(operatorScore([real]));
  });
});

// Version 1's composite and bounds tests, carried to version 2's per-reporter evidence.
describe("composite", () => {
  /** A pair above the prior with `n` observations that scores `score`. */
  const pairAt = (score: number, n: number): [number, number] => {
    const alpha = (score / 1000) * (2 * MODEL.prior + n);
    return [alpha - MODEL.prior, 2 * MODEL.prior + n - alpha - MODEL.prior];
  };

  it("is 500 when nothing is observed", () => {
    expect(scoreOf(emptyEvidence(T0), ctx()).composite).toBe(500);
  });

  it("weights the observed dimensions: reliability .30, quality .25, security .20, financial .15, stability .10", () => {
    const s = evidence({
      2: { reliability: pairAt(900, 50), quality: pairAt(700, 50), financial: pairAt(300, 50), security: pairAt(600, 50), stability: pairAt(500, 50) },
    });
    // 500 + .3·400 + .25·200 + .15·(−200) + .2·100 + .1·0
    expect(scoreOf(s, ctx()).composite).toBe(660);
  });

  it("sums the reporters' pairs before scoring a dimension", () => {
    const one = evidence({ 2: { reliability: [6, 2] } });
    const split = evidence({ 2: { reliability: [4, 1] }, 3: { reliability: [2, 1] } });
    expect(scoreOf(split, ctx()).dimensions).toEqual(scoreOf(one, ctx()).dimensions);
  });

  it("ignores unobserved dimensions instead of pulling them to 500", () => {
    expect(scoreOf(evidence({ 2: { reliability: pairAt(800, 10) } }), ctx()).composite).toBe(800);
    // 500 + (.3·300 + .25·100) / .55 = 709.09
    expect(scoreOf(evidence({ 2: { reliability: pairAt(800, 10), quality: pairAt(600, 10) } }), ctx()).composite).toBe(709);
  });

  it("treats float residue below 1e-9 as unobserved", () => {
    expect(scoreOf(evidence({ 2: { reliability: pairAt(800, 10), financial: [1e-12, 0] } }), ctx()).composite).toBe(800);
  });

  it("counts a dimension observed at exactly 500", () => {
    expect(scoreOf(evidence({ 2: { reliability: pairAt(800, 10), stability: pairAt(500, 10) } }), ctx()).composite).toBe(725); // 500 + .3·300/.4
  });

  it("is computed from the rounded dimension scores", () => {
    const view = scoreOf(fold([report(2, T0, { signals: { reliability: 900, quality: 650, security: 720 } as Record<SignalDimension, number> }), report(3, T0 + HOUR)]), ctx({ now: T0 + HOUR }));
    const w = MODEL.compositeWeights;
    // Reporter 3 observed every dimension, so all five weigh in, with weights summing to 1.
    const pull = DIMENSIONS.reduce((sum, d) => sum + w[d] * (view.dimensions[d] - 500), 0);
    expect(view.composite).toBe(Math.round(500 + pull));
  });
});

describe("bounds", () => {
  it("stays within 0..1000 and approaches the top without passing it (300 reporters, all signals 1000)", () => {
    let state = emptyEvidence(T0);
    let previous = scoreOf(state, ctx()).dimensions;
    for (let i = 0; i < 300; i++) {
      state = applyReport(state, report(100 + i, T0), OWNER, 0).state;
      const view = scoreOf(state, ctx());
      for (const d of DIMENSIONS) {
        expect(view.dimensions[d]).toBeGreaterThanOrEqual(previous[d]);
        expect(view.dimensions[d]).toBeLessThanOrEqual(1000);
      }
      previous = view.dimensions;
    }
    for (const d of DIMENSIONS) expect(previous[d]).toBe(990); // 303/306
  });

  it("stays within 0..1000 and approaches the bottom without passing it (300 reporters, all signals 0)", () => {
    let state = emptyEvidence(T0);
    let previous = scoreOf(state, ctx()).dimensions;
    for (let i = 0; i < 300; i++) {
      state = applyReport(state, report(100 + i, T0, { outcome: "failure", signals: allSignals(0) }), OWNER, 0).state;
      const view = scoreOf(state, ctx());
      for (const d of DIMENSIONS) {
        expect(view.dimensions[d]).toBeLessThanOrEqual(previous[d]);
        expect(view.dimensions[d]).toBeGreaterThanOrEqual(0);
      }
      previous = view.dimensions;
    }
    for (const d of DIMENSIONS) expect(previous[d]).toBe(10); // 3/306
    expect(scoreOf(state, ctx()).recommendation).toBe("caution");
  });

  it("after 10 idle years a well-reported agent is back to ~500 with low confidence", () => {
    const inputs: ReportInput[] = [];
    for (let i = 0; i < 120; i++) inputs.push(report(100 + (i % 6), T0 + i * HOUR, { signals: allSignals(950) }));
    const state = fold(inputs);
    const end = T0 + 120 * HOUR;
    const trained = scoreOf(state, ctx({ now: end, identityLevel: 2 }));
    expect(trained.confidence).toBe("high");
    expect(trained.recommendation).toBe("clear");
    const idle = scoreOf(state, ctx({ now: end + 3653 * DAY, identityLevel: 2 }));
    expect(idle.composite).toBe(500);
    for (const d of DIMENSIONS) expect(idle.dimensions[d]).toBe(500);
    expect(idle.confidence).toBe("low");
    expect(idle.recommendation).toBe("review");
    expect(idle.reasons).toContain("INSUFFICIENT_EVIDENCE");
  });
});
