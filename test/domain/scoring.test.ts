import { describe, expect, it } from "vitest";
import { canonicalConfiguration } from "../../src/domain/configuration";
import {
  DIMENSIONS,
  SCORING,
  applyConfigChange,
  applyTransaction,
  classifyChange,
  forget,
  initialEvidence,
  operatorScore,
  operatorScoreFromSums,
  reporterWeight,
  scoreOf,
  type AgentConfiguration,
  type Dimension,
  type Evidence,
  type EvidenceState,
  type SignalDimension,
} from "../../src/domain/scoring";

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const YEAR = 365.25 * DAY;

/** A trusted context: verified identity, five independent reporters. */
const ctx = (over: Partial<{ now: number; identityLevel: number; independentReporters: number }> = {}) => ({
  now: T0,
  identityLevel: 1,
  independentReporters: 5,
  ...over,
});

/** Evidence with `n` above the prior and mean score/1000. */
function dimAt(score: number, n: number): Evidence {
  const total = 2 * SCORING.prior + n;
  return { alpha: (total * score) / 1000, beta: total * (1 - score / 1000) };
}

function stateWith(dims: Partial<Record<Dimension, Evidence>>, over: Partial<EvidenceState> = {}): EvidenceState {
  const s = initialEvidence(T0);
  return { ...s, dims: { ...s.dims, ...dims }, ...over };
}

function allDims(score: number, n: number): Record<Dimension, Evidence> {
  return Object.fromEntries(DIMENSIONS.map((d) => [d, dimAt(score, n)])) as Record<Dimension, Evidence>;
}

const allSignals = (v: number): Record<SignalDimension, number> => ({ reliability: v, quality: v, financial: v, security: v });

const above = (e: Evidence) => ({ a: e.alpha - SCORING.prior, b: e.beta - SCORING.prior });

/** Reports from `count` verified independent operators, one each, at T0. */
function reported(count: number, signals: Partial<Record<SignalDimension, number>>, outcome: "success" | "failure" = "success") {
  let s = initialEvidence(T0);
  for (let i = 0; i < count; i++) s = applyTransaction(s, { outcome, signals }, 1, T0);
  return s;
}

/** Each dimension moved toward 500 (or stayed) and did not cross it. */
function expectTowardMidpoint(before: Record<Dimension, number>, after: Record<Dimension, number>) {
  for (const d of DIMENSIONS) {
    expect(Math.abs(after[d] - 500)).toBeLessThanOrEqual(Math.abs(before[d] - 500));
    expect((after[d] - 500) * (before[d] - 500)).toBeGreaterThanOrEqual(0);
  }
}

