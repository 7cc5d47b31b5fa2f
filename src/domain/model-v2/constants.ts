// The scoring model, version 2 (frozen): its constants and types. See ../model-v2.ts.

import type { ChangeType } from "../configuration";
import type { Confidence, Dimension, Outcome, Pair, Recommendation, SignalDimension } from "../model/vocabulary";

/** Most important first: the order `reasons` lists them in (LOW_* among themselves: lowest score first). */
export const REASON_CODES = [
  "LOW_RELIABILITY",
  "LOW_QUALITY",
  "LOW_SECURITY",
  "LOW_FINANCIAL",
  "LOW_STABILITY",
  "RECENT_CONFIG_CHANGE",
  "NO_OWNER",
  "OPERATOR_RECORD",
  "FEW_INDEPENDENT_REPORTERS",
  "INSUFFICIENT_EVIDENCE",
  "IDENTITY_UNVERIFIED",
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

const DAY_MS = 86_400_000;

/** Every constant of the model, named once. docs/scoring.md has the same table. */
export const MODEL = {
  version: 2,
  /** α0 = β0: pseudo-observations on each side, so a new agent is 500 and one report barely moves it. */
  prior: 3,
  outcomeValue: { success: 1.0, partial: 0.5, timeout: 0.25, error: 0.1, failure: 0.0 },
  reporterBase: { verified: 1.0, unverified: 0.75, owner: 0.25 },
  /** Weight factor of a report that carries a valid receipt signed by the agent's own key. */
  receiptFactor: 1.5,
  /** Earlier reports by the same operator on the same agent within this window damp the next one. */
  dampingWindowMs: DAY_MS,
  /** Most evidence one reporter holds per dimension (a + b), before the penalty factor. */
  cap: { reporter: 10, owner: 2.5 },
  /** Evidence above the prior halves every halfLife: `good` where α ≥ β, `bad` where α < β. */
  halfLifeMs: { good: 90 * DAY_MS, bad: 365 * DAY_MS },
  /** Evidence above the prior beyond which a dimension counts as observed (float residue below it). */
  observedEpsilon: 1e-9,
  compositeWeights: { reliability: 0.3, quality: 0.25, security: 0.2, financial: 0.15, stability: 0.1 },
  confidence: {
    high: { evidence: 100, reporters: 5 },
    medium: { evidence: 20, reporters: 2 },
    /** Identity level 0 (unverified) can at best reach this. */
    unverifiedCap: "medium",
  },
  recommendation: {
    /** "Looks bad": composite below this, */
    cautionBelowComposite: 400,
    /** or one of cautionDimensions below this, */
    cautionBelowDimension: 350,
    cautionDimensions: ["reliability", "security", "stability"],
    /** or, with N at least this much evidence, one of midpointDimensions below 500. */
    midpointFromEvidence: 20,
    midpointDimensions: ["reliability", "stability"],
    /**
     * Corroborated: at least max(minReporters, ⌈R / reporterShareDivisor⌉) non-owner reporters
     * negative (a < b) on one of these dimensions, where the agent scores below 500, with at least
     * minEvidence of their own evidence (a + b) there. The same number of reporters negative on one
     * of these dimensions, whatever the agent scores there, is a corroborated objection: it
     * withholds clear.
     */
    corroboration: {
      minReporters: 2,
      reporterShareDivisor: 3,
      dimensions: ["reliability", "security", "stability"],
      minEvidence: 0.5,
    },
    /**
     * Clear: composite at least this, every dimension at least clearMinDimension, R at least
     * clearMinReporters, an owner, and no corroborated objection (see corroboration).
     */
    clearFromComposite: 700,
    clearMinDimension: 450,
    clearMinReporters: 3,
  },
  /** A dimension below this is named in the reasons (LOW_*). */
  lowDimensionBelow: 450,
  /** OPERATOR_RECORD when the owner's operator score is below this. */
  operatorRecordBelow: 400,
  /** FEW_INDEPENDENT_REPORTERS when R is below this (the bar for clear). */
  fewReportersBelow: 3,
  /** INSUFFICIENT_EVIDENCE when N is below this (the bar for medium confidence). */
  insufficientEvidenceBelow: 20,
  maxReasons: 4,
  recentConfigChangeMs: 30 * DAY_MS,
  /** R counts distinct non-owner operators whose last report is at most this old. */
  independentReporterWindowMs: 90 * DAY_MS,
  /** Fraction of evidence above the prior each change keeps on a dimension above 500; `security` overrides `all`. */
  changeKept: {
    provider_change: { all: 0.3 },
    model_swap: { all: 0.5 },
    prompt_change: { all: 0.75 },
    tools_change: { all: 0.8, security: 0.6 },
    memory_change: { all: 0.9 },
  },
  operatorPriorWeight: 50,
  /** `withdrawals` withdrawn reports within `windowMs` halve (factor) weight and cap for `durationMs`. */
  penalty: { withdrawals: 3, windowMs: 90 * DAY_MS, durationMs: 90 * DAY_MS, factor: 0.5 },
  /** A reporter outside the R window whose evidence (all dimensions) has faded below this is dropped. */
  pruneBelow: 1e-6,
} as const satisfies {
  outcomeValue: Record<Outcome, number>;
  compositeWeights: Record<Dimension, number>;
  changeKept: Record<ChangeType, { all: number } & Partial<Record<Dimension, number>>>;
  confidence: { unverifiedCap: Confidence; [key: string]: unknown };
  recommendation: {
    cautionDimensions: readonly Dimension[];
    midpointDimensions: readonly Dimension[];
    corroboration: { dimensions: readonly Dimension[]; [key: string]: unknown };
    [key: string]: unknown;
  };
  [key: string]: unknown;
};

/** `lastAt`: the reporter's last report time (ms). */
export interface ReporterState {
  dims: Record<Dimension, Pair>;
  lastAt: number;
}

/**
 * JSON-serialisable working state of one agent. `reporters` is keyed by the reporting operator's id
 * as a string; `at` is the time the evidence was last forgotten to.
 */
export interface AgentEvidence {
  at: number;
  reporters: Record<string, ReporterState>;
  lastConfigChangeAt: number | null;
}

export interface ReportInput {
  /** Reporting operator id. */
  reporter: number;
  /** Report time (ms). */
  at: number;
  outcome: Outcome;
  /** 0..1000. */
  signals: Partial<Record<SignalDimension, number>>;
  /** Reporter base at report time (baseFor): 1.0 verified non-owner, 0.75 unverified non-owner, 0.25 owner. */
  base: number;
  /** 1.5 with a valid receipt, else 1 (evidenceFactor). */
  evidence: number;
  /** 0.5 while the reporter is penalised (penaltyAt), else 1: halves weight and cap. */
  penalty: number;
}

export type HistoryEvent = ({ kind: "report" } & ReportInput) | { kind: "config"; at: number; changes: ChangeType[] };

export interface ScoreView {
  composite: number;
  dimensions: Record<Dimension, number>;
  confidence: Confidence;
  recommendation: Recommendation;
  /** N: evidence above the prior, summed over dimensions and reporters, unrounded. */
  evidence: number;
  /** R: distinct non-owner reporters whose last report is within the R window. */
  independentReporters: number;
  reasons: ReasonCode[];
}

export interface Contribution {
  evidence: number;
  composite: number;
}
