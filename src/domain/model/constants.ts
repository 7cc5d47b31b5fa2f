// Every constant of the scoring model, version 3, named once (docs/scoring.md, "Constants", has the
// same table and test/domain/scoring-doc.test.ts checks one against the other).

import type { ChangeType } from "../configuration";
import type { Confidence, Dimension, Outcome } from "./vocabulary";

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

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export const MODEL = {
  version: 3,
  /** α0 = β0: pseudo-observations on each side, so a new agent is 500 and one report barely moves it. */
  prior: 3,
  outcomeValue: { success: 1.0, partial: 0.5, timeout: 0.25, error: 0.1, failure: 0.0 },
  reporterBase: { verified: 1.0, unverified: 0.75, owner: 0.25 },
  /** Weight factor of a report that carries a valid receipt signed by the agent's own key. */
  receiptFactor: 1.5,
  /** Earlier reports by the same operator on the same agent within this window damp the next one. */
  dampingWindowMs: DAY_MS,
  /**
   * Most raw evidence one reporter holds per dimension (a + b), before the penalty factor: `reporter`
   * for any non-owner, also at most `perDay` × the distinct UTC days it reported on the agent (R2);
   * `owner` for the agent's owner.
   */
  cap: { reporter: 10, perDay: 2.5, owner: 2.5 },
  /** Evidence above the prior halves every halfLife: `good` where α ≥ β, `bad` where α < β. */
  halfLifeMs: { good: 90 * DAY_MS, bad: 365 * DAY_MS },
  /** Evidence above the prior beyond which a dimension counts as observed (float residue below it). */
  observedEpsilon: 1e-9,
  compositeWeights: { reliability: 0.3, quality: 0.25, security: 0.2, financial: 0.15, stability: 0.1 },
  /** R1: c = max(seed, standing) × agreement, for non-owner reporters. */
  credibility: {
    seed: { verified: 0.25, unverified: 0.1 },
    /** standing = min(1, U / standingPairs). */
    standingPairs: 30,
    /** U counts distinct (other owner, UTC day) pairs of receipted reports in this window... */
    standingWindowMs: 180 * DAY_MS,
    /** ...at most this many per owner... */
    perOwnerPairs: 10,
    /** ...on agents vouched by at least this many reporters with standing other than the reporter. */
    vouchers: 2,
    /** A voucher vouches for at most `reporters` reporters new to standing in any `windowMs`. */
    vouchBudget: { reporters: 5, windowMs: 30 * DAY_MS },
    /** A vote is compared with the credible consensus of the days from the vote to this much later. */
    agreementDelayMs: 30 * DAY_MS,
  },
  /** The bootstrap latch: a standing floor for verified operators, 1 → 0 as the earned share rises from → to. */
  bootstrap: { maxMs: 180 * DAY_MS, shareFrom: 0.3, shareTo: 0.7 },
  /** R2: established on an agent after reports on `days` distinct UTC days, the first at least `ageMs` old. */
  established: { days: 2, ageMs: DAY_MS },
  /**
   * R2 lone dissenter: opposite in sign to the others' sum, with no other non-owner reporter of its
   * sign holding `allyEvidence` of its own there: scaled to at most share × (others + priorEvidence).
   */
  loneDissenter: { share: 0.25, priorEvidence: 6, allyEvidence: 2 },
  /** R_c counts established non-owner reporters whose last report is at most this old. */
  independentReporterWindowMs: 90 * DAY_MS,
  confidence: {
    high: { evidence: 100, credible: 5 },
    medium: { evidence: 20, credible: 2 },
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
     * R3: a credible negative is an established non-owner reporter with a < b and at least
     * `minEvidence` of its own raw evidence on one of `dimensions`; they corroborate when their c sums
     * to at least max(minCredible, R_c / shareDivisor), and make caution alone when that sum is also
     * more than `majority` of R_c.
     */
    corroboration: {
      dimensions: ["reliability", "security", "stability"],
      minEvidence: 2,
      minCredible: 1.5,
      shareDivisor: 3,
      majority: 0.5,
    },
    /**
     * R5: clear needs composite, every dimension, the supporting part of R_c (reporters negative on no
     * corroboration dimension) and the owner's operator score at least these, and the supporting
     * reporters' c at least `clearSupportShare` of the c of every active reporter, established or not.
     */
    clearFromComposite: 700,
    clearMinDimension: 450,
    clearMinCredible: 3,
    clearSupportShare: 2 / 3,
    clearMinOperatorScore: 400,
  },
  /** R3 caution episode: for afterMs after the agent was last in caution, positive newcomers need tenureMs. */
  episode: { tenureMs: 30 * DAY_MS, afterMs: 90 * DAY_MS },
  /** R3: forgetting alone never lifts a caution before this many idle days (no report). */
  idleHoldMs: 365 * DAY_MS,
  /** R4 fast negative path. */
  fastPath: {
    /** An established non-owner reporter votes with its last report while it is younger than this. */
    voteMs: 48 * HOUR_MS,
    /** A vote fails at an outcome value at or below this. */
    failAtOrBelow: 0.25,
    /** RECENT_FAILURES: at least `voters` failing voters whose c sums to `credible` and to `share` of the voting c. */
    recentFailures: { voters: 3, credible: 1, share: 2 / 3 },
    /** Fast caution: failing voters with `failures` failures in `windowMs` sum to `credible` c and `share` of the voting c. */
    fastCaution: { failures: 2, windowMs: 72 * HOUR_MS, credible: 1.5, share: 3 / 4 },
  },
  /** A dimension below this is named in the reasons (LOW_*). */
  lowDimensionBelow: 450,
  /** OPERATOR_RECORD (which withholds clear) when the owner's operator score is below this. */
  operatorRecordBelow: 400,
  /** FEW_INDEPENDENT_REPORTERS when R_c is below this (the bar for clear). */
  fewReportersBelow: 3,
  /** INSUFFICIENT_EVIDENCE when N is below this (the bar for medium confidence). */
  insufficientEvidenceBelow: 20,
  maxReasons: 4,
  recentConfigChangeMs: 30 * DAY_MS,
  /** Fraction of evidence above the prior each change keeps on a dimension above 500; `security` overrides `all`. */
  changeKept: {
    provider_change: { all: 0.3 },
    model_swap: { all: 0.5 },
    prompt_change: { all: 0.75 },
    tools_change: { all: 0.8, security: 0.6 },
    memory_change: { all: 0.9 },
  },
  /** The operator score: prior weight, and the R_c an agent needs to count. */
  operator: { priorWeight: 50, minCredible: 2 },
  /** `withdrawals` withdrawn reports within `windowMs` halve (factor) weight and cap for `durationMs`. */
  penalty: { withdrawals: 3, windowMs: 90 * DAY_MS, durationMs: 90 * DAY_MS, factor: 0.5 },
  /** R6: a source agent's negative pairs carry over when it had a report within this window. */
  whitewash: { reportWithinMs: 90 * DAY_MS },
  /** A reporter outside the R_c window whose evidence (all dimensions) has faded below this is dropped. */
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
