import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteKey, insertKey, revokeOtherKeys } from "../db/keys";
import { approveApplication, getApplication, getOperator, listApplications, rejectApplication, undoApproval, updateOperator } from "../db/operators";
import { listWaitlist } from "../db/waitlist";
import { AGENT_STATUSES } from "../domain/agent";
import { APPLICATION_STATUSES } from "../domain/applications";
import { errors } from "../domain/errors";
import { purgeFace, settle } from "../http/agent-result";
import { forgetOperator, locate, agentOf } from "../http/agents";
import { newApiKey } from "../domain/identifiers";
import { sequencerName } from "../domain/log/messages";
import { TIER_NAMES } from "../domain/limits";
import { SCOPES } from "../domain/scopes";
import { keyDelivery, logCount } from "../env";
import { announceEpoch, requireAdmin } from "../http/auth";
import type { AppEnv } from "../http/context";
import { DEFAULT_PAGE, pageOf, readCursor } from "../http/pagination";
import { admin as view } from "../http/wire/admin";
import { apiKey, nextCursor, sid } from "../http/wire/common";
import { emailKey, type KeyEmailReason } from "../net/email";
import { meterReading, resetMeter, tableReading, unmetered } from "../d1-meter";
import { sample } from "./examples";
import { decimalId, operatorIdParam, pageQuery, sidParam } from "./fields";
import { adminSecurity, createRoute, errorResponses, json, jsonBody } from "./openapi";

const applicationId = z.object({ id: decimalId("id", "The application's id") });

const list = createRoute({
  method: "get",
  path: "/admin/applications",
  operationId: "adminListApplications",
  tags: ["Admin"],
  summary: "List operator applications, oldest first (paginated)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    query: z.object({
      status: z
        .enum(APPLICATION_STATUSES, { error: `status must be one of: ${APPLICATION_STATUSES.join(", ")}` })
        .optional()
        .openapi({ param: { name: "status", in: "query", description: "Only applications in this state" } }),
      ...pageQuery,
    }),
  },
  responses: {
    200: json(z.object({ applications: z.array(view.schemas.application), next_cursor: nextCursor }), "Applications", {
      applications: [sample.application],
      next_cursor: null,
    }),
    ...errorResponses(400, 401, 503),
  },
});

const issued = {
  delivery: z.enum(["email", "response"]),
  api_key: apiKey.optional().openapi({ description: "Only where RETURN_KEYS_IN_RESPONSES=true (local development); shown once" }),
};

const approve = createRoute({
  method: "post",
  path: "/admin/applications/{id}/approve",
  operationId: "adminApproveApplication",
  tags: ["Admin"],
  summary: "Approve an application: creates the operator and its first key, e-mailed once",
  description: "Without e-mail and without RETURN_KEYS_IN_RESPONSES=true nothing is issued: 503.",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { params: applicationId },
  responses: {
    200: json(z.object({ operator: view.schemas.operator, ...issued }), "Approved", {
      operator: { ...sample.operator, tier: "free", verified: false, created_at: sample.application.created_at },
      delivery: "response",
      api_key: sample.apiKey,
    }),
    ...errorResponses(errors.badId(), 401, errors.applicationNotFound(), errors.applicationDecided("approved"), errors.keyDeliveryUnavailable()),
  },
});

const reject = createRoute({
  method: "post",
  path: "/admin/applications/{id}/reject",
  operationId: "adminRejectApplication",
  tags: ["Admin"],
  summary: "Reject a pending application",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { params: applicationId },
  responses: {
    200: json(z.object({ application: view.schemas.application }), "Rejected", { application: sample.rejectedApplication }),
    ...errorResponses(errors.badId(), 401, errors.applicationNotFound(), errors.applicationDecided("rejected"), 503),
  },
});

const limitField = z.number({ error: "limits must be positive integers or null" }).int().positive().nullable().optional();
const setOperator = createRoute({
  method: "post",
  path: "/admin/operators/{id}",
  operationId: "adminUpdateOperator",
  tags: ["Admin"],
  summary: "Set an operator's tier, verified flag or custom rate limits",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    params: operatorIdParam,
    body: jsonBody(
      z.object({
        tier: z.enum(TIER_NAMES, { error: "tier must be free, growth or enterprise" }).optional(),
        verified: z.boolean({ error: "verified must be a boolean" }).optional(),
        rate_limit_per_minute: limitField,
        rate_limit_per_day: limitField,
      }),
    ),
  },
  responses: {
    200: json(z.object({ operator: view.schemas.operator }), "Updated", { operator: sample.operator }),
    ...errorResponses(400, 401, errors.operatorNotFound(), 503),
  },
});

