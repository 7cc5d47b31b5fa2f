// The worked example of docs/scoring.md, built on the version 3 model's functions: the test recomputes
// the page's table from it (test/domain/scoring-doc.test.ts).

import {
  DIMENSIONS,
  applyConfigChange,
  applyCredibility,
  applyReport,
  baseFor,
  emptyState,
  scoreOf,
  type AgentState,
  type Outcome,
  type ScoreView,
  type SignalDimension,
} from "../../src/domain/model/index";

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const REGISTERED = Date.UTC(2026, 2, 2, 10);
export const OWNER = "1";
/** A, B and D hold standing (c = 1 from the credibility entry); C has none (seed 0.25); E is a competitor with standing. */
export const [A, B, C, D, E] = ["2", "3", "4", "5", "6"];

export interface Step {
  label: string;
  at: number;
  view: ScoreView;
  state: AgentState;
}

export function workedExample(): { steps: Step[]; weights: number[] } {
  let state = emptyState(REGISTERED);
  const sent = new Map<string, number[]>();
  const weights: number[] = [];
  const steps: Step[] = [];
  const at = (day: number, hour: number) => REGISTERED - 10 * HOUR + day * DAY + hour * HOUR;
  const report = (reporter: string, when: number, outcome: Outcome, signals: Partial<Record<SignalDimension, number>>, receipt = false) => {
    const k = (sent.get(reporter) ?? []).filter((t) => t > when - DAY).length;
    const input = { reporter, at: when, outcome, signals, base: baseFor({ isOwner: reporter === OWNER, verified: true }), evidence: receipt ? 1.5 : 1, penalty: 1 };
    const applied = applyReport(state, input, OWNER, k);
    state = applied.state;
    weights.push(applied.weight);
    sent.set(reporter, [...(sent.get(reporter) ?? []), when]);
  };
  const step = (label: string, when: number) => steps.push({ label, at: when, view: scoreOf(state, { now: when, ownerId: OWNER, identityLevel: 1, operatorScore: 500 }), state });
  const good = { reliability: 900, quality: 850 };

  step("registration", REGISTERED);
  state = applyCredibility(state, { at: at(0, 10.5), values: { [A]: 1, [B]: 1, [D]: 1 }, bootstrap: false });
  for (const day of [0, 1]) {
    report(A, at(day, 11), "success", good);
    report(B, at(day, 12), "success", good);
    report(C, at(day, 13), "success", good);
  }
  step("day 1 (A, B, C twice)", at(1, 13));
  report(D, at(2, 14), "success", { reliability: 950, quality: 900 });
  for (const day of [2, 3]) {
    report(A, at(day, 11), "success", good);
    report(B, at(day, 12), "success", good);
    report(C, at(day, 13), "success", good);
  }
  report(D, at(3, 14), "success", { reliability: 950, quality: 900 });
  step("day 3 (D joined on day 2)", at(3, 14));
  state = applyCredibility(state, { at: at(4, 9), values: { [E]: 1 }, bootstrap: false });
  for (let i = 0; i < 5; i++) report(E, at(4, 15) + i * 60_000, "failure", { reliability: 0, quality: 0 }, true);
  step("day 4 (E slanders, 5 receipts)", at(4, 15.1));
  state = applyConfigChange(state, ["model_swap"], at(5, 9));
  step("model swap (day 5, 09:00)", at(5, 9));
  for (const day of [5, 6]) {
    report(A, at(day, 11), "success", good);
    report(B, at(day, 12), "success", good);
    report(C, at(day, 13), "success", good);
    report(D, at(day, 14), "success", { reliability: 950, quality: 900 });
    report(E, at(day, 15), "failure", { reliability: 0, quality: 0 }, true);
  }
  step("day 6", at(6, 15));
  for (const r of [A, B, C, D]) report(r, at(7, 10), "failure", { reliability: 100 });
  step("day 7, 10:00 (A, B, C, D fail)", at(7, 10));
  for (const r of [A, B, C, D]) report(r, at(7, 11), "failure", { reliability: 100 });
  step("day 7, 11:00 (they fail again)", at(7, 11));
  step("100 idle days later", at(7, 11) + 100 * DAY);
  step("366 idle days later", at(7, 11) + 366 * DAY);
  return { steps, weights };
}

/** A row of the page's table for a step. */
export function cells(s: Step): string[] {
  const v = s.view;
  return [
    s.label,
    ...DIMENSIONS.map((d) => String(v.dimensions[d])),
    String(v.composite),
    v.evidence.toFixed(3),
    v.independentReporters.toFixed(2),
    v.confidence,
    v.recommendation,
    v.reasons.join(", "),
  ];
}
