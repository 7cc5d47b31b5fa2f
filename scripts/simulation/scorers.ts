// The agent's object as the service runs it, under either model: reports in time order with k counted
// per reporter over the damping window; under version 3 also the credibility entries (a reporter's
// value from the credibility source before its first report, every reporter's when the source
// changes) and the daily rollup rows the standing job reads.

import * as v2 from "../../src/domain/model-v2";
import {
  MODEL,
  addToRollup,
  applyConfigChange,
  applyCredibility,
  applyReport,
  baseFor,
  credibilityUpdate,
  dayOf,
  emptyState,
  evidenceFactor,
  independentContribution,
  isEstablished,
  scoreOf,
  seedSource,
  type AgentState,
  type Contribution,
  type CredibilitySource,
  type Dimension,
  type Recommendation,
  type RollupRow,
} from "../../src/domain/model/index";
import { POPULATION, type SimReport } from "./population";

export interface View {
  composite: number;
  dimensions: Record<Dimension, number>;
  recommendation: Recommendation;
  credible: number;
}

export interface Scorer {
  readonly model: 2 | 3;
  report(r: SimReport): void;
  providerChange(at: number): void;
  view(now: number, operatorScore?: number): View;
  contribution(now: number): { evidence: number; composite: number };
  /** Version 3: ask the credibility source again for every reporter (a new snapshot). */
  refresh(at: number, source?: CredibilitySource): void;
  fork(): Scorer;
}

/** Where a version 3 agent writes its rollup rows (one per reporter, agent and UTC day). */
export class RollupSink {
  readonly rows = new Map<string, RollupRow>();
  all(): RollupRow[] {
    return [...this.rows.values()];
  }
}

function pushRecent(recent: Map<number, number[]>, reporter: number, at: number): number {
  const since = at - MODEL.dampingWindowMs;
  const earlier = recent.get(reporter) ?? [];
  while (earlier.length > 0 && !(earlier[0] > since)) earlier.shift();
  const k = earlier.length;
  earlier.push(at);
  recent.set(reporter, earlier);
  return k;
}

export class ScorerV2 implements Scorer {
  readonly model = 2 as const;
  state: v2.AgentEvidence;
  private recent = new Map<number, number[]>();
  constructor(
    readonly ownerId: number | null,
    createdAt: number,
    readonly identityLevel: number = POPULATION.identityLevel,
  ) {
    this.state = v2.emptyEvidence(createdAt);
  }
  report(r: SimReport): void {
    const k = pushRecent(this.recent, r.reporter, r.at);
    const base = v2.baseFor({ isOwner: r.reporter === this.ownerId, verified: r.verified });
    const input = { reporter: r.reporter, at: r.at, outcome: r.outcome, signals: r.signals, base, evidence: v2.evidenceFactor(r.receipt), penalty: 1 };
    this.state = v2.applyReport(this.state, input, this.ownerId, k).state;
  }
  providerChange(at: number): void {
    this.state = v2.applyConfigChange(this.state, ["provider_change"], at);
  }
  view(now: number, operatorScore = 500): View {
    const v = v2.scoreOf(this.state, { now, ownerId: this.ownerId, identityLevel: this.identityLevel, operatorScore });
    return { composite: v.composite, dimensions: v.dimensions, recommendation: v.recommendation, credible: v.independentReporters };
  }
  contribution(now: number) {
    return v2.independentContribution(this.state, this.ownerId, now);
  }
  refresh(): void {}
  fork(): ScorerV2 {
    const copy = new ScorerV2(this.ownerId, this.state.at, this.identityLevel);
    copy.state = this.state;
    for (const [k, t] of this.recent) copy.recent.set(k, [...t]);
    return copy;
  }
}

export class ScorerV3 implements Scorer {
  readonly model = 3 as const;
  state: AgentState;
  private recent = new Map<number, number[]>();
  private readonly ownerKey: string | null;
  constructor(
    readonly ownerId: number | null,
    createdAt: number,
    public source: CredibilitySource = seedSource,
    readonly identityLevel: number = POPULATION.identityLevel,
    readonly sink: { rollups: RollupSink; agent: string } | null = null,
  ) {
    this.state = emptyState(createdAt);
    this.ownerKey = ownerId === null ? null : String(ownerId);
  }
  report(r: SimReport): void {
    const key = String(r.reporter);
    if (!this.state.reporters[key]) {
      const entry = credibilityUpdate(this.state, this.source, this.ownerKey, r.at, { reporter: key, verified: r.verified });
      if (entry && (entry.values[key] !== undefined || entry.bootstrap !== this.state.bootstrap)) {
        this.state = applyCredibility(this.state, { at: r.at, values: entry.values[key] === undefined ? {} : { [key]: entry.values[key] }, bootstrap: entry.bootstrap });
      }
    }
    const k = pushRecent(this.recent, r.reporter, r.at);
    const base = baseFor({ isOwner: key === this.ownerKey, verified: r.verified });
    const input = { reporter: key, at: r.at, outcome: r.outcome, signals: r.signals, base, evidence: evidenceFactor(r.receipt), penalty: 1 };
    this.state = applyReport(this.state, input, this.ownerKey, k).state;
    if (this.sink) {
      const id = `${key}|${this.sink.agent}|${dayOf(r.at)}`;
      const established = isEstablished(this.state.reporters[key], r.at);
      const row = { reporter: key, agent: this.sink.agent, owner: this.ownerKey, at: r.at, outcome: r.outcome, signals: r.signals, receipted: r.receipt, established };
      this.sink.rollups.rows.set(id, addToRollup(this.sink.rollups.rows.get(id) ?? null, row));
    }
  }
  providerChange(at: number): void {
    this.state = applyConfigChange(this.state, ["provider_change"], at);
  }
  view(now: number, operatorScore = 500): View {
    const v = scoreOf(this.state, { now, ownerId: this.ownerKey, identityLevel: this.identityLevel, operatorScore });
    return { composite: v.composite, dimensions: v.dimensions, recommendation: v.recommendation, credible: v.independentReporters };
  }
  contribution(now: number): Contribution {
    return independentContribution(this.state, now);
  }
  refresh(at: number, source?: CredibilitySource): void {
    if (source) this.source = source;
    const entry = credibilityUpdate(this.state, this.source, this.ownerKey, at);
    if (entry) this.state = applyCredibility(this.state, entry);
  }
  fork(): ScorerV3 {
    const copy = new ScorerV3(this.ownerId, this.state.at, this.source, this.identityLevel, this.sink);
    copy.state = this.state;
    for (const [k, t] of this.recent) copy.recent.set(k, [...t]);
    return copy;
  }
}

export type ModelVersion = 2 | 3;

export function newScorer(model: ModelVersion, ownerId: number | null, createdAt: number, source: CredibilitySource, identityLevel?: number): Scorer {
  return model === 2 ? new ScorerV2(ownerId, createdAt, identityLevel) : new ScorerV3(ownerId, createdAt, source, identityLevel);
}