const recover = createRoute({
  method: "post",
  path: "/admin/operators/{id}/keys",
  operationId: "adminRecoverOperator",
  tags: ["Admin"],
  summary: "Issue a recovery key with every scope to an operator that lost its keys",
  description:
    "The key is e-mailed to the operator (or returned where RETURN_KEYS_IN_RESPONSES=true). With `revoke_existing`, " +
    "every other key of the operator is revoked once the new key is delivered. Without a way to deliver it, nothing is issued: 503.",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    params: operatorIdParam,
    body: jsonBody(z.object({ revoke_existing: z.boolean({ error: "revoke_existing must be a boolean" }).optional() })),
  },
  responses: {
    201: json(z.object({ operator_id: z.number().int(), key_prefix: z.string(), revoked: z.number().int(), ...issued }), "Issued", {
      operator_id: sample.operator.id,
      key_prefix: sample.issuedKey.prefix,
      revoked: 2,
      delivery: "response",
      api_key: sample.issuedKey.api_key,
    }),
    ...errorResponses(400, 401, errors.operatorNotFound(), errors.keyDeliveryUnavailable()),
  },
});

const setAgent = createRoute({
  method: "post",
  path: "/admin/agents/{sid}",
  operationId: "adminSetAgentStatus",
  tags: ["Admin"],
  summary: "Set an agent's status (active or suspended)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    params: sidParam,
    body: jsonBody(z.object({ status: z.enum(AGENT_STATUSES, { error: `status must be one of: ${AGENT_STATUSES.join(", ")}` }) })),
  },
  responses: {
    200: json(z.object({ sid, status: z.enum(AGENT_STATUSES) }), "Updated", { sid: sample.scoreA.sid, status: "suspended" }),
    ...errorResponses(400, 401, 404, 503),
  },
});

const waitlistList = createRoute({
  method: "get",
  path: "/admin/waitlist",
  operationId: "adminListWaitlist",
  tags: ["Admin"],
  summary: "The early-access waitlist, oldest first (paginated)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { query: z.object(pageQuery) },
  responses: {
    200: json(z.object({ waitlist: z.array(view.schemas.waitlistEntry), next_cursor: nextCursor }), "Waitlist", {
      waitlist: [{ email: "dev@example.org", role: "developer", created_at: sample.application.created_at }],
      next_cursor: null,
    }),
    ...errorResponses(400, 401, 503),
  },
});

/** The delivery a key issued now will get; 503 before anything is issued when there is none. */
function deliveryOrRefuse(c: Context<AppEnv>) {
  const delivery = keyDelivery(c.env);
  if (!delivery) throw errors.keyDeliveryUnavailable();
  return delivery;
}

/** E-mails the key when e-mail is the delivery; false when that failed (the caller takes the key back). */
async function deliver(c: Context<AppEnv>, delivery: "email" | "response", to: { address: string; name: string }, key: string, reason: KeyEmailReason) {
  if (delivery === "response") return true;
  try {
    await emailKey(c.env.EMAIL!, c.env.EMAIL_FROM!, to, key, reason);
    return true;
  } catch (err) {
    console.error(JSON.stringify({ level: "error", message: "key e-mail failed", reason, error: String(err), request_id: c.get("requestId") }));
    return false;
  }
}

const shown = (delivery: "email" | "response", key: string) => (delivery === "response" ? { delivery, api_key: key } : { delivery });

const meter = createRoute({
  method: "get",
  path: "/admin/d1-meter",
  operationId: "adminReadD1Meter",
  tags: ["Admin"],
  summary: "D1 calls per database since the last reading (benchmark only: D1_METER=true)",
  description:
    "Batches, statements, and rows read and written as D1's result meta reports them, and the size in bytes the latest result reported, per database (DB, SHARD_n); the writes per table of each database; and each transparency log's own counters (leaves, batches, R2 writes, rows written in its object since it started). `reset=true` starts over (the logs' counters are totals: the reader takes differences).",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    query: z.object({
      reset: z
        .enum(["true", "false"])
        .optional()
        .openapi({ param: { name: "reset", in: "query", description: "true: start counting again after this reading" } }),
    }),
  },
  responses: {
    200: json(
      z.object({
        databases: z.record(
          z.string(),
          z.object({ batches: z.number(), statements: z.number(), rowsRead: z.number(), rowsWritten: z.number(), sizeAfter: z.number().nullable() }),
        ),
        tables: z.record(
          z.string(),
          z.record(z.string(), z.object({ batches: z.number(), statements: z.number(), rowsWritten: z.number(), changes: z.number() })),
        ),
        logs: z.record(
          z.string(),
          z
            .object({
              accepted: z.number(),
              published: z.number(),
              batches: z.number(),
              r2_writes: z.number(),
              storage_bytes: z.number(),
              rows_written_since_start: z.number(),
            })
            .nullable(),
        ),
      }),
      "Counts",
      {
        databases: {
          DB: { batches: 12, statements: 30, rowsRead: 41, rowsWritten: 9, sizeAfter: 126976 },
          SHARD_0: { batches: 20, statements: 44, rowsRead: 60, rowsWritten: 38, sizeAfter: 98304 },
        },
        tables: {
          SHARD_0: {
            entries: { batches: 10, statements: 10, rowsWritten: 10, changes: 10 },
            agents: { batches: 10, statements: 10, rowsWritten: 10, changes: 10 },
          },
        },
        logs: { "0": { accepted: 10, published: 10, batches: 1, r2_writes: 4, storage_bytes: 24576, rows_written_since_start: 11 } },
      },
    ),
    ...errorResponses(401, errors.notFound(), 503),
  },
});

