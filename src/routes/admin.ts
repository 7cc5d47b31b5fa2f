import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { approveApplication, getApplication, listApplications, rejectApplication, updateOperator } from "../db/operators";
import { ApiError, errors } from "../domain/errors";
import { newApiKey } from "../domain/identifiers";
import type { AppEnv, Env } from "../env";
import { announceEpoch, requireAdmin, SCOPES } from "../http/auth";
import { TIERS } from "../http/rate-limit";
import { errorResponses, json, jsonBody, sidParam } from "./common";

const adminSecurity = [{ adminAuth: [] }];
const idParam = z.object({
  id: z.coerce.number({ error: "id must be a number" }).int().positive("id must be a positive integer").openapi({ param: { name: "id", in: "path" } }),
});

const applicationSchema = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string(),
  company: z.string().nullable(),
  reason: z.string().nullable(),
  status: z.enum(["pending", "approved", "rejected"]),
  created_at: z.string(),
});
const operatorSchema = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string(),
  tier: z.enum(["free", "growth", "enterprise"]),
  verified: z.boolean(),
  rate_limit_per_minute: z.number().nullable(),
  rate_limit_per_day: z.number().nullable(),
  created_at: z.string(),
});

type ApplicationRow = NonNullable<Awaited<ReturnType<typeof getApplication>>>;
type OperatorRow = NonNullable<Awaited<ReturnType<typeof updateOperator>>>;
const application = (a: ApplicationRow) => ({
  id: a.id,
  name: a.name,
  email: a.email,
  company: a.company,
  reason: a.reason,
  status: a.status,
  created_at: a.createdAt,
});
const operator = (o: OperatorRow) => ({
  id: o.id,
  name: o.name,
  email: o.email,
  tier: o.tier,
  verified: o.verified,
  rate_limit_per_minute: o.rateLimitPerMinute,
  rate_limit_per_day: o.rateLimitPerDay,
  created_at: o.createdAt,
});

const list = createRoute({
  method: "get",
  path: "/admin/applications",
  tags: ["Admin"],
  summary: "List operator applications",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    query: z.object({ status: z.enum(["pending", "approved", "rejected"], { error: "status must be pending, approved or rejected" }).optional() }),
  },
  responses: { 200: json(z.object({ applications: z.array(applicationSchema) }), "Applications"), ...errorResponses(400, 401) },
});

const approve = createRoute({
  method: "post",
  path: "/admin/applications/{id}/approve",
  tags: ["Admin"],
  summary: "Approve an application: creates the operator and its first key, e-mailed once",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { params: idParam },
  responses: {
    200: json(
      z.object({
        operator: operatorSchema,
        delivery: z.enum(["email", "response"]),
        api_key: z.string().optional().openapi({ description: "Only when e-mail is not configured; shown once" }),
      }),
      "Approved",
    ),
    ...errorResponses(401, 404, 409),
  },
});

const reject = createRoute({
  method: "post",
  path: "/admin/applications/{id}/reject",
  tags: ["Admin"],
  summary: "Reject a pending application",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { params: idParam },
  responses: { 200: json(z.object({ application: applicationSchema }), "Rejected"), ...errorResponses(401, 404, 409) },
});

const limitField = z.number({ error: "limits must be positive integers or null" }).int().positive().nullable().optional();
const setOperator = createRoute({
  method: "post",
  path: "/admin/operators/{id}",
  tags: ["Admin"],
  summary: "Set an operator's tier, verified flag or custom rate limits",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    params: idParam,
    body: jsonBody(
      z.object({
        tier: z.enum(Object.keys(TIERS) as [keyof typeof TIERS], { error: "tier must be free, growth or enterprise" }).optional(),
        verified: z.boolean({ error: "verified must be a boolean" }).optional(),
        rate_limit_per_minute: limitField,
        rate_limit_per_day: limitField,
      }),
    ),
  },
  responses: { 200: json(z.object({ operator: operatorSchema }), "Updated"), ...errorResponses(400, 401, 404) },
});

const setAgent = createRoute({
  method: "post",
  path: "/admin/agents/{sid}",
  tags: ["Admin"],
  summary: "Set an agent's status (active or suspended)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    params: sidParam,
    body: jsonBody(z.object({ status: z.enum(["active", "suspended"], { error: "status must be active or suspended" }) })),
  },
  responses: { 200: json(z.object({ sid: z.string(), status: z.enum(["active", "suspended"]) }), "Updated"), ...errorResponses(400, 401, 404) },
});

async function emailKey(env: Env, to: string, name: string, key: string): Promise<boolean> {
  if (!env.EMAIL || !env.EMAIL_FROM) return false;
  await env.EMAIL.send({
    from: env.EMAIL_FROM,
    to,
    subject: "Your agent trust service API key",
    text:
      `Hello ${name},\n\nyour application was approved. Your API key:\n\n${key}\n\n` +
      "It is shown only this once. Keep it on a server, never in client code or version control.\n",
  });
  return true;
}

export function registerAdmin(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) => {
    const rows = await listApplications(c.get("db"), c.req.valid("query").status);
    return c.json({ applications: rows.map(application) }, 200);
  });

  app.openapi(approve, async (c) => {
    const found = await getApplication(c.get("db"), c.req.valid("param").id);
    if (!found) throw errors.notFound("Application not found");
    if (found.status !== "pending") throw new ApiError("conflict", `Application is already ${found.status}`);
    const key = await newApiKey();
    const now = new Date(c.get("deps").now()).toISOString();
    const created = await approveApplication(c.get("db"), found, { ...key, scopes: SCOPES }, now).catch(() => {
      throw new ApiError("conflict", "Application was approved concurrently");
    });
    let emailed = false;
    try {
      emailed = await emailKey(c.env, found.email, found.name, key.key);
    } catch (err) {
      // The key exists only here now: hand it to the admin rather than lose it.
      console.error("approval e-mail failed", err);
    }
    return c.json(
      emailed
        ? { operator: operator(created), delivery: "email" as const }
        : { operator: operator(created), delivery: "response" as const, api_key: key.key },
      200,
    );
  });

  app.openapi(reject, async (c) => {
    const id = c.req.valid("param").id;
    const rejected = await rejectApplication(c.get("db"), id, new Date(c.get("deps").now()).toISOString());
    if (rejected) return c.json({ application: application(rejected) }, 200);
    const found = await getApplication(c.get("db"), id);
    if (!found) throw errors.notFound("Application not found");
    throw new ApiError("conflict", `Application is already ${found.status}`);
  });

  app.openapi(setOperator, async (c) => {
    const body = c.req.valid("json");
    const updated = await updateOperator(c.get("db"), c.req.valid("param").id, {
      tier: body.tier,
      verified: body.verified,
      rateLimitPerMinute: body.rate_limit_per_minute,
      rateLimitPerDay: body.rate_limit_per_day,
    });
    if (!updated) throw errors.notFound("Operator not found");
    await announceEpoch(c, updated.id, updated.authEpoch);
    return c.json({ operator: operator(updated) }, 200);
  });

  app.openapi(setAgent, async (c) => {
    const { sid } = c.req.valid("param");
    const { status } = c.req.valid("json");
    const out = await c.env.AGENT_SCORER.getByName(sid).setStatus(sid, status);
    if (!out.ok) throw out.refusal === "not_found" ? errors.agentNotFound() : new ApiError("unavailable", "Status not saved; retry");
    return c.json({ sid, status }, 200);
  });
}
