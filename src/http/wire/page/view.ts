// What the agent's public page shows, taken from the domain's views. The public face is what
// GET /score/{sid}/public shows and nothing more; the profile is what the owner opted in to show.
import type { AgentStatus } from "../../../domain/agent";
import type { Confidence, Dimension, ReasonCode, Recommendation } from "../../../domain/model";
import type { AgentReport, AgentScore } from "../../../domain/views";
import { eventWords } from "./words";

export interface PublicFace {
  sid: string;
  name: string;
  status: AgentStatus;
  composite: number;
  confidence: Confidence;
  recommendation: Recommendation;
  identityLevel: number;
  operatorName: string | null;
}

/** One point of the score history chart, oldest first. */
export interface HistoryPoint {
  at: string;
  composite: number;
  what: string;
}

/** An open dispute as the public sees it: the owner's side, never who reported. */
export interface PublicDispute {
  transactionId: number;
  status: "open" | "escalated";
  reason: string;
  statement: string | null;
  openedAt: string;
  respondBy: string;
}

export interface PublicProfile {
  reasons: ReasonCode[];
  dimensions: Record<Dimension, number>;
  history: HistoryPoint[];
  /** False when the history shown starts after registration (only the newest entries are read). */
  historyFromStart: boolean;
  disputes: PublicDispute[];
}

export type AttestationState = { jws: string } | { missing: "suspended" | "not_configured" };

export interface AgentPageView {
  /** The service's public origin: the attestation's issuer, the URLs shown. */
  origin: string;
  face: PublicFace;
  attestation: AttestationState;
  /** Null unless the owner opted in (`public_profile: true`). */
  profile: PublicProfile | null;
  asOf: string;
}

export const publicFace = (agent: AgentScore): PublicFace => ({
  sid: agent.sid,
  name: agent.name,
  status: agent.status,
  composite: agent.score.composite,
  confidence: agent.score.confidence,
  recommendation: agent.score.recommendation,
  identityLevel: agent.identityLevel,
  operatorName: agent.operator?.name ?? null,
});

/**
 * The opted-in part, from the agent's report: the history's entries oldest first, from the agent's
 * start at 500 when the report reaches back to it (`historyLimit` is how many entries it reads), to
 * the score now.
 */
export function publicProfile(report: AgentReport, historyLimit: number): PublicProfile {
  const fromStart = report.scoreHistory.length < historyLimit;
  const entries = [...report.scoreHistory].reverse().map((e): HistoryPoint => ({ at: e.timestamp, composite: e.composite, what: eventWords(e.eventType) }));
  const history: HistoryPoint[] = [
    ...(fromStart ? [{ at: report.createdAt, composite: 500, what: "Registered" }] : []),
    ...entries,
    { at: report.asOf, composite: report.score.composite, what: "Now" },
  ];
  return {
    reasons: report.score.reasons,
    dimensions: report.score.dimensions,
    history,
    historyFromStart: fromStart,
    disputes: (report.disputes ?? []).flatMap((d): PublicDispute[] =>
      d.status === "resolved"
        ? []
        : [{ transactionId: d.id, status: d.status, reason: d.reason, statement: d.statement, openedAt: d.openedAt, respondBy: d.respondBy }],
    ),
  };
}
