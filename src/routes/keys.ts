import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { getKey, insertKey, listKeys, revokeKey, rotateKey } from "../db/keys";
import { errors } from "../domain/errors";
import { newApiKey } from "../domain/identifiers";
import { parseScopes, SCOPES } from "../domain/scopes";
import { announceEpoch, authOf, requireKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { DEFAULT_PAGE, pageOf, readCursor } from "../http/pagination";
import { keys as view } from "../http/wire/keys";
import { decimalId, pageQuery } from "./fields";
import { nextCursor } from "../http/wire/common";
import { sample } from "./examples";
import { bearer, createRoute, errorResponses, json, jsonBody } from "./openapi";

export const ROTATION_GRACE_MS = 24 * 3600 * 1000;

const rotate = createRoute({
  method: "post",
  path: "/keys/rotate",
  operationId: "rotateKey",
  tags: ["Keys"],
  summary: "Issue a new key with the calling key's scopes; the calling key stays valid for 24 hours",
  description:
    "During its grace period the old key keeps only agents:read, agents:write, transactions:write and verify:write: " +
    "it can no longer manage keys, agent signing keys, webhooks or disputes.",
  security: bearer,
  middleware: [requireKey("keys:write")],
  responses: {
    201: json(z.object({ key: view.schemas.issued, previous_key: view.schemas.key }), "Rotated", { key: sample.issuedKey, previous_key: sample.expiringKey }),
    ...errorResponses(401, 403, 429),
  },
});

const create = createRoute({
  method: "post",
  path: "/keys",
  operationId: "createKey",
  tags: ["Keys"],
  summary: "Create another key, with the same or narrower scopes than the calling key",
  security: bearer,
  middleware: [requireKey("keys:write")],
  request: {
    body: jsonBody(
      z.object({
        scopes: z
          .array(z.enum(SCOPES, { error: `scopes must be among: ${SCOPES.join(", ")}` }), { error: "Missing required fields: scopes" })
          .min(1, "scopes must name at least one scope"),
      }),
    ),
  },
  responses: { 201: json(z.object({ key: view.schemas.issued }), "Created", { key: sample.issuedKey }), ...errorResponses(400, 401, 403, 429) },
});

const list = createRoute({
  method: "get",
  path: "/keys",
  operationId: "listKeys",
  tags: ["Keys"],
  summary: "The operator's keys, by prefix (never the keys themselves), oldest first (paginated)",
  security: bearer,
  middleware: [requireKey(null)],
  request: { query: z.object(pageQuery) },
  responses: {
    200: json(z.object({ keys: z.array(view.schemas.key), next_cursor: nextCursor }), "Keys", { keys: [sample.key], next_cursor: null }),
    ...errorResponses(400, 401, 429),
  },
});

const revoke = createRoute({
  method: "delete",
  path: "/keys/{id}",
  operationId: "revokeKey",
  tags: ["Keys"],
  summary: "Revoke one of the operator's keys at once (not its last lasting key, nor a key with a scope the calling key lacks)",
  security: bearer,
  middleware: [requireKey("keys:write")],
  request: { params: z.object({ id: decimalId("id", "The key's id (GET /keys lists them)") }) },
  responses: {
    200: json(z.object({ key: view.schemas.key }), "Revoked", { key: sample.revokedKey }),
    ...errorResponses(errors.badId(), 401, 403, errors.keyNotFound(), errors.lastKey(), 429),
  },
});

export function registerKeys(app: OpenAPIHono<AppEnv>) {
  app.openapi(rotate, async (c) => {
    const auth = authOf(c);
    const now = c.get("deps").now();
    const next = await newApiKey();
    const { created, old, epoch } = await rotateKey(
      c.get("db"),
      auth,
      { ...next, scopes: auth.scopes },
      new Date(now).toISOString(),
      new Date(now + ROTATION_GRACE_MS).toISOString(),
    );
    await announceEpoch(c, auth.operatorId, epoch);
    return c.json({ key: view.issued(created, now, next.key), previous_key: view.key(old, now) }, 201);
  });

  app.openapi(create, async (c) => {
    const auth = authOf(c);
    const scopes = [...new Set(c.req.valid("json").scopes)];
    const beyond = scopes.find((s) => !auth.scopes.includes(s));
    if (beyond) throw errors.insufficientScope(beyond);
    const now = c.get("deps").now();
    const next = await newApiKey();
    const created = await insertKey(c.get("db"), { operatorId: auth.operatorId, ...next, scopes, now: new Date(now).toISOString() });
    return c.json({ key: view.issued(created, now, next.key) }, 201);
  });

  app.openapi(list, async (c) => {
    const now = c.get("deps").now();
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.number().int()) ?? 0;
    const page = pageOf(await listKeys(c.get("db"), authOf(c).operatorId, after, limit + 1), limit, (k) => k.id);
    return c.json({ keys: page.items.map((k) => view.key(k, now)), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(revoke, async (c) => {
    const auth = authOf(c);
    const id = c.req.valid("param").id;
    const now = c.get("deps").now();
    // As for creation: a key may act only on keys within its own scopes, so a narrow key-manager key
    // cannot take away the operator's full key. A key's scopes never change, so reading first is safe.
    const target = await getKey(c.get("db"), auth.operatorId, id);
    if (!target) throw errors.keyNotFound();
    const beyond = parseScopes(target.scopes).find((s) => !auth.scopes.includes(s));
    if (beyond) throw errors.insufficientScope(beyond);
    const { revoked, epoch } = await revokeKey(c.get("db"), auth.operatorId, id, new Date(now).toISOString());
    if (revoked) {
      await announceEpoch(c, auth.operatorId, epoch);
      return c.json({ key: view.key(revoked, now) }, 200);
    }
    if (target.revokedAt) throw errors.keyAlreadyRevoked();
    throw errors.lastKey();
  });
}
