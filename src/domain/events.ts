// Events the service notifies operators of (webhooks): what they are, when a score change is worth
// one, and their payloads, in Form A's names and never naming a reporter.

import type { AgentRecord, AgentStatus } from "./agent";
import { IDENTITY_LABELS } from "./agent-keys";
import { disputeEventData, type Dispute } from "./disputes";
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

/** Each event type's payload (Form A names, never a reporter): built by the functions below only. */
export interface EventData {
  "score.changed": ReturnType<typeof scoreChangedData>;
  "agent.status_changed": ReturnType<typeof statusChangedData>;
  "agent.identity_changed": ReturnType<typeof identityChangedData>;
  "dispute.opened": ReturnType<typeof disputeEventData>;
  "dispute.answered": ReturnType<typeof disputeEventData>;
  "dispute.resolved": ReturnType<typeof disputeEventData>;
}

/** An event as the agent's object drafts it: its type, its payload, and the other side of a dispute. */
export type EventDraft = { [T in EventType]: { type: T; data: EventData[T]; counterpartId?: number } }[EventType];

/** An event as it leaves an agent's object: who it concerns (for routing) and its payload. */
export type AgentEvent = EventDraft & {
  /** Unique and stable across retries: the webhook-id of every delivery of it. */
  id: string;
  sid: string;
  /** The agent's owner when the event happened (null: unclaimed); routing only, never in the payload. */
  ownerId: number | null;
  /** The payload's timestamp (ISO). */
  timestamp: string;
};

/**
 * A control-database write an agent's change derives (a claim moves the directory's owner; a
 * dispute's state; a withdrawal on the reporter's record): applied by the agent's outbox with the entry that tells
 * it, idempotently, so an entry applied twice changes nothing more.
 */
export type ControlWrite =
  | { kind: "directoryOwner"; sid: string; operatorId: number | null }
  | { kind: "dispute"; dispute: Dispute }
  | { kind: "withdrawal"; operatorId: number; transactionId: number; at: string };

/** The body a webhook endpoint receives (the Standard Webhooks envelope: type, timestamp, data). */
export const payloadOf = (event: AgentEvent) => JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });

/** The test event POST /webhooks/{id}/test sends: never subscribed to, never sent otherwise. */
export const PING = "ping";

/** A ping to endpoint `webhookId`: its webhook-id (evt_ping_<32 hex>, new each time) and its body. */
export function pingEvent(webhookId: number, timestamp: string, nonce: string): { id: string; payload: string } {
  const data = { webhook_id: webhookId, message: "A test event from POST /webhooks/{id}/test: the endpoint and its secret work." };
  return { id: `evt_ping_${nonce}`, payload: JSON.stringify({ type: PING, timestamp, data }) };
}

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

export function statusChangedData(sid: string, status: AgentStatus, previous: AgentStatus) {
  return { sid, status, previous_status: previous };
}

export function identityChangedData(before: AgentRecord, after: AgentRecord) {
  return {
    sid: after.sid,
    identity_level: after.identityLevel,
    identity_label: IDENTITY_LABELS[after.identityLevel as 0 | 1 | 2],
    identity_key: after.identityKey,
    previous_identity_level: before.identityLevel,
    keys: after.keys.map((k) => k.thumbprint),
  };
}

/** agent.status_changed, when the status moved. */
export function statusEvents(before: AgentRecord, after: AgentRecord): EventDraft[] {
  return before.status === after.status ? [] : [{ type: "agent.status_changed", data: statusChangedData(after.sid, after.status, before.status) }];
}

/** agent.identity_changed, when the level or the proven key moved, or (with `keysChanged`) the keys did. */
export function identityEvents(before: AgentRecord, after: AgentRecord, keysChanged = false): EventDraft[] {
  if (!keysChanged && before.identityLevel === after.identityLevel && before.identityKey === after.identityKey) return [];
  return [{ type: "agent.identity_changed", data: identityChangedData(before, after) }];
}

/** A dispute event: both sides get it (the reporter as the counterpart), neither learns more than its own. */
export function disputeEvent(type: "dispute.opened" | "dispute.answered" | "dispute.resolved", d: Dispute): EventDraft {
  return { type, data: disputeEventData(d), counterpartId: d.reporterOperatorId };
}

/** An event told with entry `n` (the k-th of its events): the same id every time it is sent. */
export const entryEventId = (sid: string, n: number, k: number) => `evt_${sid.slice(6)}_0_${n * 16 + k}`;

/** Where the events of entries up to `seq` stand, for the status lists' ordering: after every event of them. */
export const entryEventPosition = (seq: number) => ({ epoch: "0", n: seq * 16 + 15 });

/** The id of a score.changed that time alone told: the same for the same face at the same entry, so a repeat is one event. */
export const faceEventId = (sid: string, seq: number, composite: number, recommendation: string) =>
  `evt_${sid.slice(6)}_${(Math.round(composite) * 4 + ["review", "clear", "caution"].indexOf(recommendation) + 1).toString(16)}_${seq * 16 + 15}`;
