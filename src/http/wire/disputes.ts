// Disputes, as either side sees them: never who reported (the owner must not learn it), and the
// same in both forms.
import { z } from "@hono/zod-openapi";
import { DISPUTE_OUTCOMES, DISPUTE_STATUSES, type Dispute } from "../../domain/disputes";
import { sid, timestamp } from "./common";

const dispute = z
  .object({
    id: z.number().int().openapi({ description: "The disputed report's transaction id: one dispute per report" }),
    transaction_id: z.number().int(),
    sid,
    status: z.enum(DISPUTE_STATUSES),
    reason: z.string(),
    statement: z.string().nullable(),
    opened_at: timestamp,
    respond_by: timestamp.openapi({ description: "The reporter answers by then; else the dispute goes to the admins" }),
    resolved_at: timestamp.nullable(),
    outcome: z.enum(DISPUTE_OUTCOMES).nullable(),
    resolved_by: z.enum(["reporter", "admin"]).nullable(),
    reporter_note: z.string().nullable(),
    admin_note: z.string().nullable(),
    role: z.enum(["owner", "reporter", "admin"]).openapi({ description: "Your side of the dispute" }),
  })
  .openapi("Dispute");

export const disputeWire = {
  schemas: { dispute },
  view: (d: Dispute, role: "owner" | "reporter" | "admin"): z.infer<typeof dispute> => ({
    id: d.id,
    transaction_id: d.id,
    sid: d.sid,
    status: d.status,
    reason: d.reason,
    statement: d.statement,
    opened_at: d.openedAt,
    respond_by: d.respondBy,
    resolved_at: d.resolvedAt,
    outcome: d.outcome,
    resolved_by: d.resolvedBy,
    reporter_note: d.reporterNote,
    admin_note: d.adminNote,
    role,
  }),
  roleOf: (d: Dispute, operatorId: number): "owner" | "reporter" => (d.ownerOperatorId === operatorId ? "owner" : "reporter"),
};
