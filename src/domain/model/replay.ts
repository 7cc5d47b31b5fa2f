// Replay: the fold of an agent's history entries, equal to the live fold bit for bit. The state at
// every entry, and so every score, is a pure function of the entries before it and the time.

import { MODEL } from "./constants";
import { emptyState, type AgentState, type HistoryEvent } from "./state";

/** Where a replay starts when the history before it is summed up by a snapshot. */
export interface ReplayStart {
  state: AgentState;
  /** Report times by reporter key, for the k of the reports after the snapshot. */
  recent: ReadonlyMap<string, readonly number[]>;
}
import { applyConfigChange, applyCredibility, applyInheritance, applyReport, applySwitch } from "./transitions";

/**
 * Folds a history in order (withdrawn reports already removed), counting each report's k as the live
 * path does (the same reporter's earlier reports less than the damping window before it).
 * `ownerKey`: the owner to fold with (after a claim: the new one, which re-weights its reports).
 * `start`: where a retention snapshot left the fold (its state and the report times within the
 * damping window before its cut), when the history before it is no longer replayed.
 */
export function replay(events: readonly HistoryEvent[], ownerKey: string | null, createdAt: number, start?: ReplayStart): AgentState {
  let state = start?.state ?? emptyState(createdAt);
  const recent = new Map([...(start?.recent ?? [])].map(([r, times]) => [r, [...times]]));
  for (const event of events) {
    switch (event.kind) {
      case "report": {
        const earlier = (recent.get(event.reporter) ?? []).filter((t) => t > event.at - MODEL.dampingWindowMs);
        state = applyReport(state, event, ownerKey, earlier.length).state;
        earlier.push(event.at);
        recent.set(event.reporter, earlier);
        break;
      }
      case "config":
        state = applyConfigChange(state, event.changes, event.at);
        break;
      case "credibility":
        state = applyCredibility(state, event);
        break;
      case "inheritance":
        state = applyInheritance(state, event);
        break;
      case "switch":
        state = applySwitch(state, event.at);
        break;
    }
  }
  return state;
}
