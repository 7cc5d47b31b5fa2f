// Small builders for version 4's tests: an agent (its aggregates and pairs) fed entry by entry, as
// the object would, and reports.

import {
  applyConfigChange,
  applyCredibility,
  applyInheritance,
  applyReport,
  assess,
  emptyModel,
  scoreOf,
  type AgentModel,
  type ChangeType,
  type InheritanceInput,
  type Outcome,
  type PairState,
  type ScoreContext,
  type SignalDimension,
} from "../../../src/domain/model/index";

export const T0 = Date.UTC(2026, 0, 1);
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const OWNER = "1";

export const allSignals = (v: number): Record<SignalDimension, number> => ({ reliability: v, quality: v, financial: v, security: v });

export class Agent {
  model: AgentModel;
  pairs = new Map<string, PairState>();
  constructor(
    createdAt = T0,
    readonly owner: string | null = OWNER,
  ) {
    this.model = emptyModel(createdAt);
  }
  /** A `credibility` entry: c per reporter. */
  credibility(at: number, values: Record<string, number>): this {
    const r = applyCredibility(this.model, this.pairs, { at, values });
    this.model = r.model;
    for (const p of r.pairs) this.pairs.set(p.reporter, p);
    return this;
  }
  report(reporter: string, at: number, outcome: Outcome = "success", signals: Partial<Record<SignalDimension, number>> = {}, receipt = false): this {
    const r = applyReport(this.model, this.pairs.get(reporter) ?? null, { reporter, at, outcome, signals, receipt }, this.owner);
    this.model = r.model;
    this.pairs.set(reporter, r.pair);
    return this;
  }
  /** Each reporter reports `outcome` once at `at` (a minute apart). */
  all(reporters: readonly string[], at: number, outcome: Outcome = "success", signals: Partial<Record<SignalDimension, number>> = {}): this {
    reporters.forEach((r, i) => this.report(r, at + i * 60_000, outcome, signals));
    return this;
  }
  config(changes: ChangeType[], at: number): this {
    const r = applyConfigChange(this.model, this.pairs, changes, at);
    this.model = r.model;
    for (const p of r.pairs) this.pairs.set(p.reporter, p);
    return this;
  }
  inherit(input: InheritanceInput): this {
    const r = applyInheritance(this.model, this.pairs, input);
    this.model = r.model;
    for (const p of r.pairs) this.pairs.set(p.reporter, p);
    return this;
  }
  score(now: number, over: Partial<ScoreContext> = {}) {
    return scoreOf(this.model, { now, owned: this.owner !== null, identityLevel: 1, operatorScore: 500, ...over });
  }
  facts(now: number) {
    return assess(this.model, now);
  }
}

/** c = 1 for each reporter. */
export const credible = (reporters: readonly string[], c = 1) => Object.fromEntries(reporters.map((r) => [r, c]));
export const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => String(from + i));
