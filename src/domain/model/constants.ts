// Every constant of the scoring model, version 4, named once (docs/scoring.md, "Version 4:
// constants", has the same table and test/domain/model/constants-doc.test.ts checks them).
//
// Units: a vote is an integer in 0..1000 (v × 1000); a credibility is an integer level in 0..20
// (c × 20: the job publishes c to 0.05). Every sum the decisions read is then a sum of integers, so
// the agent's aggregates are exact whatever order reports, removals and credibility changes came in.

import type { ChangeType } from "../configuration";
import type { Confidence, Dimension, Outcome } from "./vocabulary";
import { DAY_MS, HOUR_MS } from "./vocabulary";

/** Most important first: the order `reasons` lists them in (LOW_* among themselves: lowest score first). */
export const REASON_CODES = [
  "LOW_RELIABILITY",
  "LOW_QUALITY",
  "LOW_SECURITY",
  "LOW_FINANCIAL",
  "LOW_STABILITY",
  "RECENT_FAILURES",
  "SIMILAR_TO_CAUTIONED",
  "RECENT_CONFIG_CHANGE",
  "NO_OWNER",
  "OPERATOR_RECORD",
  "FEW_INDEPENDENT_REPORTERS",
  "INSUFFICIENT_EVIDENCE",
  "IDENTITY_UNVERIFIED",
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export const MODEL_V4 = {
  version: 4,
  /** Observation of the outcome on stability (× 1000). */
  outcomeValue: { success: 1000, partial: 500, timeout: 250, error: 100, failure: 0 },
  /** A pair's vote after its first report moves this share of the way to each new observation. */
  voteStep: 0.35,
  /** Credibility levels per unit: c is published to 1/20 = 0.05. */
  levels: 20,
  /** The prior mass m that shrinks every dimension toward 500. */
  prior: 2,
  /** The owner's own vote enters the dimension sums with this credibility (never the masses). */
  ownerCredibility: 0.25,
  compositeWeights: { reliability: 0.3, quality: 0.25, security: 0.2, financial: 0.15, stability: 0.1 },
  /** A vote (stability) fails at or below this observation: timeout, error, failure. */
  failAtOrBelow: 250,
  caution: {
    /** S at or below this, */
    atOrBelow: 450,
    /** credible negative mass at least this, */
    negativeMass: 1,
    /** and at least this without the most credible negative reporter. */
    withoutTop: 0.5,
  },
  fastCaution: {
    /** Votes whose last report is within this many whole hours. */
    windowMs: 48 * HOUR_MS,
    failing: 2,
    withoutTop: 1,
    share: 3 / 4,
  },
  recentFailures: {
    /** Failing votes within this many whole days count, at `failingWeight` each; other votes within the fast caution's window at 1. */
    windowMs: 30 * DAY_MS,
    failingWeight: 2,
    failing: 2,
    withoutTop: 0.5,
    share: 2 / 3,
  },
  clear: { atLeast: 700, positiveMass: 3, minDimension: 450, operatorScore: 400 },
  /** For afterMs after the agent was last in caution, a positive newcomer counts after tenureMs (whole days) on it. */
  episode: { tenureMs: 30 * DAY_MS, afterMs: 90 * DAY_MS },
  /** Fraction of a vote's distance from 500 each change keeps, on a dimension above 500; `security` overrides `all`. */
  changeKept: {
    provider_change: { all: 0.3 },
    model_swap: { all: 0.5 },
    prompt_change: { all: 0.75 },
    tools_change: { all: 0.8, security: 0.6 },
    memory_change: { all: 0.9 },
  },
  confidence: {
    high: { credible: 5, reports: 100 },
    medium: { credible: 2, reports: 20 },
    /** Identity level 0 (unverified) can at best reach this. */
    unverifiedCap: "medium",
  },
  lowDimensionBelow: 450,
  operatorRecordBelow: 400,
  /** FEW_INDEPENDENT_REPORTERS while the credible positive mass is below this (the bar for clear). */
  fewReportersBelow: 3,
  /** INSUFFICIENT_EVIDENCE below this many reports (the bar for medium confidence). */
  insufficientEvidenceBelow: 20,
  maxReasons: 4,
  recentConfigChangeMs: 30 * DAY_MS,
  /** A caution (or suspended) agent passes its negative pairs on when it had a report within this. */
  whitewash: { reportWithinMs: 90 * DAY_MS },
  /** The operator score counts the agents with at least this credible mass without their most credible reporter (and the job's record too). */
  operatorMinMass: 1,
  /** The cross-agent job (docs/scoring.md, "The cross-agent job"). */
  credibility: {
    /** age = whole days since the reporter's first receipted report / ageDays. */
    ageDays: 30,
    /** breadth = distinct trusted owners whose agents gave the reporter a receipt / breadthOwners. */
    breadthOwners: 3,
    damping: 0.85,
    /** No single in-neighbour contributes more than this share of an owner's rank. */
    inNeighbourShare: 0.5,
    /** An owner is trusted when its rank is at least kappa × the anchors' mean rank. */
    kappa: 0.0003,
    /** Agreements count where the reporter was among the first `firstVoters` credible voters on the agent. */
    firstVoters: 5,
    /** record = clamp((S_own − recordFrom) / recordSpan, 0, 1). */
    recordFrom: 300,
    recordSpan: 200,
    /** The passes of agreement and record in one run. */
    passes: 2,
    /** PageRank stops when no rank moves by more than this (relative to the anchors' mean), or after maxIterations. */
    tolerance: 1e-7,
    maxIterations: 200,
  },
} as const satisfies {
  outcomeValue: Record<Outcome, number>;
  compositeWeights: Record<Dimension, number>;
  changeKept: Record<ChangeType, { all: number } & Partial<Record<Dimension, number>>>;
  confidence: { unverifiedCap: Confidence; [key: string]: unknown };
  [key: string]: unknown;
};

/** Levels in one unit of credibility mass, and the prior in levels. */
export const LEVELS = MODEL_V4.levels;
export const PRIOR_LEVELS = MODEL_V4.prior * LEVELS;
export const OWNER_LEVEL = MODEL_V4.ownerCredibility * LEVELS;
/** A mass threshold in levels (1.0 → 20). */
export const levelsOf = (mass: number) => Math.round(mass * LEVELS);
