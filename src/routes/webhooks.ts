import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  deleteWatch,
  deleteWebhook,
  getDelivery,
  getWatch,
  getWebhook,
  insertDelivery,
  insertWatch,
  insertWebhook,
  listDeliveries,
  listWatches,
  listWebhooks,
  recordAttempt,
  resealWebhook,
  webhooksAfter,
} from "../db/webhooks";
import { errors } from "../domain/errors";
import { publicOrigin } from "../env";
import { DELIVERIES_LISTED_DAYS, EVENT_TYPES, PING, pingEvent } from "../domain/events";
import { LIMITS } from "../domain/limits";
import { keyRing, newWebhookSecret, openWith, seal } from "../domain/sealed";
import { locate } from "../http/agents";
import { authOf, requireAdmin, requireKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { DEFAULT_PAGE, pageOf, readCursor } from "../http/pagination";
import { webhookWire as view } from "../http/wire/webhooks";
import { consume } from "../http/rate-limit";
import { checkCallbackUrl } from "../net/callback-guard";
import { loopbackWebhooks } from "../net/loopback";
import { attemptDelivery } from "../net/webhook-delivery";
import { decimalId, pageQuery, sidParam } from "./fields";
import { nextCursor, sid } from "../http/wire/common";
import { sample } from "./examples";
import { adminSecurity, bearer, createRoute, errorResponses, json, jsonBody } from "./openapi";

export const MAX_WEBHOOKS = 10;
export const MAX_WATCHES = 1_000;

const createWebhook = createRoute({
  method: "post",
  path: "/webhooks",
  operationId: "createWebhook",
  tags: ["Notifications"],
  summary: "Register an HTTPS endpoint for events (at most 10 per operator); the signing secret is shown once",
  description:
    "Deliveries follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature), are retried with backoff for 24 hours, " +
    "then dead-lettered. The URL passes the SSRF guard at registration and at every delivery.",
  security: bearer,
  middleware: [requireKey("webhooks:write")],
  request: {
    body: jsonBody(
      z
        .object({
          url: z.string({ error: "url is required" }).openapi({ example: "https://ops.example.com/trust-events" }),
          events: z
            .array(z.enum(EVENT_TYPES, { error: `events must be among: ${EVENT_TYPES.join(", ")}` }), { error: "events must be an array" })
            .min(1, "events must name at least one event type")
            .optional()
            .openapi({ description: "Default: every event type" }),
        })
        .openapi("CreateWebhook"),
    ),
  },
  responses: {
    201: json(view.schemas.created, "Registered"),
    ...errorResponses(400, 401, 403, errors.tooManyWebhooks(MAX_WEBHOOKS), 429, errors.webhooksNotConfigured()),
  },
});

const webhookList = z.object({ webhooks: z.array(view.schemas.webhook), next_cursor: nextCursor });
const listHooks = createRoute({
  method: "get",
  path: "/webhooks",
  operationId: "listWebhooks",
  tags: ["Notifications"],
  summary: "The operator's webhook endpoints (paginated)",
  security: bearer,
  middleware: [requireKey(null)],
  request: { query: z.object(pageQuery) },
  responses: { 200: json(webhookList, "Endpoints", { webhooks: [sample.webhook], next_cursor: null }), ...errorResponses(400, 401, 429) },
});

const idParam = z.object({ id: decimalId("id", "The webhook's id") });
const removeHook = createRoute({
  method: "delete",
  path: "/webhooks/{id}",
  operationId: "deleteWebhook",
  tags: ["Notifications"],
  summary: "Remove an endpoint; its pending deliveries are dropped",
  security: bearer,
  middleware: [requireKey("webhooks:write")],
  request: { params: idParam },
  responses: {
    200: json(z.object({ id: z.number().int() }), "Removed", { id: sample.webhook.id }),
    ...errorResponses(errors.badId(), 401, 403, errors.webhookNotFound(), 429),
  },
});

const deliveries = createRoute({
  method: "get",
  path: "/webhooks/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Notifications"],
  summary: "The endpoint's deliveries of the last 7 days, newest first (paginated)",
  security: bearer,
  middleware: [requireKey(null)],
  request: { params: idParam, query: z.object(pageQuery) },
  responses: {
    200: json(z.object({ deliveries: z.array(view.schemas.delivery), next_cursor: nextCursor }), "Deliveries", {
      deliveries: [sample.delivery],
      next_cursor: null,
    }),
    ...errorResponses(400, 401, errors.webhookNotFound(), 429),
  },
});

