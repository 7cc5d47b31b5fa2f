// The scoring model, version 2 (docs/scoring.md, "Version 2"), frozen: the service computes it beside
// version 3 during the shadow period and serves it until the switch. Pure functions: no I/O, and time
// is always passed in as ms since the epoch, so a score is a function of stored evidence and time.
// Evidence is kept per reporting operator, so one reporter's weight is bounded and the owner's is small.
// Split by concern: ./model-v2/constants, ./model-v2/evidence, ./model-v2/score.

export { CHANGE_TYPES, classifyChange } from "./configuration";
export type { AgentConfiguration, ChangeType } from "./configuration";
export { CONFIDENCES, DIMENSIONS, OUTCOMES, RECOMMENDATIONS, SIGNAL_DIMENSIONS } from "./model/vocabulary";
export type { Confidence, Dimension, Outcome, Pair, Recommendation, SignalDimension } from "./model/vocabulary";
export { MODEL, REASON_CODES } from "./model-v2/constants";
export type { AgentEvidence, Contribution, HistoryEvent, ReasonCode, ReportInput, ReporterState, ScoreView } from "./model-v2/constants";
export { applyConfigChange, applyReport, baseFor, damping, emptyEvidence, evidenceFactor, forgetTo, penaltyAt, replay } from "./model-v2/evidence";
export {
  corroborationNeeded,
  dimensionScore,
  independentContribution,
  independentReporters,
  negativeReporters,
  objectingReporters,
  operatorScore,
  operatorScoreFromSums,
  scoreOf,
} from "./model-v2/score";
