// The scoring model, version 3 (docs/scoring.md): pure functions, no I/O and no clock. What the
// agent's object stores per agent is `AgentState` (JSON); what it appends to the history are the
// `HistoryEvent`s; every transition below is one entry; `scoreOf` reads a score at a time; `replay`
// folds a history to the same state bit for bit. Credibility comes through `CredibilitySource`
// (seeds, or a standing snapshot with the bootstrap floor), standing from `computeStanding` over the
// daily rollups the object writes with `addToRollup`.

export { CHANGE_TYPES, classifyChange } from "../configuration";
export type { AgentConfiguration, ChangeType } from "../configuration";
export * from "./vocabulary";
export { DAY_MS, HOUR_MS, MODEL, REASON_CODES, type ReasonCode } from "./constants";
export { emptyState, dayOf, rekeyState, withoutReporter, type AgentState, type CredibilityInput, type Episode, type HistoryEvent, type InheritanceInput, type InheritedReporter, type ReportInput, type ReporterState } from "./state";
export { baseFor, capOf, damping, evidenceFactor, forgetTo, outcomeValue, penaltyAt } from "./evidence";
export { awaitsTenure, credibilityOf, dimensionScore, isEstablished } from "./weighing";
export { assess, type Assessment } from "./assess";
export { applyConfigChange, applyCredibility, applyInheritance, applyReport, applySwitch, cautionAt, heldAt } from "./transitions";
export { assessAt, scoreOf, type ScoreContext, type ScoreView } from "./score";
export { replay, type ReplayStart } from "./replay";
export { independentContribution, operatorScore, operatorScoreFromSums, type Contribution } from "./operator";
export { inheritanceFrom, isWhitewashSource } from "./whitewash";
export {
  bootstrapFloor,
  credibilityUpdate,
  seedCredibility,
  seedSource,
  setBootstrapEnd,
  snapshotSource,
  startBootstrap,
  type BootstrapLatch,
  type CredibilitySource,
} from "./credibility";
export { addToRollup, computeStanding, type RollupReport, type RollupRow, type StandingEntry, type StandingOptions, type StandingSnapshot } from "./standing";
export { leanRollups, packRollup, rollupsOf, trackReport, unpackRollup, type PackedRollup, type RollupTrack, type TrackedReport } from "./rollup";