const testHook = createRoute({
  method: "post",
  path: "/webhooks/{id}/test",
  operationId: "testWebhook",
  tags: ["Notifications"],
  summary: "Send a signed ping event to the endpoint now, and answer how it went (10 per minute per operator)",
  description:
    'The ping (`{type: "ping", timestamp, data: {webhook_id, message}}`) takes the path of every delivery: the SSRF guard checks the ' +
    "URL again, and the body is signed per Standard Webhooks with the endpoint's secret. It is tried once, never retried, and listed " +
    "with the endpoint's deliveries (`event_type: ping`): `delivered`, or `dead` with the status code or the reason it was not called.",
  security: bearer,
  middleware: [requireKey("webhooks:write")],
  request: { params: idParam },
  responses: {
    200: json(view.schemas.tested, "The attempt", { delivery: sample.pingDelivery }),
    ...errorResponses(errors.badId(), 401, 403, errors.webhookNotFound(), errors.tooManyWebhookTests(42), errors.webhooksNotConfigured()),
  },
});

const watch = createRoute({
  method: "post",
  path: "/watches",
  operationId: "watchAgent",
  tags: ["Notifications"],
  summary: "Watch an agent you deal with: your endpoints receive its score.changed events (at most 1,000)",
  security: bearer,
  middleware: [requireKey("webhooks:write")],
  request: { body: jsonBody(z.object({ sid: sidParam.shape.sid }).openapi("CreateWatch")) },
  responses: {
    201: json(view.schemas.watch, "Watching"),
    ...errorResponses(400, 401, 403, errors.agentNotFound(), errors.tooManyWatches(MAX_WATCHES), 429),
  },
});

const watchList = createRoute({
  method: "get",
  path: "/watches",
  operationId: "listWatches",
  tags: ["Notifications"],
  summary: "The agents the operator watches (paginated)",
  security: bearer,
  middleware: [requireKey(null)],
  request: { query: z.object(pageQuery) },
  responses: {
    200: json(z.object({ watches: z.array(view.schemas.watch), next_cursor: nextCursor }), "Watches", { watches: [sample.watch], next_cursor: null }),
    ...errorResponses(400, 401, 429),
  },
});

const unwatch = createRoute({
  method: "delete",
  path: "/watches/{sid}",
  operationId: "unwatchAgent",
  tags: ["Notifications"],
  summary: "Stop watching an agent",
  security: bearer,
  middleware: [requireKey("webhooks:write")],
  request: { params: sidParam },
  responses: { 200: json(z.object({ sid }), "Stopped", { sid: sample.watch.sid }), ...errorResponses(400, 401, 403, errors.notWatching(), 429) },
});

const reseal = createRoute({
  method: "post",
  path: "/admin/webhooks/reseal",
  operationId: "resealWebhookSecrets",
  tags: ["Admin"],
  summary: "Seal a page of webhook secrets again under WEBHOOK_SECRET_KEY (after a rotation), oldest first",
  description:
    "Secrets sealed under WEBHOOK_SECRET_KEY_PREVIOUS are sealed again under WEBHOOK_SECRET_KEY (deliveries also do it as they go). " +
    "Repeat with `cursor` until `next_cursor` is null; once `unreadable` is 0 on every page, the previous key can be removed.",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { query: z.object({ ...pageQuery }) },
  responses: {
    200: json(
      z.object({
        checked: z.number().int(),
        resealed: z.number().int().openapi({ description: "Sealed under the previous key, now under the current one" }),
        unreadable: z.number().int().openapi({ description: "Opened by neither key: their endpoints cannot be signed for" }),
        next_cursor: nextCursor,
      }),
      "The page's secrets",
      { checked: 50, resealed: 48, unreadable: 0, next_cursor: "NTA" },
    ),
    ...errorResponses(400, 401, 503),
  },
});

async function sealingRing(c: Context<AppEnv>) {
  const ring = await keyRing(c.env.WEBHOOK_SECRET_KEY, c.env.WEBHOOK_SECRET_KEY_PREVIOUS);
  if (!ring) throw errors.webhooksNotConfigured();
  return ring;
}

