// Replay: the fold of an agent's history entries through the transitions, equal to the live fold.
// The aggregates and every pair at every entry are a pure function of the entries before it.

import type { ChangeType } from "../configuration";
import { emptyModel, type AgentModel } from "./aggregate";
import { applyConfigChange, applyCredibility, applyInheritance, applyReport, type CredibilityInput, type InheritanceInput } from "./transitions";
import type { PairState, ReportInput } from "./votes";

/** The entries of an agent's history that the model folds, in the order they were applied. */
export type HistoryEvent =
  | ({ kind: "report" } & ReportInput)
  | { kind: "config"; at: number; changes: ChangeType[] }
  | ({ kind: "credibility" } & CredibilityInput)
  | ({ kind: "inheritance" } & InheritanceInput);

/** The agent's aggregates (its row) and its pairs (its `pairs` rows). */
export interface AgentState {
  model: AgentModel;
  pairs: Map<string, PairState>;
}

export function emptyAgent(createdAt: number): AgentState {
  return { model: emptyModel(createdAt), pairs: new Map() };
}

/** Applies one entry to the state in place (the pairs map is the caller's). */
export function applyEvent(state: AgentState, event: HistoryEvent, ownerKey: string | null): void {
  const put = (pairs: PairState[]) => {
    for (const p of pairs) state.pairs.set(p.reporter, p);
  };
  switch (event.kind) {
    case "report": {
      const r = applyReport(state.model, state.pairs.get(event.reporter) ?? null, event, ownerKey);
      state.model = r.model;
      put([r.pair]);
      break;
    }
    case "config": {
      const r = applyConfigChange(state.model, state.pairs, event.changes, event.at);
      state.model = r.model;
      put(r.pairs);
      break;
    }
    case "credibility": {
      const r = applyCredibility(state.model, state.pairs, event);
      state.model = r.model;
      put(r.pairs);
      break;
    }
    case "inheritance": {
      const r = applyInheritance(state.model, state.pairs, event);
      state.model = r.model;
      put(r.pairs);
      break;
    }
  }
}

/** Folds a history in order (withdrawn reports already left out). `ownerKey`: the owner to fold with. */
export function replay(events: readonly HistoryEvent[], ownerKey: string | null, createdAt: number): AgentState {
  const state = emptyAgent(createdAt);
  for (const e of events) applyEvent(state, e, ownerKey);
  return state;
}
