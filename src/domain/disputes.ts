// Disputes: the remedy of an agent's owner against a report it believes false. The reporter answers
// within 14 days (standing by it, or withdrawing it); silence goes to an admin, never to deletion.

const DAY_MS = 86_400_000;

/** A report can be disputed this long after it was made. */
export const DISPUTE_WINDOW_MS = 90 * DAY_MS;
/** The reporter answers within this long; then the dispute goes to the admins. */
export const RESPOND_WITHIN_MS = 14 * DAY_MS;
export const MAX_OPEN_DISPUTES = 5;

export const DISPUTE_STATUSES = ["open", "escalated", "resolved"] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
export const DISPUTE_OUTCOMES = ["withdrawn", "kept"] as const;
/** What an admin decides of an escalated dispute: withdraw the report, or keep it. */
export const DISPUTE_DECISIONS = ["withdraw", "keep"] as const;
export type DisputeOutcome = (typeof DISPUTE_OUTCOMES)[number];

export interface Dispute {
  /** The disputed report's transaction id: one dispute per report, ever. */
  id: number;
  sid: string;
  ownerOperatorId: number;
  reporterOperatorId: number;
  status: DisputeStatus;
  reason: string;
  statement: string | null;
  openedAt: string;
  respondBy: string;
  resolvedAt: string | null;
  outcome: DisputeOutcome | null;
  resolvedBy: "reporter" | "admin" | null;
  reporterNote: string | null;
  adminNote: string | null;
}

/** The earliest answer deadline among these disputes (ms; null: none open): the agent's alarm escalates it then. */
export const disputesDueOf = (disputes: readonly Dispute[]): number | null => {
  const due = disputes.filter((d) => d.status === "open").map((d) => Date.parse(d.respondBy));
  return due.length > 0 ? Math.min(...due) : null;
};

/** A dispute as its events carry it: never the reporter, nor the notes the other side did not write. */
export function disputeEventData(d: Dispute) {
  return {
    dispute_id: d.id,
    transaction_id: d.id,
    sid: d.sid,
    status: d.status,
    reason: d.reason,
    opened_at: d.openedAt,
    respond_by: d.respondBy,
    resolved_at: d.resolvedAt,
    outcome: d.outcome,
  };
}

/** The owner's dispute of one of its agent's reports, opened at `now`, or why it cannot be opened. */
export function openDispute(
  disputes: readonly Dispute[],
  report: { id: number; at: number; reporterOperatorId: number },
  input: { sid: string; ownerOperatorId: number; reason: string; statement: string | null; now: number },
): Dispute | "already_disputed" | "dispute_window_closed" | "too_many_disputes" {
  if (disputes.some((d) => d.id === report.id)) return "already_disputed";
  if (input.now - report.at > DISPUTE_WINDOW_MS) return "dispute_window_closed";
  if (disputes.filter((d) => d.status !== "resolved").length >= MAX_OPEN_DISPUTES) return "too_many_disputes";
  const { sid, ownerOperatorId, reason, statement, now } = input;
  return {
    id: report.id,
    sid,
    ownerOperatorId,
    reporterOperatorId: report.reporterOperatorId,
    status: "open",
    reason,
    statement,
    openedAt: new Date(now).toISOString(),
    respondBy: new Date(now + RESPOND_WITHIN_MS).toISOString(),
    resolvedAt: null,
    outcome: null,
    resolvedBy: null,
    reporterNote: null,
    adminNote: null,
  };
}