export function registerAdmin(app: OpenAPIHono<AppEnv>) {
  app.openapi(meter, async (c) => {
    if (c.env.D1_METER !== "true") throw errors.notFound();
    // The logs' counters first, through the namespace unmetered: the reading does not count itself.
    const sequencers = unmetered(c.env.LOG_SEQUENCER);
    const logs = Object.fromEntries(
      await Promise.all(
        Array.from(
          { length: logCount(c.env) },
          async (_, n) =>
            [
              String(n),
              await sequencers
                .getByName(sequencerName(n))
                .stats()
                .catch(() => null),
            ] as const,
        ),
      ),
    );
    const databases = meterReading();
    const tables = tableReading();
    if (c.req.valid("query").reset === "true") resetMeter();
    return c.json({ databases, tables, logs }, 200);
  });

  app.openapi(list, async (c) => {
    const { status, limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.number().int()) ?? 0;
    const rows = await listApplications(c.get("db"), status, after, limit + 1);
    const page = pageOf(rows, limit, (a) => a.id);
    return c.json({ applications: page.items.map(view.application), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(approve, async (c) => {
    const found = await getApplication(c.get("db"), c.req.valid("param").id);
    if (!found) throw errors.applicationNotFound();
    if (found.status !== "pending") throw errors.applicationDecided(found.status);
    const delivery = deliveryOrRefuse(c);
    const key = await newApiKey();
    const now = new Date(c.get("deps").now()).toISOString();
    const created = await approveApplication(c.get("db"), found, { ...key, scopes: SCOPES }, now).catch(() => {
      throw errors.applicationRaced();
    });
    if (!(await deliver(c, delivery, { address: found.email, name: found.name }, key.key, "approval"))) {
      await undoApproval(c.get("db"), found.id, created.id);
      throw errors.keyEmailFailed();
    }
    return c.json({ operator: view.operator(created), ...shown(delivery, key.key) }, 200);
  });

  app.openapi(reject, async (c) => {
    const id = c.req.valid("param").id;
    const rejected = await rejectApplication(c.get("db"), id, new Date(c.get("deps").now()).toISOString());
    if (rejected) return c.json({ application: view.application(rejected) }, 200);
    const found = await getApplication(c.get("db"), id);
    if (!found) throw errors.applicationNotFound();
    throw errors.applicationDecided(found.status);
  });

  app.openapi(setOperator, async (c) => {
    const body = c.req.valid("json");
    const updated = await updateOperator(c.get("db"), c.req.valid("param").id, {
      tier: body.tier,
      verified: body.verified,
      rateLimitPerMinute: body.rate_limit_per_minute,
      rateLimitPerDay: body.rate_limit_per_day,
    });
    if (!updated) throw errors.operatorNotFound();
    await announceEpoch(c, updated.id, updated.authEpoch);
    forgetOperator(updated.id);
    return c.json({ operator: view.operator(updated) }, 200);
  });

  app.openapi(recover, async (c) => {
    const operatorId = c.req.valid("param").id;
    const operator = await getOperator(c.get("db"), operatorId);
    if (!operator) throw errors.operatorNotFound();
    const delivery = deliveryOrRefuse(c);
    const key = await newApiKey();
    const now = new Date(c.get("deps").now()).toISOString();
    const created = await insertKey(c.get("db"), { operatorId, ...key, scopes: SCOPES, now });
    if (!(await deliver(c, delivery, { address: operator.email, name: operator.name }, key.key, "recovery"))) {
      await deleteKey(c.get("db"), created.id);
      throw errors.keyEmailFailed();
    }
    let revoked = 0;
    if (c.req.valid("json").revoke_existing) {
      const done = await revokeOtherKeys(c.get("db"), operatorId, created.id, now);
      await announceEpoch(c, operatorId, done.epoch);
      revoked = done.revoked;
    }
    return c.json({ operator_id: operatorId, key_prefix: key.prefix, revoked, ...shown(delivery, key.key) }, 201);
  });

  app.openapi(waitlistList, async (c) => {
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.tuple([z.string(), z.string()]));
    const page = pageOf(await listWaitlist(c.get("db"), after, limit + 1), limit, (w) => [w.createdAt, w.email]);
    return c.json({ waitlist: page.items.map(view.waitlistEntry), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(setAgent, async (c) => {
    const { sid } = c.req.valid("param");
    const { status } = c.req.valid("json");
    const ref = await locate(c, sid);
    settle(c, sid, await agentOf(c, ref).setStatus(ref, status, c.get("deps").now()));
    // The badge and the page say whether the agent is suspended: this data centre's copies go now.
    purgeFace(c, sid);
    return c.json({ sid, status }, 200);
  });
}
