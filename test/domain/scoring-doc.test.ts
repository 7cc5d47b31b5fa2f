// The worked example of docs/scoring.md, recomputed: the test reads the example's table from the
// page and checks every cell against the model.

import { describe, expect, it } from "vitest";
import doc from "../../docs/scoring.md?raw";
import {
  DIMENSIONS,
  applyConfigChange,
  applyReport,
  baseFor,
  emptyEvidence,
  forgetTo,
  independentContribution,
  objectingReporters,
  operatorScore,
  scoreOf,
  type AgentEvidence,
  type Dimension,
  type Outcome,
  type ReportInput,
  type ScoreView,
  type SignalDimension,
} from "../../src/domain/model";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const REGISTERED = Date.UTC(2026, 2, 2, 10);
const OWNER = 1;
const [A, B, C] = [2, 3, 4];
const VERIFIED: Record<number, boolean> = { [OWNER]: true, [A]: true, [B]: true, [C]: false };

/** The example's history, as the agent's object folds it; the score after each step. */
function workedExample() {
  let state = emptyEvidence(REGISTERED);
  const sent = new Map<number, number[]>();
  const weights: number[] = [];
  const rows: { label: string; view: ScoreView }[] = [];
  const view = (now: number) => scoreOf(state, { now, ownerId: OWNER, identityLevel: 1, operatorScore: 500 });
  const report = (reporter: number, at: number, outcome: Outcome, signals: Partial<Record<SignalDimension, number>>) => {
    const earlier = (sent.get(reporter) ?? []).filter((t) => t > at - DAY);
    const input: ReportInput = { reporter, at, outcome, signals, base: baseFor({ isOwner: reporter === OWNER, verified: VERIFIED[reporter] }), evidence: 1, penalty: 1 };
    const applied = applyReport(state, input, OWNER, earlier.length);
    state = applied.state;
    weights.push(applied.weight);
    sent.set(reporter, [...(sent.get(reporter) ?? []), at]);
  };
  const step = (label: string, now: number) => rows.push({ label, view: view(now) });

  step("registration", REGISTERED);
  report(A, REGISTERED + HOUR, "success", { reliability: 920, quality: 850, security: 300 });
  step("A", REGISTERED + HOUR);
  const afterA: AgentEvidence = state;
  report(B, REGISTERED + 2 * HOUR, "success", { reliability: 880, quality: 800, financial: 950, security: 250 });
  step("B", REGISTERED + 2 * HOUR);
  report(C, REGISTERED + 3 * HOUR, "timeout", { reliability: 400, quality: 500 });
  step("C", REGISTERED + 3 * HOUR);
  report(OWNER, REGISTERED + 4 * HOUR, "success", { reliability: 1000, quality: 1000, financial: 1000, security: 1000 });
  step("owner", REGISTERED + 4 * HOUR);
  const swap = REGISTERED + DAY + 2 * HOUR;
  const beforeSwap = state;
  state = applyConfigChange(state, ["model_swap"], swap);
  step("model swap (next day 12:00)", swap);
  const afterSwap = state;
  let last = swap;
  for (let day = 2; day <= 15; day++) {
    [A, B, C].forEach((reporter, i) => report(reporter, REGISTERED + day * DAY + (i + 1) * HOUR, "success", { reliability: 900, quality: 850 }));
    last = REGISTERED + day * DAY + 3 * HOUR;
    if ([2, 3, 9, 10, 15].includes(day)) step(`day ${day}`, last);
  }
  const day15 = state;
  const last15 = last;
  // Day 16 as every day, and A rates security again, well: its own security evidence turns positive.
  [A, B, C].forEach((reporter, i) =>
    report(reporter, REGISTERED + 16 * DAY + (i + 1) * HOUR, "success", reporter === A ? { reliability: 900, quality: 850, security: 800 } : { reliability: 900, quality: 850 }),
  );
  last = REGISTERED + 16 * DAY + 3 * HOUR;
  step("day 16 (A also rates security 800)", last);
  const day16 = state;
  step("100 idle days after day 16", last + 100 * DAY);
  return { rows, weights, afterA, beforeSwap, afterSwap, day15, last15, day16, last };
}

