// Events the service notifies operators of (webhooks): what they are, when a score change is worth
// one, and their payloads, in Form A's names and never naming a reporter.

import type { ScoreView } from "./model";

export const EVENT_TYPES = [
  "score.changed",
  "agent.status_changed",
  "agent.identity_changed",
  "dispute.opened",
  "dispute.answered",
  "dispute.resolved",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** score.changed when the recommendation changed, or the composite moved this much since the last one. */
export const NOTIFY_COMPOSITE_DELTA = 25;

/** An endpoint's deliveries are listed for this many days (GET /webhooks/{id}/deliveries). */
export const DELIVERIES_LISTED_DAYS = 7;
/**
 * Delivery records are deleted once this many days old: past the listing, past the 24 hours of
 * retries, and long past any repeat of the event that their unique (webhook, event) index dedupes.
 */
export const DELIVERIES_KEPT_DAYS = 8;

/** What an agent's watchers and owner were last told of its score. */
export interface Notified {
  composite: number;
  recommendation: string;
}

/** Whether `now` is worth a score.changed after `last` (null: nothing was notified yet, the agent's start). */
export function scoreCrossed(last: Notified, now: Pick<ScoreView, "composite" | "recommendation">): boolean {
  return now.recommendation !== last.recommendation || Math.abs(now.composite - last.composite) >= NOTIFY_COMPOSITE_DELTA;
}

/** An event as it leaves an agent's object: who it concerns (for routing) and its payload. */
export interface AgentEvent {
  /** Unique and stable across retries: the webhook-id of every delivery of it. */
  id: string;
  type: EventType;
  sid: string;
  /** The agent's owner when the event happened (null: unclaimed); routing only, never in the payload. */
  ownerId: number | null;
  /** The operator on the other side of a dispute (its reporter); routing only, never in the payload. */
  counterpartId?: number;
  /** The payload's timestamp (ISO). */
  timestamp: string;
  data: Record<string, unknown>;
}

/** The body a webhook endpoint receives (the Standard Webhooks envelope: type, timestamp, data). */
export const payloadOf = (event: AgentEvent) => JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });

export function scoreChangedData(sid: string, score: ScoreView, previous: Notified, identityLevel: number) {
  return {
    sid,
    composite_score: score.composite,
    confidence: score.confidence,
    recommendation: score.recommendation,
    identity_level: identityLevel,
    previous: { composite_score: previous.composite, recommendation: previous.recommendation },
  };
}
