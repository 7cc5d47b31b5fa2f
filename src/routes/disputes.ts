import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { disputesByStatus, getDispute, listDisputes } from "../db/disputes";
import { DISPUTE_DECISIONS, DISPUTE_STATUSES } from "../domain/disputes";
import { errors, refusalError } from "../domain/errors";
import { settle } from "../http/agent-result";
import { locate, locateReport, agentOf } from "../http/agents";
import { authOf, requireAdmin, requireKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { DEFAULT_PAGE, pageOf, readCursor } from "../http/pagination";
import { disputeWire as view } from "../http/wire/disputes";
import { decimalId, optionalString, pageQuery, requiredString } from "./fields";
import { nextCursor } from "../http/wire/common";
import { sample } from "./examples";
import { adminSecurity, bearer, createRoute, errorResponses, json, jsonBody } from "./openapi";

// Disputes: an owner's remedy against a report it believes false. The reporter answers within 14
// days; an unanswered dispute goes to the admins, and the report keeps counting until they decide.

const disputeId = z.object({ id: decimalId("id", "The dispute's id: the disputed report's transaction id") });
const one = (example: z.infer<typeof view.schemas.dispute>) => json(z.object({ dispute: view.schemas.dispute }), "The dispute", { dispute: example });
const many = z.object({ disputes: z.array(view.schemas.dispute), next_cursor: nextCursor });
const statusQuery = z
  .enum(DISPUTE_STATUSES, { error: `status must be one of: ${DISPUTE_STATUSES.join(", ")}` })
  .optional()
  .openapi({ param: { name: "status", in: "query", description: "Only disputes in this state" } });

const open = createRoute({
  method: "post",
  path: "/transactions/{id}/dispute",
  operationId: "openDispute",
  tags: ["Disputes"],
  summary: "Dispute a report on your agent (owner, within 90 days, one dispute per report, at most 5 open per agent)",
  security: bearer,
  middleware: [requireKey("disputes:write")],
  request: {
    params: z.object({ id: decimalId("id", "The transaction id of the report") }),
    body: jsonBody(z.object({ reason: requiredString("reason", 200), statement: optionalString("statement", 2000) }).openapi("OpenDispute")),
  },
  responses: {
    201: one(sample.dispute),
    ...errorResponses(400, 401, 403, errors.transactionNotFound(), refusalError("already_disputed"), 429),
  },
});

const list = createRoute({
  method: "get",
  path: "/disputes",
  operationId: "listDisputes",
  tags: ["Disputes"],
  summary: "Your disputes: those on your agents (owner) and those of your reports (reporter); the owner never learns who reported",
  security: bearer,
  middleware: [requireKey(null)],
  request: {
    query: z.object({
      role: z
        .enum(["owner", "reporter"], { error: "role must be owner or reporter" })
        .optional()
        .openapi({ param: { name: "role", in: "query", description: "Only disputes on your agents (owner) or of your reports (reporter)" } }),
      status: statusQuery,
      ...pageQuery,
    }),
  },
  responses: { 200: json(many, "Disputes", { disputes: [sample.dispute], next_cursor: null }), ...errorResponses(400, 401, 429) },
});

const respond = createRoute({
  method: "post",
  path: "/disputes/{id}/respond",
  operationId: "respondToDispute",
  tags: ["Disputes"],
  summary: "Answer a dispute of your report within 14 days: stand by it, or withdraw it (its evidence is removed)",
  security: bearer,
  middleware: [requireKey("disputes:write")],
  request: {
    params: disputeId,
    body: jsonBody(
      z
        .object({
          stand: z.boolean({ error: "stand must be true (keep the report) or false (withdraw it)" }),
          note: optionalString("note", 2000),
        })
        .openapi("RespondDispute"),
    ),
  },
  responses: {
    200: one(sample.answeredDispute),
    ...errorResponses(400, 401, 403, errors.disputeNotFound(), refusalError("response_window_closed"), 429),
  },
});

const adminList = createRoute({
  method: "get",
  path: "/admin/disputes",
  operationId: "adminListDisputes",
  tags: ["Admin"],
  summary: "Disputes by status, oldest first: escalated ones wait for a decision",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { query: z.object({ status: statusQuery, ...pageQuery }) },
  responses: { 200: json(many, "Disputes", { disputes: [sample.escalatedDispute], next_cursor: null }), ...errorResponses(400, 401, 503) },
});

const decide = createRoute({
  method: "post",
  path: "/admin/disputes/{id}/decide",
  operationId: "adminDecideDispute",
  tags: ["Admin"],
  summary: "Decide an escalated dispute: withdraw the report (its evidence is removed) or keep it",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    params: disputeId,
    body: jsonBody(
      z.object({
        outcome: z.enum(DISPUTE_DECISIONS, { error: "outcome must be withdraw or keep" }),
        note: optionalString("note", 2000),
      }),
    ),
  },
  responses: {
    200: one(sample.decidedDispute),
    ...errorResponses(400, 401, errors.disputeNotFound(), refusalError("dispute_not_escalated"), 503),
  },
});

export function registerDisputes(app: OpenAPIHono<AppEnv>) {
  app.openapi(open, async (c) => {
    const transactionId = c.req.valid("param").id;
    const { reason, statement } = c.req.valid("json");
    const ref = await locateReport(c, transactionId);
    const opened = settle(
      c,
      ref.sid,
      await agentOf(c, ref).openDispute(ref, { callerId: authOf(c).operatorId, transactionId, reason, statement, now: c.get("deps").now() }),
    );
    return c.json({ dispute: view.view(opened, "owner") }, 201);
  });

  app.openapi(list, async (c) => {
    const operatorId = authOf(c).operatorId;
    const { role, status, limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.number().int()) ?? 0;
    const page = pageOf(await listDisputes(c.get("db"), operatorId, { role, status }, after, limit + 1), limit, (d) => d.id);
    return c.json({ disputes: page.items.map((d) => view.view(d, view.roleOf(d, operatorId))), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(respond, async (c) => {
    const disputeId = c.req.valid("param").id;
    const { stand, note } = c.req.valid("json");
    const operatorId = authOf(c).operatorId;
    const found = await getDispute(c.env.DB.withSession("first-primary"), disputeId);
    // Only the reporter may answer; to anyone else the dispute does not exist.
    if (!found || found.reporterOperatorId !== operatorId) throw errors.disputeNotFound();
    const ref = await locate(c, found.sid);
    const answered = settle(c, ref.sid, await agentOf(c, ref).answerDispute(ref, { callerId: operatorId, disputeId, stand, note, now: c.get("deps").now() }));
    return c.json({ dispute: view.view(answered, "reporter") }, 200);
  });

  app.openapi(adminList, async (c) => {
    const { status, limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.number().int()) ?? 0;
    const page = pageOf(await disputesByStatus(c.get("db"), status, after, limit + 1), limit, (d) => d.id);
    return c.json({ disputes: page.items.map((d) => view.view(d, "admin")), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(decide, async (c) => {
    const disputeId = c.req.valid("param").id;
    const { outcome, note } = c.req.valid("json");
    const found = await getDispute(c.env.DB.withSession("first-primary"), disputeId);
    if (!found) throw errors.disputeNotFound();
    const ref = await locate(c, found.sid);
    const decided = settle(c, ref.sid, await agentOf(c, ref).decideDispute(ref, { disputeId, outcome, note, now: c.get("deps").now() }));
    return c.json({ dispute: view.view(decided, "admin") }, 200);
  });
}