describe("constants", () => {
  it("match the product's model", () => {
    expect(SCORING.prior).toBe(3);
    expect(SCORING.outcomeValue).toEqual({ success: 1, partial: 0.5, timeout: 0.25, error: 0.1, failure: 0 });
    expect(SCORING.reporterBase).toEqual({ verified: 1, unverified: 0.75, owner: 0.25 });
    expect(SCORING.dampingWindowMs).toBe(DAY);
    expect(SCORING.halfLifeMs).toBe(90 * DAY);
    expect(SCORING.compositeWeights).toEqual({ reliability: 0.3, quality: 0.25, security: 0.2, financial: 0.15, stability: 0.1 });
    expect(Object.values(SCORING.compositeWeights).reduce((a: number, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(SCORING.confidence.high).toEqual({ evidence: 100, reporters: 5 });
    expect(SCORING.confidence.medium).toEqual({ evidence: 20, reporters: 2 });
    expect(SCORING.changeKept).toEqual({
      provider_change: { all: 0.3 },
      model_swap: { all: 0.5 },
      prompt_change: { all: 0.75 },
      tools_change: { all: 0.8, security: 0.6 },
      memory_change: { all: 0.9 },
    });
    expect(SCORING.operatorPriorWeight).toBe(50);
    expect(SCORING.recentConfigChangeMs).toBe(30 * DAY);
    expect(SCORING.independentReporterWindowMs).toBe(90 * DAY);
  });
});

describe("a new agent", () => {
  it("starts at the prior with nothing observed", () => {
    const s = initialEvidence(T0);
    expect(s.at).toBe(T0);
    expect(s.lastConfigChangeAt).toBeNull();
    for (const d of DIMENSIONS) expect(s.dims[d]).toEqual({ alpha: 3, beta: 3 });
  });

  it("scores 500 everywhere, low confidence, review", () => {
    const view = scoreOf(initialEvidence(T0), { now: T0, identityLevel: 0, independentReporters: 0 });
    expect(view).toEqual({
      composite: 500,
      dimensions: { reliability: 500, quality: 500, financial: 500, security: 500, stability: 500 },
      confidence: "low",
      recommendation: "review",
      evidence: 0,
      reasons: ["INSUFFICIENT_EVIDENCE", "FEW_INDEPENDENT_REPORTERS", "IDENTITY_UNVERIFIED"],
    });
  });

  it("survives a JSON round trip (the D1 storage form)", () => {
    const s = reported(3, allSignals(800));
    expect(scoreOf(JSON.parse(JSON.stringify(s)), ctx())).toEqual(scoreOf(s, ctx()));
  });
});

describe("applyTransaction", () => {
  it("adds w·x to alpha and w·(1−x) to beta", () => {
    const s = applyTransaction(initialEvidence(T0), { outcome: "success", signals: { reliability: 800 } }, 0.5, T0);
    expect(s.dims.reliability.alpha).toBeCloseTo(3.4, 12);
    expect(s.dims.reliability.beta).toBeCloseTo(3.1, 12);
    expect(s.dims.stability).toEqual({ alpha: 3.5, beta: 3 });
  });

  it("observes the outcome on stability with the outcome map", () => {
    for (const [outcome, x] of [["success", 1], ["partial", 0.5], ["timeout", 0.25], ["error", 0.1], ["failure", 0]] as const) {
      const s = applyTransaction(initialEvidence(T0), { outcome, signals: {} }, 1, T0);
      expect(s.dims.stability.alpha).toBeCloseTo(3 + x, 12);
      expect(s.dims.stability.beta).toBeCloseTo(3 + 1 - x, 12);
    }
  });

  it("moves only the dimensions it has signals for, plus stability", () => {
    const s = applyTransaction(initialEvidence(T0), { outcome: "partial", signals: { quality: 100 } }, 1, T0);
    expect(s.dims.reliability).toEqual({ alpha: 3, beta: 3 });
    expect(s.dims.financial).toEqual({ alpha: 3, beta: 3 });
    expect(s.dims.security).toEqual({ alpha: 3, beta: 3 });
    expect(s.dims.quality.alpha).toBeCloseTo(3.1, 12);
    expect(s.dims.stability).toEqual({ alpha: 3.5, beta: 3.5 });
  });

  it("one fluke cannot move a new agent far", () => {
    const view = scoreOf(reported(1, allSignals(0), "failure"), ctx());
    for (const d of DIMENSIONS) expect(view.dimensions[d]).toBe(429); // 3/7
  });

  it("stays within 0..1000 and approaches the top without passing it (all signals 1000)", () => {
    let s = initialEvidence(T0);
    let previous = scoreOf(s, ctx()).dimensions;
    for (let i = 0; i < 300; i++) {
      s = applyTransaction(s, { outcome: "success", signals: allSignals(1000) }, 1, T0);
      const view = scoreOf(s, ctx());
      for (const d of DIMENSIONS) {
        expect(view.dimensions[d]).toBeGreaterThanOrEqual(previous[d]);
        expect(view.dimensions[d]).toBeLessThanOrEqual(1000);
        expect(s.dims[d].alpha / (s.dims[d].alpha + s.dims[d].beta)).toBeLessThan(1);
      }
      expect(view.composite).toBeLessThanOrEqual(1000);
      previous = view.dimensions;
    }
    for (const d of DIMENSIONS) expect(previous[d]).toBe(990); // 303/306
  });

  it("stays within 0..1000 and approaches the bottom without passing it (all signals 0)", () => {
    let s = initialEvidence(T0);
    let previous = scoreOf(s, ctx()).dimensions;
    for (let i = 0; i < 300; i++) {
      s = applyTransaction(s, { outcome: "failure", signals: allSignals(0) }, 1, T0);
      const view = scoreOf(s, ctx());
      for (const d of DIMENSIONS) {
        expect(view.dimensions[d]).toBeLessThanOrEqual(previous[d]);
        expect(view.dimensions[d]).toBeGreaterThanOrEqual(0);
        expect(s.dims[d].alpha).toBeGreaterThan(0);
      }
      expect(view.composite).toBeGreaterThanOrEqual(0);
      previous = view.dimensions;
    }
    for (const d of DIMENSIONS) expect(previous[d]).toBe(10);
    expect(scoreOf(s, ctx()).recommendation).toBe("caution");
  });

  it("may round to an end after very much evidence, but never beyond", () => {
    let s = initialEvidence(T0);
    for (let i = 0; i < 20_000; i++) s = applyTransaction(s, { outcome: "success", signals: allSignals(1000) }, 1, T0 + i * 60_000);
    const view = scoreOf(s, ctx({ now: s.at }));
    for (const d of DIMENSIONS) {
      expect(view.dimensions[d]).toBeLessThanOrEqual(1000);
      expect(view.dimensions[d]).toBeGreaterThan(990);
      expect(s.dims[d].beta).toBeGreaterThanOrEqual(SCORING.prior);
    }
  });

  it("forgets to now before adding", () => {
    const s = stateWith({ reliability: { alpha: 11, beta: 7 } });
    const next = applyTransaction(s, { outcome: "success", signals: { reliability: 1000 } }, 1, T0 + 90 * DAY);
    expect(next.at).toBe(T0 + 90 * DAY);
    expect(next.dims.reliability.alpha).toBeCloseTo(3 + 4 + 1, 9);
    expect(next.dims.reliability.beta).toBeCloseTo(3 + 2, 9);
  });

  it("clamps out-of-range signals and ignores non-numbers", () => {
    const s = applyTransaction(
      initialEvidence(T0),
      { outcome: "success", signals: { reliability: 1500, quality: -5, financial: Number.NaN, security: "x" as unknown as number } },
      1,
      T0,
    );
    expect(s.dims.reliability).toEqual({ alpha: 4, beta: 3 });
    expect(s.dims.quality).toEqual({ alpha: 3, beta: 4 });
    expect(s.dims.financial).toEqual({ alpha: 3, beta: 3 });
    expect(s.dims.security).toEqual({ alpha: 3, beta: 3 });
  });

  it("rejects a bad weight or outcome instead of storing NaN", () => {
    const s = initialEvidence(T0);
    expect(() => applyTransaction(s, { outcome: "success", signals: {} }, Number.NaN, T0)).toThrow(RangeError);
    expect(() => applyTransaction(s, { outcome: "success", signals: {} }, -1, T0)).toThrow(RangeError);
    expect(() => applyTransaction(s, { outcome: "bogus" as "success", signals: {} }, 1, T0)).toThrow(RangeError);
  });

  it("does not mutate its input", () => {
    const s = reported(2, allSignals(700));
    const copy = structuredClone(s);
    applyTransaction(s, { outcome: "failure", signals: allSignals(0) }, 1, T0 + DAY);
    applyConfigChange(s, ["provider_change"], T0 + DAY);
    forget(s, T0 + YEAR);
    scoreOf(s, ctx({ now: T0 + YEAR }));
    expect(s).toEqual(copy);
  });
});

describe("reporterWeight", () => {
  it("uses the reporter's base: verified 1.0, unverified 0.75, owner 0.25", () => {
    expect(reporterWeight({ isOwner: false, reporterVerified: true, earlierReportsInWindow: 0 })).toBe(1);
    expect(reporterWeight({ isOwner: false, reporterVerified: false, earlierReportsInWindow: 0 })).toBe(0.75);
    expect(reporterWeight({ isOwner: true, reporterVerified: true, earlierReportsInWindow: 0 })).toBe(0.25);
    expect(reporterWeight({ isOwner: true, reporterVerified: false, earlierReportsInWindow: 0 })).toBe(0.25);
  });

  it("damps by 1/√(1+k): k = 0, 1, 3 give 1, 1/√2, 1/2", () => {
    const w = (k: number) => reporterWeight({ isOwner: false, reporterVerified: true, earlierReportsInWindow: k });
    expect(w(0)).toBe(1);
    expect(w(1)).toBeCloseTo(1 / Math.SQRT2, 12);
    expect(w(3)).toBeCloseTo(0.5, 12);
    expect(reporterWeight({ isOwner: true, reporterVerified: true, earlierReportsInWindow: 3 })).toBeCloseTo(0.125, 12);
    expect(reporterWeight({ isOwner: false, reporterVerified: false, earlierReportsInWindow: 1 })).toBeCloseTo(0.75 / Math.SQRT2, 12);
  });

  it("a self-report moves the score less than an independent verified report", () => {
    const report = { outcome: "success" as const, signals: { reliability: 1000 } };
    const own = reporterWeight({ isOwner: true, reporterVerified: true, earlierReportsInWindow: 0 });
    const independent = reporterWeight({ isOwner: false, reporterVerified: true, earlierReportsInWindow: 0 });
    const byOwner = scoreOf(applyTransaction(initialEvidence(T0), report, own, T0), ctx()).dimensions.reliability;
    const byOther = scoreOf(applyTransaction(initialEvidence(T0), report, independent, T0), ctx()).dimensions.reliability;
    expect(byOwner).toBe(520); // 3.25/6.25
    expect(byOther).toBe(571); // 4/7
    expect(byOwner - 500).toBeLessThan(byOther - 500);
  });
});

describe("forgetting", () => {
  it("halves the evidence above the prior every 90 days", () => {
    const s = stateWith({ reliability: { alpha: 11, beta: 7 } });
    const half = forget(s, T0 + 90 * DAY);
    expect(half.at).toBe(T0 + 90 * DAY);
    expect(half.dims.reliability.alpha).toBeCloseTo(7, 12);
    expect(half.dims.reliability.beta).toBeCloseTo(5, 12);
    const quarter = forget(s, T0 + 180 * DAY);
    expect(quarter.dims.reliability.alpha).toBeCloseTo(5, 12);
    expect(quarter.dims.reliability.beta).toBeCloseTo(4, 12);
    expect(forget(half, T0 + 180 * DAY).dims.reliability.alpha).toBeCloseTo(5, 12);
  });

  it("never runs time backwards", () => {
    const s = stateWith({ reliability: { alpha: 11, beta: 7 } });
    const earlier = forget(s, T0 - DAY);
    expect(earlier.at).toBe(T0);
    expect(earlier.dims).toEqual(s.dims);
    const late = applyTransaction(s, { outcome: "success", signals: {} }, 1, T0 - DAY);
    expect(late.at).toBe(T0);
    expect(late.dims.reliability).toEqual({ alpha: 11, beta: 7 });
  });

  it("is applied at read time without changing the state", () => {
    const s = reported(10, allSignals(900));
    const fresh = scoreOf(s, ctx());
    const later = scoreOf(s, ctx({ now: T0 + 90 * DAY }));
    expect(Math.abs(later.composite - 500)).toBeLessThan(Math.abs(fresh.composite - 500));
    expect(later.evidence).toBeCloseTo(fresh.evidence / 2, 9);
    expect(s.at).toBe(T0);
  });

  it("after 10 idle years an agent is back to ~500 with low confidence", () => {
    const s = reported(100, allSignals(950));
    const trained = scoreOf(s, ctx({ identityLevel: 2 }));
    expect(trained.confidence).toBe("high");
    expect(trained.recommendation).toBe("clear");
    const idle = scoreOf(s, ctx({ now: T0 + 10 * YEAR, identityLevel: 2 }));
    expect(idle.composite).toBe(500);
    for (const d of DIMENSIONS) expect(idle.dimensions[d]).toBe(500);
    expect(idle.confidence).toBe("low");
    expect(idle.recommendation).toBe("review");
    expect(idle.evidence).toBeLessThan(1e-6);
    expect(idle.reasons).toContain("INSUFFICIENT_EVIDENCE");
  });
});

describe("composite", () => {
  it("is 500 when nothing is observed", () => {
    expect(scoreOf(initialEvidence(T0), ctx()).composite).toBe(500);
  });

  it("weights the observed dimensions: reliability .30, quality .25, security .20, financial .15, stability .10", () => {
    const s = stateWith({
      reliability: dimAt(900, 50),
      quality: dimAt(700, 50),
      financial: dimAt(300, 50),
      security: dimAt(600, 50),
      stability: dimAt(500, 50),
    });
    // 500 + .3·400 + .25·200 + .15·(−200) + .2·100 + .1·0
    expect(scoreOf(s, ctx()).composite).toBe(660);
  });

  it("ignores unobserved dimensions instead of pulling them to 500", () => {
    expect(scoreOf(stateWith({ reliability: dimAt(800, 10) }), ctx()).composite).toBe(800);
    // 500 + (.3·300 + .25·100) / .55 = 709.09
    expect(scoreOf(stateWith({ reliability: dimAt(800, 10), quality: dimAt(600, 10) }), ctx()).composite).toBe(709);
  });

  it("treats float residue below 1e-9 as unobserved", () => {
    const s = stateWith({ reliability: dimAt(800, 10), financial: { alpha: 3 + 1e-12, beta: 3 } });
    expect(scoreOf(s, ctx()).composite).toBe(800);
  });

  it("counts a dimension observed at exactly 500", () => {
    expect(scoreOf(stateWith({ reliability: dimAt(800, 10), stability: dimAt(500, 10) }), ctx()).composite).toBe(725); // 500 + .3·300/.4
  });

  it("is computed from the rounded dimension scores", () => {
    const view = scoreOf(reported(3, { reliability: 900, quality: 650, security: 720 }), ctx());
    const w = SCORING.compositeWeights;
    const pull = w.reliability * (view.dimensions.reliability - 500) + w.quality * (view.dimensions.quality - 500) +
      w.security * (view.dimensions.security - 500) + w.stability * (view.dimensions.stability - 500);
    expect(view.composite).toBe(Math.round(500 + pull / (w.reliability + w.quality + w.security + w.stability)));
  });
});

describe("confidence", () => {
  const at = (n: number, reporters: number, identityLevel = 1) =>
    scoreOf(stateWith({ reliability: dimAt(500, n) }), ctx({ independentReporters: reporters, identityLevel })).confidence;

  it("is high from N ≥ 100 and R ≥ 5", () => {
    expect(at(100, 5)).toBe("high");
    expect(at(99.9, 5)).toBe("medium");
    expect(at(100, 4)).toBe("medium");
  });

  it("is medium from N ≥ 20 and R ≥ 2, otherwise low", () => {
    expect(at(20, 2)).toBe("medium");
    expect(at(19.9, 2)).toBe("low");
    expect(at(1000, 1)).toBe("low");
    expect(at(0, 10)).toBe("low");
  });

  it("is capped at medium for identity level 0", () => {
    expect(at(100, 5, 0)).toBe("medium");
    expect(at(20, 2, 0)).toBe("medium");
    expect(at(100, 5, 2)).toBe("high");
  });

  it("sums N over all dimensions", () => {
    const s = stateWith({ reliability: dimAt(500, 40), quality: dimAt(500, 40), stability: dimAt(500, 20) });
    const view = scoreOf(s, ctx());
    expect(view.evidence).toBeCloseTo(100, 9);
    expect(view.confidence).toBe("high");
  });
});

describe("recommendation", () => {
  const view = (dims: Partial<Record<Dimension, Evidence>>, over = {}) => scoreOf(stateWith(dims), ctx(over));

  it("is clear from composite 700 with confidence above low and no dimension below 450", () => {
    expect(view(allDims(700, 20))).toMatchObject({ composite: 700, confidence: "high", recommendation: "clear" });
    expect(view(allDims(699, 20)).recommendation).toBe("review");
    expect(view(allDims(800, 20), { independentReporters: 2 })).toMatchObject({ confidence: "medium", recommendation: "clear" });
  });

  it("is review, not clear, with low confidence", () => {
    expect(view(allDims(900, 20), { independentReporters: 1 })).toMatchObject({ confidence: "low", recommendation: "review" });
  });

  it("is review, not clear, when any dimension is below 450", () => {
    const dims = { ...allDims(900, 20), financial: dimAt(449, 20) };
    expect(view(dims)).toMatchObject({ composite: 832, recommendation: "review" });
    expect(view({ ...dims, financial: dimAt(450, 20) }).recommendation).toBe("clear");
    // Financial and quality are not caution dimensions, even far below 350.
    expect(view({ ...allDims(900, 20), financial: dimAt(100, 20) }).recommendation).toBe("review");
    expect(view({ ...allDims(900, 20), quality: dimAt(100, 20) }).recommendation).toBe("review");
  });

  it("is caution below composite 400", () => {
    expect(view(allDims(399, 20)).recommendation).toBe("caution");
    expect(view(allDims(400, 20)).recommendation).toBe("review");
  });

  it("is caution when reliability, security or stability is below 350, whatever the composite", () => {
    for (const d of ["reliability", "security", "stability"] as const) {
      expect(view({ ...allDims(950, 20), [d]: dimAt(349, 20) }).recommendation).toBe("caution");
      expect(view({ ...allDims(950, 20), [d]: dimAt(350, 20) }).recommendation).toBe("review");
    }
  });
});

describe("reasons", () => {
  const reasons = (dims: Partial<Record<Dimension, Evidence>>, over = {}, state: Partial<EvidenceState> = {}) =>
    scoreOf(stateWith(dims, state), ctx(over)).reasons;

  it("are empty for a well-evidenced, verified, unchanged agent", () => {
    expect(reasons(allDims(800, 20))).toEqual([]);
  });

  it("name dimensions below 450, lowest first, ties by composite weight", () => {
    expect(reasons({ reliability: dimAt(400, 30), quality: dimAt(420, 30), security: dimAt(300, 30), financial: dimAt(450, 30) }))
      .toEqual(["LOW_SECURITY", "LOW_RELIABILITY", "LOW_QUALITY"]);
    expect(reasons({ stability: dimAt(400, 30), financial: dimAt(400, 30), reliability: dimAt(400, 30) }))
      .toEqual(["LOW_RELIABILITY", "LOW_FINANCIAL", "LOW_STABILITY"]);
  });

  it("add RECENT_CONFIG_CHANGE within 30 days of a change, after the low dimensions", () => {
    const dims = { ...allDims(800, 20), quality: dimAt(300, 20) };
    expect(reasons(dims, {}, { lastConfigChangeAt: T0 - 29 * DAY })).toEqual(["LOW_QUALITY", "RECENT_CONFIG_CHANGE"]);
    expect(reasons(dims, {}, { lastConfigChangeAt: T0 - 30 * DAY })).toEqual(["LOW_QUALITY"]);
  });

  it("then INSUFFICIENT_EVIDENCE (N < 20), FEW_INDEPENDENT_REPORTERS (R < 2), IDENTITY_UNVERIFIED (level 0)", () => {
    expect(reasons({ reliability: dimAt(500, 19) }, { independentReporters: 1, identityLevel: 0 }, { lastConfigChangeAt: T0 }))
      .toEqual(["RECENT_CONFIG_CHANGE", "INSUFFICIENT_EVIDENCE", "FEW_INDEPENDENT_REPORTERS", "IDENTITY_UNVERIFIED"]);
    expect(reasons({ reliability: dimAt(500, 20) }, { independentReporters: 2, identityLevel: 1 })).toEqual([]);
  });

  it("are at most 4, the most important kept", () => {
    const low = { reliability: dimAt(100, 1), quality: dimAt(200, 1), financial: dimAt(300, 1), security: dimAt(400, 1), stability: dimAt(420, 1) };
    expect(reasons(low, { independentReporters: 0, identityLevel: 0 }, { lastConfigChangeAt: T0 }))
      .toEqual(["LOW_RELIABILITY", "LOW_QUALITY", "LOW_FINANCIAL", "LOW_SECURITY"]);
  });
});

describe("classifyChange", () => {
  const config: AgentConfiguration = {
    modelProvider: "openai",
    modelName: "gpt-4o",
    systemPromptHash: "p1",
    tools: ["search", "web"],
    memoryConfig: { kind: "vector", size: 10 },
  };

  it("finds nothing in an identical configuration", () => {
    expect(classifyChange(config, { ...config })).toEqual({ changes: [], changeType: null });
  });

  it("reports a provider change once, even though the model name differs too", () => {
    expect(classifyChange(config, { ...config, modelProvider: "anthropic", modelName: "claude" }))
      .toEqual({ changes: ["provider_change"], changeType: "provider_change" });
    expect(classifyChange(config, { ...config, modelProvider: "azure" }).changes).toEqual(["provider_change"]);
  });

  it("reports a model swap within one provider", () => {
    expect(classifyChange(config, { ...config, modelName: "gpt-4o-mini" })).toEqual({ changes: ["model_swap"], changeType: "model_swap" });
  });

  it("reports a prompt change, with null and missing equal", () => {
    expect(classifyChange(config, { ...config, systemPromptHash: "p2" }).changeType).toBe("prompt_change");
    const noPrompt = { ...config, systemPromptHash: null };
    const missingPrompt = { ...config, systemPromptHash: undefined } as unknown as AgentConfiguration;
    expect(classifyChange(noPrompt, missingPrompt).changes).toEqual([]);
    expect(classifyChange(config, noPrompt).changes).toEqual(["prompt_change"]);
  });

  it("compares tools as sets", () => {
    expect(classifyChange(config, { ...config, tools: ["web", "search", "web"] }).changes).toEqual([]);
    expect(classifyChange(config, { ...config, tools: ["web"] }).changes).toEqual(["tools_change"]);
    expect(classifyChange(config, { ...config, tools: ["search", "web", "shell"] }).changes).toEqual(["tools_change"]);
  });

  it("compares memoryConfig by canonical JSON, with null and missing equal", () => {
    expect(classifyChange(config, { ...config, memoryConfig: { size: 10, kind: "vector" } }).changes).toEqual([]);
    expect(classifyChange(config, { ...config, memoryConfig: { kind: "vector", size: 20 } }).changes).toEqual(["memory_change"]);
    const noMemory = { ...config, memoryConfig: null };
    const missingMemory = { ...config, memoryConfig: undefined } as unknown as AgentConfiguration;
    expect(classifyChange(noMemory, missingMemory).changes).toEqual([]);
    expect(classifyChange(config, noMemory).changes).toEqual(["memory_change"]);
  });

  it("lists several changes most severe first", () => {
    const next: AgentConfiguration = { modelProvider: "anthropic", modelName: "claude", systemPromptHash: "p2", tools: [], memoryConfig: null };
    expect(classifyChange(config, next)).toEqual({
      changes: ["provider_change", "prompt_change", "tools_change", "memory_change"],
      changeType: "provider_change",
    });
    expect(classifyChange(config, { ...config, modelName: "o3", tools: [] }).changes).toEqual(["model_swap", "tools_change"]);
  });

  it("detects a change exactly when the canonical configuration differs", () => {
    const variants: AgentConfiguration[] = [
      config,
      { ...config, tools: ["web", "search"] },
      { ...config, modelName: "x" },
      { ...config, memoryConfig: {} },
      { ...config, memoryConfig: null },
      { ...config, systemPromptHash: null },
    ];
    for (const a of variants) {
      for (const b of variants) {
        const differs = canonicalConfiguration(a) !== canonicalConfiguration(b);
        expect(classifyChange(a, b).changes.length > 0).toBe(differs);
      }
    }
  });
});

describe("applyConfigChange", () => {
  const trained = () =>
    stateWith({
      reliability: dimAt(900, 30),
      quality: dimAt(200, 30),
      financial: dimAt(700, 30),
      security: dimAt(800, 30),
      stability: dimAt(100, 30),
    });

  it("changes nothing when nothing changed", () => {
    const s = { ...trained(), lastConfigChangeAt: T0 - 100 * DAY };
    const next = applyConfigChange(s, [], T0);
    expect(next.dims).toEqual(s.dims);
    expect(next.lastConfigChangeAt).toBe(T0 - 100 * DAY);
  });

  it("a model swap keeps half the evidence above the prior and pulls every dimension toward 500 without crossing it", () => {
    const s = trained();
    const next = applyConfigChange(s, ["model_swap"], T0);
    for (const d of DIMENSIONS) {
      expect(above(next.dims[d]).a).toBeCloseTo(above(s.dims[d]).a * 0.5, 12);
      expect(above(next.dims[d]).b).toBeCloseTo(above(s.dims[d]).b * 0.5, 12);
    }
    expect(next.lastConfigChangeAt).toBe(T0);
    const before = scoreOf(s, ctx());
    const after = scoreOf(next, ctx());
    expectTowardMidpoint(before.dimensions, after.dimensions);
    expect(Math.abs(after.composite - 500)).toBeLessThan(Math.abs(before.composite - 500));
    expect(after.evidence).toBeCloseTo(before.evidence / 2, 9);
    expect(before.confidence).toBe("high"); // N 150
    expect(after.confidence).toBe("medium"); // N 75
  });

  it("a tools change keeps 80%, but only 60% of security evidence", () => {
    const s = trained();
    const next = applyConfigChange(s, ["tools_change"], T0);
    expect(above(next.dims.security).a).toBeCloseTo(above(s.dims.security).a * 0.6, 12);
    for (const d of ["reliability", "quality", "financial", "stability"] as const) {
      expect(above(next.dims[d]).b).toBeCloseTo(above(s.dims[d]).b * 0.8, 12);
    }
  });

  it("many changes at once multiply their factors and still never cross 500", () => {
    const s = trained();
    const next = applyConfigChange(s, ["provider_change", "prompt_change", "tools_change", "memory_change"], T0);
    const kept = 0.3 * 0.75 * 0.8 * 0.9;
    const keptSecurity = 0.3 * 0.75 * 0.6 * 0.9;
    for (const d of DIMENSIONS) {
      const k = d === "security" ? keptSecurity : kept;
      expect(above(next.dims[d]).a).toBeCloseTo(above(s.dims[d]).a * k, 12);
      expect(above(next.dims[d]).b).toBeCloseTo(above(s.dims[d]).b * k, 12);
    }
    const before = scoreOf(s, ctx());
    const after = scoreOf(next, ctx());
    expectTowardMidpoint(before.dimensions, after.dimensions);
    expect(after.evidence).toBeCloseTo(150 * (4 * kept + keptSecurity) / 5, 9);
    expect(before.confidence).toBe("high");
    expect(after.confidence).toBe("medium");
    expect(after.reasons).toContain("RECENT_CONFIG_CHANGE");
  });

  it("counts a change type listed twice once", () => {
    const s = trained();
    expect(applyConfigChange(s, ["model_swap", "model_swap"], T0)).toEqual(applyConfigChange(s, ["model_swap"], T0));
  });

  it("forgets to now first", () => {
    const s = trained();
    const next = applyConfigChange(s, ["model_swap"], T0 + 90 * DAY);
    expect(next.at).toBe(T0 + 90 * DAY);
    expect(above(next.dims.reliability).a).toBeCloseTo(above(s.dims.reliability).a * 0.25, 9);
  });

  it("on a new agent moves nothing but records the change", () => {
    const next = applyConfigChange(initialEvidence(T0), ["provider_change"], T0 + DAY);
    expect(next.dims).toEqual(initialEvidence(T0).dims);
    expect(next.lastConfigChangeAt).toBe(T0 + DAY);
  });
});

describe("operatorScore", () => {
  it("is 500 with no agents or no evidence", () => {
    expect(operatorScore([])).toBe(500);
    expect(operatorScore([{ composite: 900, evidence: 0 }])).toBe(500);
  });

  it("shrinks the evidence-weighted mean toward 500 with prior weight 50", () => {
    expect(operatorScore([{ composite: 800, evidence: 50 }])).toBe(650);
    // (50·500 + 150·800 + 50·600) / 250
    expect(operatorScore([{ composite: 800, evidence: 150 }, { composite: 600, evidence: 50 }])).toBe(700);
    expect(operatorScore([{ composite: 900, evidence: 1e6 }])).toBe(900);
  });

  it("is an integer and agrees with the running-sum form", () => {
    const agents = [{ composite: 713, evidence: 12.3 }, { composite: 455, evidence: 7.7 }];
    const score = operatorScore(agents);
    expect(Number.isInteger(score)).toBe(true);
    expect(operatorScoreFromSums(20, 713 * 12.3 + 455 * 7.7)).toBe(score);
  });
});

describe("the worked example in docs/scoring.md", () => {
  it("gives the documented numbers", () => {
    const start = Date.UTC(2026, 2, 2, 10, 0, 0);
    const H = 3_600_000;
    const row = (s: EvidenceState, now: number, R: number) => {
      const v = scoreOf(s, { now, identityLevel: 1, independentReporters: R });
      return [...DIMENSIONS.map((d) => v.dimensions[d]), v.composite, Number(v.evidence.toFixed(3)), v.confidence, v.recommendation, v.reasons];
    };
    const verified = reporterWeight({ isOwner: false, reporterVerified: true, earlierReportsInWindow: 0 });
    const owner = reporterWeight({ isOwner: true, reporterVerified: true, earlierReportsInWindow: 0 });
    let s = initialEvidence(start);
    s = applyTransaction(s, { outcome: "success", signals: { reliability: 920, quality: 850, security: 900 } }, verified, start + H);
    expect(row(s, start + H, 1)).toEqual([560, 550, 500, 557, 571, 558, 4, "low", "review", ["INSUFFICIENT_EVIDENCE", "FEW_INDEPENDENT_REPORTERS"]]);
    s = applyTransaction(s, { outcome: "success", signals: { reliability: 880, quality: 800, financial: 950, security: 870 } }, verified, start + 2 * H);
    expect(row(s, start + 2 * H, 2)).toEqual([600, 581, 564, 596, 625, 592, 8.999, "low", "review", ["INSUFFICIENT_EVIDENCE"]]);
    s = applyTransaction(s, { outcome: "partial", signals: { reliability: 700, quality: 750 } }, verified, start + 3 * H);
    expect(row(s, start + 3 * H, 3)).toEqual([611, 600, 564, 596, 611, 598, 11.996, "low", "review", ["INSUFFICIENT_EVIDENCE"]]);
    s = applyTransaction(s, { outcome: "success", signals: allSignals(1000) }, owner, start + 4 * H);
    expect(row(s, start + 4 * H, 3)).toEqual([622, 611, 579, 608, 622, 610, 13.242, "low", "review", ["INSUFFICIENT_EVIDENCE"]]);
    const before: AgentConfiguration = { modelProvider: "openai", modelName: "gpt-4o", systemPromptHash: "9f2c", tools: ["search"], memoryConfig: null };
    const change = classifyChange(before, { ...before, modelName: "gpt-4.1" });
    expect(change).toEqual({ changes: ["model_swap"], changeType: "model_swap" });
    const swapAt = start + 26 * H;
    s = applyConfigChange(s, change.changes, swapAt);
    expect(row(s, swapAt, 3)).toEqual([573, 567, 543, 562, 573, 565, 6.574, "low", "review", ["RECENT_CONFIG_CHANGE", "INSUFFICIENT_EVIDENCE"]]);
    expect(operatorScore([{ composite: 565, evidence: scoreOf(s, ctx({ now: swapAt })).evidence }])).toBe(508);
    expect(row(s, swapAt + 90 * DAY, 3)).toEqual([541, 537, 523, 534, 541, 536, 3.287, "low", "review", ["INSUFFICIENT_EVIDENCE"]]);
  });
});
