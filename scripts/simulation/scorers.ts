// An agent's object as the service runs version 4: reports in time order, a `credibility` entry with
// the snapshot's value before a reporter's first report, every reporter's when a new snapshot is
// taken up, configuration changes; the score read after every report.

import {
  applyConfigChange,
  applyCredibility,
  applyReport,
  credibilityUpdate,
  dayOf,
  emptyModel,
  operatorContribution,
  scoreOf,
  type AgentModel,
  type Contribution,
  type CredibilitySource,
  type Dimension,
  type PairState,
  type Recommendation,
} from "../../src/domain/model/index";
import { POPULATION, type SimReport } from "./population";
import type { JobPair } from "./world";

export interface View {
  composite: number;
  s: number;
  dimensions: Record<Dimension, number>;
  recommendation: Recommendation;
  credible: number;
}

export class Scorer {
  model: AgentModel;
  pairs = new Map<string, PairState>();
  private readonly ownerKey: string | null;
  constructor(
    readonly ownerId: number | null,
    createdAt: number,
    public source: CredibilitySource,
    readonly identityLevel: number = POPULATION.identityLevel,
  ) {
    this.model = emptyModel(createdAt);
    this.ownerKey = ownerId === null ? null : String(ownerId);
  }
  private credibility(at: number, reporter?: string): void {
    const entry = credibilityUpdate(this.pairs, this.source, this.ownerKey, at, reporter);
    if (!entry) return;
    const r = applyCredibility(this.model, this.pairs, entry);
    this.model = r.model;
    for (const p of r.pairs) this.pairs.set(p.reporter, p);
  }
  report(r: SimReport): void {
    const key = String(r.reporter);
    // The object asks the snapshot for a new reporter's value before its first report.
    if (!this.pairs.has(key)) this.credibility(r.at, key);
    const applied = applyReport(this.model, this.pairs.get(key) ?? null, { reporter: key, at: r.at, outcome: r.outcome, signals: r.signals, receipt: r.receipt }, this.ownerKey);
    this.model = applied.model;
    this.pairs.set(key, applied.pair);
  }
  providerChange(at: number): void {
    const r = applyConfigChange(this.model, this.pairs, ["provider_change"], at);
    this.model = r.model;
    for (const p of r.pairs) this.pairs.set(p.reporter, p);
  }
  view(now: number, operatorScore = 500): View {
    const v = scoreOf(this.model, { now, owned: this.ownerKey !== null, identityLevel: this.identityLevel, operatorScore });
    return { composite: v.composite, s: v.s, dimensions: v.dimensions, recommendation: v.recommendation, credible: v.credible };
  }
  contribution(now: number): Contribution {
    return operatorContribution(this.model, now);
  }
  /** Takes up a new snapshot (the agent's alarm): a credibility entry when its reporters' values changed. */
  refresh(at: number, source?: CredibilitySource): void {
    if (source) this.source = source;
    this.credibility(at);
  }
  fork(): Scorer {
    const copy = new Scorer(this.ownerId, this.model.at, this.source, this.identityLevel);
    copy.model = this.model;
    copy.pairs = new Map(this.pairs);
    return copy;
  }
  /** The agent's pairs as the job reads them, under agent index `agent`. */
  jobPairs(agent: number): JobPair[] {
    return [...this.pairs.values()]
      .filter((p) => p.reports > 0)
      .map((p) => ({ agent, reporter: Number(p.reporter), vote: p.votes.stability ?? -1, firstAt: p.firstAt, receiptDay: p.firstReceiptAt === null ? -1 : dayOf(p.firstReceiptAt) }));
  }
}