/** The rows of the example's table on the page, cells trimmed. */
function documentedRows(): string[][] {
  const section = doc.split("<!-- worked example: begin -->")[1]?.split("<!-- worked example: end -->")[0];
  if (!section) throw new Error("docs/scoring.md has no worked example table");
  return section
    .trim()
    .split("\n")
    .slice(2)
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
}

const cells = (label: string, v: ScoreView) => [
  label,
  ...DIMENSIONS.map((d) => String(v.dimensions[d])),
  String(v.composite),
  v.evidence.toFixed(3),
  String(v.independentReporters),
  v.confidence,
  v.recommendation,
  v.reasons.join(", "),
];

describe("the worked example of docs/scoring.md", () => {
  const example = workedExample();

  it("has the table the model computes, cell for cell", () => {
    // DIMENSIONS order is the table's: reliability, quality, financial, security, stability.
    expect(DIMENSIONS).toEqual(["reliability", "quality", "financial", "security", "stability"]);
    expect(documentedRows()).toEqual(example.rows.map((r) => cells(r.label, r.view)));
  });

  it("weighs the reports as the page says", () => {
    expect(example.weights.slice(0, 4)).toEqual([1, 1, 0.75, 0.25]);
    expect(example.weights.slice(4)).toEqual(Array.from({ length: 15 }, () => [1, 1, 0.75]).flat()); // daily: never damped
  });

  it("has the numbers of the hand computation after A", () => {
    const a = example.afterA.reporters[String(A)].dims;
    expect(a.reliability.a).toBe(0.92);
    expect(a.reliability.b).toBeCloseTo(0.08, 15);
    const view = example.rows[1].view;
    expect(view.dimensions).toMatchObject({ reliability: 560, stability: 571, security: 471, financial: 500 });
    expect(500 + (0.3 * 60 + 0.25 * 50 + 0.2 * -29 + 0.1 * 71) / 0.85).toBeCloseTo(537.4, 1);
    expect(view.composite).toBe(537);
    expect(doc).toContain("`round(1000 · 3.92 / 7) = 560`");
    expect(doc).toContain("= 537.4 → 537");
  });

  it("keeps security's evidence through the swap and halves the rest", () => {
    const forgotten = forgetTo(example.beforeSwap, example.afterSwap.at);
    for (const id of Object.keys(forgotten.reporters)) {
      const before = forgotten.reporters[id].dims;
      const after = example.afterSwap.reporters[id].dims;
      expect(after.security).toEqual(before.security);
      for (const d of ["reliability", "quality", "financial", "stability"] as const) expect(after[d]).toEqual({ a: before[d].a * 0.5, b: before[d].b * 0.5 });
    }
  });

  it("keeps 46% of the good evidence and 83% of security's over 100 idle days", () => {
    const idle = forgetTo(example.day16, example.last + 100 * DAY);
    const total = (s: AgentEvidence, d: Dimension) => Object.values(s.reporters).reduce((n, r) => n + r.dims[d].a + r.dims[d].b, 0);
    expect(total(idle, "reliability") / total(example.day16, "reliability")).toBeCloseTo(2 ** (-100 / 90), 12);
    expect(total(idle, "security") / total(example.day16, "security")).toBeCloseTo(2 ** (-100 / 365), 12);
    expect(doc).toContain("`2^(−100/90)` = 46%");
    expect(doc).toContain("`2^(−100/365)` = 83%");
    expect(Math.round(100 * 2 ** (-100 / 90))).toBe(46);
    expect(Math.round(100 * 2 ** (-100 / 365))).toBe(83);
  });

  it("withholds clear while A and B object on security, and gives it once A's own security evidence is positive", () => {
    expect(objectingReporters(example.day15, OWNER)).toBe(2);
    const a = example.day16.reporters[String(A)].dims.security;
    expect([a.a.toFixed(2), a.b.toFixed(2)]).toEqual(["1.09", "0.88"]);
    expect(objectingReporters(example.day16, OWNER)).toBe(1);
    expect(doc).toContain("`(1.09, 0.88)`");
  });

  it("gives the operator score the page gives", () => {
    const c = independentContribution(example.day15, OWNER, example.last15);
    expect(c.evidence.toFixed(1)).toBe("92.4");
    expect(c.composite).toBe(705);
    expect(operatorScore([c])).toBe(633);
    expect(doc).toContain("`N = 92.4`, `c = 705`");
    expect(doc).toContain("`round((50·500 + 92.4·705) / 142.4) = 633`");
  });
});
