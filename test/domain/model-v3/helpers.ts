// Small builders for the version 3 model's tests: reports, contexts, states built report by report.

import {
  applyCredibility,
  applyReport,
  emptyState,
  scoreOf,
  type AgentState,
  type Outcome,
  type ReportInput,
  type ScoreContext,
  type SignalDimension,
} from "../../../src/domain/model/index";

export const T0 = Date.UTC(2026, 0, 1);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const OWNER = "1";

export const allSignals = (v: number): Record<SignalDimension, number> => ({ reliability: v, quality: v, financial: v, security: v });

export function report(reporter: string, at: number, over: Partial<ReportInput> = {}): ReportInput {
  return { reporter, at, outcome: "success", signals: allSignals(1000), base: 1, evidence: 1, penalty: 1, ...over };
}

export const good = (reporter: string, at: number, over: Partial<ReportInput> = {}) => report(reporter, at, { outcome: "success", signals: allSignals(950), ...over });
export const bad = (reporter: string, at: number, over: Partial<ReportInput> = {}) =>
  report(reporter, at, { outcome: "failure" as Outcome, signals: allSignals(50), ...over });

export function ctx(now: number, over: Partial<ScoreContext> = {}): ScoreContext {
  return { now, ownerId: OWNER, identityLevel: 1, operatorScore: 500, ...over };
}

/** Applies reports in order with k counted as the object does (same reporter, less than a day before). */
export class Agent {
  state: AgentState;
  private sent = new Map<string, number[]>();
  constructor(
    createdAt = T0,
    readonly owner: string | null = OWNER,
  ) {
    this.state = emptyState(createdAt);
  }
  report(input: ReportInput): this {
    const earlier = (this.sent.get(input.reporter) ?? []).filter((t) => t > input.at - DAY);
    this.state = applyReport(this.state, input, this.owner, earlier.length).state;
    this.sent.set(input.reporter, [...(this.sent.get(input.reporter) ?? []), input.at]);
    return this;
  }
  credibility(at: number, values: Record<string, number>, bootstrap = false, snapshot?: string): this {
    this.state = applyCredibility(this.state, { at, values, bootstrap, ...(snapshot === undefined ? {} : { snapshot }) });
    return this;
  }
  /** `reporter` reports `make(reporter, t)` once a day at `hour` for `days` days from `from`. */
  daily(reporters: string[], from: number, days: number, make: (r: string, at: number) => ReportInput = good): this {
    for (let d = 0; d < days; d++) for (const [i, r] of reporters.entries()) this.report(make(r, from + d * DAY + (i + 1) * 60_000));
    return this;
  }
  score(now: number, over: Partial<ScoreContext> = {}) {
    return scoreOf(this.state, ctx(now, { ownerId: this.owner, ...over }));
  }
}

/** Standing 1 (c = 1) for each of `ids`, in force from `at`. */
export const standing = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, 1]));
