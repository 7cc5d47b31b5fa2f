// The model an agent is served by: version 3 (./model/), or version 2 (./model-v2, frozen) for an
// agent whose object has not switched yet during the shadow period. The stored evidence says which:
// version 3's state carries `version: 3`. Every function here dispatches on it, so the rest of the
// service handles one kind of evidence and one kind of score.

import {
  applyConfigChange,
  applyCredibility,
  applyInheritance,
  applyReport,
  applySwitch,
  emptyState,
  independentContribution,
  replay,
  scoreOf,
  v2,
  type AgentState,
  type ChangeType,
  type CredibilityInput,
  type HistoryEvent,
  type ReportInput,
  type InheritanceInput,
  type Outcome,
  type ScoreView,
  type SignalDimension,
} from "./model";

/** An agent's evidence: version 3's state, or version 2's evidence before its switch. */
export type Evidence = AgentState | v2.AgentEvidence;

export const isV3 = (e: Evidence): e is AgentState => (e as AgentState).version === 3;
export const versionOf = (e: Evidence): 2 | 3 => (isV3(e) ? 3 : 2);

export const emptyEvidenceOf = (version: 2 | 3, now: number): Evidence => (version === 3 ? emptyState(now) : v2.emptyEvidence(now));

const key = (local: number | null) => (local === null ? null : String(local));

export interface ScoreInput {
  now: number;
  /** The owner's number on the agent (null: unclaimed). */
  ownerLocal: number | null;
  identityLevel: number;
  operatorScore: number;
  /** R6 across owners: the configuration matches a cautioned agent of another owner. */
  similarToCautioned?: boolean;
}

export function scoreOfEvidence(e: Evidence, ctx: ScoreInput): ScoreView {
  if (isV3(e)) {
    return scoreOf(e, { now: ctx.now, ownerId: key(ctx.ownerLocal), identityLevel: ctx.identityLevel, operatorScore: ctx.operatorScore, similarToCautioned: ctx.similarToCautioned });
  }
  const s = v2.scoreOf(e, { now: ctx.now, ownerId: ctx.ownerLocal, identityLevel: ctx.identityLevel, operatorScore: ctx.operatorScore });
  return { ...s, model: { version: 2, bootstrap: false, snapshot: null } };
}

/** Version 3's report input with the reporter by its number on the agent (version 2's key). */
export type ReportFacts = Omit<ReportInput, "reporter"> & { reporter: number };

export function reportInto(e: Evidence, input: ReportFacts, ownerLocal: number | null, k: number): { state: Evidence; weight: number } {
  if (isV3(e)) return applyReport(e, { ...input, reporter: String(input.reporter) }, key(ownerLocal), k);
  return v2.applyReport(e, input, ownerLocal, k);
}

export const configInto = (e: Evidence, changes: ChangeType[], now: number): Evidence => (isV3(e) ? applyConfigChange(e, changes, now) : v2.applyConfigChange(e, changes, now));

/** A credibility entry (values by the reporters' numbers on the agent); version 2 ignores it. */
export function credibilityInto(e: Evidence, input: CredibilityInput): Evidence {
  return isV3(e) ? applyCredibility(e, input) : e;
}

export function inheritanceInto(e: Evidence, input: InheritanceInput): Evidence {
  return isV3(e) ? applyInheritance(e, input) : e;
}

export function contributionOfEvidence(e: Evidence, ownerLocal: number | null, now: number): { evidence: number; composite: number } {
  if (isV3(e)) {
    const c = independentContribution(e, now);
    return { evidence: c.evidence, composite: c.composite };
  }
  const c = v2.independentContribution(e, ownerLocal, now);
  return { evidence: c.evidence, composite: c.composite };
}

/** What a replay folds, reporters named by their numbers on the agent. */
export type HistoryItem =
  | { kind: "report"; id: number; reporter: number; at: number; outcome: Outcome; signals: Partial<Record<SignalDimension, number>>; base: number; evidenceFactor: number; penalty: number }
  | { kind: "config"; at: number; changes: ChangeType[] }
  | { kind: "credibility"; at: number; values: Record<string, number>; bootstrap: boolean; snapshot?: string }
  | { kind: "inheritance"; input: InheritanceInput }
  | { kind: "switch"; at: number };

/**
 * Folds a history under `version`: version 3 from the agent's creation (every entry), or from a
 * retention snapshot's state (`start`, reporters by their numbers); version 2 its reports and changes.
 */
export function replayEvidence(version: 2 | 3, history: readonly HistoryItem[], ownerLocal: number | null, createdAt: number, start?: HistorySnapshot): Evidence {
  if (version === 2) {
    // Only version-3 agents are archived: a snapshot is always of version 3's state.
    if (start) throw new Error("a retention snapshot replays under version 3 only");
    const events: v2.HistoryEvent[] = [];
    for (const h of history) {
      if (h.kind === "config") events.push(h);
      else if (h.kind === "report") events.push({ kind: "report", reporter: h.reporter, at: h.at, outcome: h.outcome, signals: h.signals, base: h.base, evidence: h.evidenceFactor, penalty: h.penalty });
    }
    return v2.replay(events, ownerLocal, createdAt);
  }
  const events: HistoryEvent[] = history.map((h): HistoryEvent => {
    switch (h.kind) {
      case "report":
        return { kind: "report", reporter: String(h.reporter), at: h.at, outcome: h.outcome, signals: h.signals, base: h.base, evidence: h.evidenceFactor, penalty: h.penalty };
      case "inheritance":
        return { kind: "inheritance", ...h.input };
      default:
        return h;
    }
  });
  return replay(events, key(ownerLocal), createdAt, start && { state: start.state, recent: new Map([...start.recent].map(([r, times]) => [String(r), times])) });
}

/** A retention snapshot as a replay starts from it: the state and report times, reporters by their numbers on the agent. */
export interface HistorySnapshot {
  state: AgentState;
  recent: ReadonlyMap<number, readonly number[]>;
  /** The owner's number at the snapshot's cut (null: unclaimed). */
  owner: number | null;
}

export { applySwitch };
