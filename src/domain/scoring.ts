// An agent's evidence under the model the service serves (./model): its aggregates, kept in its
// row, and its pairs, one per reporter, kept in the shard's `pairs` table and loaded by the agent's
// object when a change needs them. Reporters are keyed by their commitment on the agent (the name the
// history gives them), so a replay of the public entries gives the same aggregates and pairs.

import {
  applyConfigChange,
  applyCredibility,
  applyInheritance,
  applyReport,
  emptyModel,
  operatorContribution,
  scoreOf,
  type AgentModel,
  type ChangeType,
  type Contribution,
  type CredibilityInput,
  type InheritanceInput,
  type PairState,
  type Pairs,
  type ReportInput,
  type ScoreView,
} from "./model";

export type Evidence = AgentModel;
export type { Pairs, PairState };

export const emptyEvidence = (now: number): Evidence => emptyModel(now);

export interface ScoreInput {
  now: number;
  owned: boolean;
  identityLevel: number;
  operatorScore: number;
  /** The configuration matches a caution agent of another owner. */
  similarToCautioned?: boolean;
}

export const scoreOfEvidence = (e: Evidence, ctx: ScoreInput): ScoreView => scoreOf(e, ctx);

export const reportInto = (e: Evidence, pair: PairState | null, input: ReportInput, ownerKey: string | null) => applyReport(e, pair, input, ownerKey);

export const configInto = (e: Evidence, pairs: Pairs, changes: readonly ChangeType[], at: number) => applyConfigChange(e, pairs, changes, at);

export const credibilityInto = (e: Evidence, pairs: Pairs, input: CredibilityInput) => applyCredibility(e, pairs, input);

export const inheritanceInto = (e: Evidence, pairs: Pairs, input: InheritanceInput) => applyInheritance(e, pairs, input);

export const contributionOfEvidence = (e: Evidence, now: number): Contribution => operatorContribution(e, now);
