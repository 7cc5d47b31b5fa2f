// The scoring model, version 4 (docs/scoring.md, "Version 4"): pure functions, no I/O and no clock.
// What the service keeps per agent: the aggregates (`AgentModel`, the agent row, bounded whatever the
// number of reporters), one `PairState` per (agent, reporter) (the `pairs` row), and the history
// entries (`HistoryEvent`); a score is `scoreOf(model, ctx)`, a pure function of the entries, the
// credibility in force (recorded as `credibility` entries) and the time. The job's computation is
// `./job` (`computeCredibility`).

export * from "./vocabulary";
export { CHANGE_TYPES, classifyChange, type AgentConfiguration, type ChangeType } from "../configuration";
export { LEVELS, MODEL_V4, REASON_CODES, levelsOf, type ReasonCode } from "./constants";
export {
  credibilityOfLevel,
  decayVotes,
  keptFraction,
  levelOf,
  nextVote,
  observe,
  outcomeValue,
  stubPair,
  type PairState,
  type Placement,
  type ReportInput,
} from "./votes";
export { aggregatesOf, awaitsTenure, emptyModel, settle, tenureActive, type AgentModel, type DimSum, type Episode, type Mass } from "./aggregate";
export { compositeOf, dimensionScore, dimensionScores, exactScore } from "./scores";
export { assess, massAt, type Assessment } from "./assess";
export {
  applyConfigChange,
  applyCredibility,
  applyInheritance,
  applyReport,
  nextEpisode,
  type CredibilityInput,
  type InheritanceInput,
  type InheritedPair,
  type Pairs,
} from "./transitions";
export { cautionAt, confidenceOf, isClear, scoreOf, type ScoreContext, type ScoreView } from "./view";
export { operatorContribution, operatorScore, operatorScoreFromSums, type Contribution } from "./operator";
export { inheritanceFrom, isWhitewashSource } from "./whitewash";
export { credibilityUpdate, emptySource, type CredibilitySource } from "./credibility";
export { applyEvent, emptyAgent, replay, type AgentState, type HistoryEvent } from "./replay";
export { nextChangeAt } from "./time";
export * as job from "./job/index";
/** The model's constants under the name the service reads them by. */
export { MODEL_V4 as MODEL } from "./constants";
