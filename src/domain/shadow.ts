// The shadow period's comparison: what an agent served by version 2 would show under version 3 if it
// switched now. Its chain replayed under version 3 (exactly what the switch does), then the credibility
// in force from the source as the switch appends it, scored beside version 2's stored evidence.

import { type HistoryItem } from "./agent";
import { replayOf } from "./replay";
import type { Entry } from "./entries";
import { applySwitch, credibilityUpdate, type AgentState, type CredibilitySource, type Recommendation } from "./model";
import { credibilityInto, isV3, scoreOfEvidence, type Evidence } from "./scoring";

export type { HistoryItem };

export interface ShadowFacts {
  createdAt: number;
  identityLevel: number;
  /** The owner's number on the agent, as version 2's stored evidence keys it. */
  ownerLocal: number | null;
  /** Version 2's stored evidence (the row's). */
  v2: Evidence;
  similarToCautioned: boolean;
}

/** Version 2's and version 3's recommendations at `now` (the operator score taken as neutral, 500). */
export function shadowCompare(entries: readonly { entry: Entry; who: number | null }[], facts: ShadowFacts, source: CredibilitySource, now: number): { v2: Recommendation; v3: Recommendation } {
  const replayed = replayOf(entries, facts.createdAt, now, 3);
  let state = replayed.evidence as AgentState;
  if (!isV3(state)) throw new Error("not a version 3 replay");
  state = applySwitch(state, now);
  const operatorOf = new Map(Object.entries(replayed.locals).map(([op, local]) => [String(local), op]));
  const owner = facts.ownerLocal === null ? null : String(facts.ownerLocal);
  const numbered: CredibilitySource = {
    bootstrap: source.bootstrap,
    credibility: (key, o, verified) => source.credibility(operatorOf.get(key) ?? key, o === null ? null : (operatorOf.get(o) ?? o), verified),
  };
  const update = credibilityUpdate(state, numbered, owner, now);
  const v3 = update ? credibilityInto(state, update) : state;
  const ctx = { now, ownerLocal: facts.ownerLocal, identityLevel: facts.identityLevel, operatorScore: 500, similarToCautioned: facts.similarToCautioned };
  return { v2: scoreOfEvidence(facts.v2, ctx).recommendation, v3: scoreOfEvidence(v3, ctx).recommendation };
}