export function registerWebhooks(app: OpenAPIHono<AppEnv>) {
  app.openapi(reseal, async (c) => {
    const ring = await sealingRing(c);
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.number().int()) ?? 0;
    const page = pageOf(await webhooksAfter(c.get("db"), after, limit + 1), limit, (w) => w.id);
    let resealed = 0;
    let unreadable = 0;
    for (const w of page.items) {
      const opened = await openWith(ring, w.sealedSecret).catch(() => null);
      if (!opened) unreadable++;
      else if (opened.resealed) {
        await resealWebhook(c.get("db"), w.id, w.sealedSecret, opened.resealed);
        resealed++;
      }
    }
    return c.json({ checked: page.items.length, resealed, unreadable, next_cursor: page.nextCursor }, 200);
  });

  app.openapi(createWebhook, async (c) => {
    const body = c.req.valid("json");
    const { current: key } = await sealingRing(c);
    const resolve = c.get("deps").resolve;
    if (!resolve) throw errors.resolverUnavailable();
    const check = await checkCallbackUrl(body.url, resolve, "url", { loopback: loopbackWebhooks(c.env, publicOrigin(c.env)) });
    if (!check.ok) throw errors.invalid(check.message);
    const secret = newWebhookSecret();
    const events = [...new Set(body.events ?? EVENT_TYPES)].join(" ");
    const operatorId = authOf(c).operatorId;
    const createdAt = new Date(c.get("deps").now()).toISOString();
    const created = await insertWebhook(
      c.get("db"),
      { operatorId, url: check.url.href, events, sealedSecret: await seal(key, secret), createdAt },
      MAX_WEBHOOKS,
    );
    if (!created) throw errors.tooManyWebhooks(MAX_WEBHOOKS);
    return c.json(view.created({ id: created.id, url: check.url.href, events, createdAt }, secret), 201);
  });

  app.openapi(listHooks, async (c) => {
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.number().int()) ?? 0;
    const page = pageOf(await listWebhooks(c.get("db"), authOf(c).operatorId, after, limit + 1), limit, (w) => w.id);
    return c.json({ webhooks: page.items.map(view.webhook), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(removeHook, async (c) => {
    const removed = await deleteWebhook(c.get("db"), authOf(c).operatorId, c.req.valid("param").id);
    if (!removed) throw errors.webhookNotFound();
    return c.json({ id: removed.id }, 200);
  });

  app.openapi(deliveries, async (c) => {
    const id = c.req.valid("param").id;
    const hook = await getWebhook(c.get("db"), id);
    if (!hook || hook.operatorId !== authOf(c).operatorId) throw errors.webhookNotFound();
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const before = readCursor(cursor, z.number().int().positive());
    const since = new Date(c.get("deps").now() - DELIVERIES_LISTED_DAYS * 86_400_000).toISOString();
    const page = pageOf(await listDeliveries(c.get("db"), id, since, before, limit + 1), limit, (d) => d.id);
    return c.json({ deliveries: page.items.map(view.delivery), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(testHook, async (c) => {
    const id = c.req.valid("param").id;
    const operatorId = authOf(c).operatorId;
    const hook = await getWebhook(c.get("db"), id);
    if (!hook || hook.operatorId !== operatorId) throw errors.webhookNotFound();
    const decision = await consume(c, `webhook-test:${operatorId}`, [LIMITS.webhookTest]);
    if (!decision.allowed) throw errors.tooManyWebhookTests(decision.retryAfter);
    const ring = await sealingRing(c);
    const deps = c.get("deps");
    const at = new Date(deps.now());
    const ping = pingEvent(hook.id, at.toISOString(), crypto.randomUUID().replaceAll("-", ""));
    const deliveryId = await insertDelivery(c.get("db"), { webhookId: hook.id, eventId: ping.id, eventType: PING, at: at.toISOString() });
    const secret = await openWith(ring, hook.sealedSecret).catch(() => null);
    if (secret?.resealed) await resealWebhook(c.get("db"), hook.id, hook.sealedSecret, secret.resealed);
    const outcome = secret
      ? await attemptDelivery(
          hook.url,
          { id: ping.id, timestamp: at, payload: ping.payload, secret: secret.plaintext },
          { ...deps, loopback: loopbackWebhooks(c.env, publicOrigin(c.env)) },
        )
      : { delivered: false as const, status: null, error: "secret unreadable" };
    await recordAttempt(c.get("db"), deliveryId, {
      status: outcome.delivered ? "delivered" : "dead",
      statusCode: outcome.status,
      error: outcome.delivered ? null : outcome.error,
      at: new Date(deps.now()).toISOString(),
    });
    const delivery = await getDelivery(c.get("db"), deliveryId);
    if (!delivery) throw errors.internal();
    return c.json({ delivery: view.delivery(delivery) }, 200);
  });

  app.openapi(watch, async (c) => {
    const { sid } = c.req.valid("json");
    await locate(c, sid);
    const operatorId = authOf(c).operatorId;
    const createdAt = new Date(c.get("deps").now()).toISOString();
    if (!(await insertWatch(c.get("db"), { operatorId, sid, createdAt }, MAX_WATCHES))) {
      const existing = await getWatch(c.get("db"), operatorId, sid);
      if (!existing) throw errors.tooManyWatches(MAX_WATCHES);
      return c.json(view.watch(existing), 201);
    }
    return c.json(view.watch({ sid, createdAt }), 201);
  });

  app.openapi(watchList, async (c) => {
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.string()) ?? "";
    const page = pageOf(await listWatches(c.get("db"), authOf(c).operatorId, after, limit + 1), limit, (w) => w.sid);
    return c.json({ watches: page.items.map(view.watch), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(unwatch, async (c) => {
    const removed = await deleteWatch(c.get("db"), authOf(c).operatorId, c.req.valid("param").sid);
    if (!removed) throw errors.notWatching();
    return c.json({ sid: removed.sid }, 200);
  });
}
