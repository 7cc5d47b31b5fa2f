// The admin's view of operators and their keys: the list, an operator's keys, and revoking one at
// once (a leaked key).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { getKey, listKeys, revokeKeyByAdmin } from "../db/keys";
import { getOperator, listOperators } from "../db/operators";
import { errors } from "../domain/errors";
import { announceEpoch, requireAdmin } from "../http/auth";
import type { AppEnv } from "../http/context";
import { DEFAULT_PAGE, pageOf, readCursor } from "../http/pagination";
import { admin as view } from "../http/wire/admin";
import { nextCursor } from "../http/wire/common";
import { keys as keyView } from "../http/wire/keys";
import { sample } from "./examples";
import { decimalId, operatorIdParam, pageQuery } from "./fields";
import { adminSecurity, createRoute, errorResponses, json } from "./openapi";

const operatorList = createRoute({
  method: "get",
  path: "/admin/operators",
  operationId: "adminListOperators",
  tags: ["Admin"],
  summary: "List operators, oldest first (paginated)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { query: z.object(pageQuery) },
  responses: {
    200: json(z.object({ operators: z.array(view.schemas.operator), next_cursor: nextCursor }), "Operators", {
      operators: [sample.operator],
      next_cursor: null,
    }),
    ...errorResponses(400, 401, 503),
  },
});

const keyIdParams = z.object({ id: operatorIdParam.shape.id, keyId: decimalId("keyId", "The key's id (GET /admin/operators/{id}/keys lists them)") });

const operatorKeys = createRoute({
  method: "get",
  path: "/admin/operators/{id}/keys",
  operationId: "adminListOperatorKeys",
  tags: ["Admin"],
  summary: "An operator's keys, by prefix (never the keys themselves), oldest first (paginated)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { params: operatorIdParam, query: z.object(pageQuery) },
  responses: {
    200: json(z.object({ keys: z.array(keyView.schemas.key), next_cursor: nextCursor }), "Keys", { keys: [sample.revokedKey, sample.key], next_cursor: null }),
    ...errorResponses(errors.badId(), 401, errors.operatorNotFound(), 503),
  },
});

const revokeOperatorKey = createRoute({
  method: "delete",
  path: "/admin/operators/{id}/keys/{keyId}",
  operationId: "adminRevokeOperatorKey",
  tags: ["Admin"],
  summary: "Revoke one of an operator's keys at once, its last valid key included",
  description:
    "For a leaked key, say. `valid_keys` counts the operator's keys that still authenticate; at 0 the operator is locked out " +
    "until it gets a recovery key (`POST /admin/operators/{id}/keys`).",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { params: keyIdParams },
  responses: {
    200: json(z.object({ operator_id: z.number().int(), key: keyView.schemas.key, valid_keys: z.number().int().min(0) }), "Revoked", {
      operator_id: sample.operator.id,
      key: sample.revokedKey,
      valid_keys: 1,
    }),
    ...errorResponses(errors.badId("keyId"), 401, errors.keyNotFound(), errors.keyAlreadyRevoked(), 503),
  },
});

export function registerAdminOperators(app: OpenAPIHono<AppEnv>) {
  app.openapi(operatorList, async (c) => {
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.number().int()) ?? 0;
    const page = pageOf(await listOperators(c.get("db"), after, limit + 1), limit, (o) => o.id);
    return c.json({ operators: page.items.map(view.operator), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(operatorKeys, async (c) => {
    const operatorId = c.req.valid("param").id;
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.number().int()) ?? 0;
    const [operator, rows] = await Promise.all([getOperator(c.get("db"), operatorId), listKeys(c.get("db"), operatorId, after, limit + 1)]);
    if (!operator) throw errors.operatorNotFound();
    const now = c.get("deps").now();
    const page = pageOf(rows, limit, (k) => k.id);
    return c.json({ keys: page.items.map((k) => keyView.key(k, now)), next_cursor: page.nextCursor }, 200);
  });

  app.openapi(revokeOperatorKey, async (c) => {
    const { id: operatorId, keyId } = c.req.valid("param");
    const now = c.get("deps").now();
    const found = await getKey(c.get("db"), operatorId, keyId);
    if (!found) throw errors.keyNotFound();
    const done = await revokeKeyByAdmin(c.get("db"), operatorId, keyId, new Date(now).toISOString());
    if (!done.revoked) {
      // A repeat after an announcement that failed: announce again, or the revoked key lives on in caches.
      const operator = await getOperator(c.get("db"), operatorId);
      if (operator) await announceEpoch(c, operatorId, operator.authEpoch);
      throw errors.keyAlreadyRevoked();
    }
    await announceEpoch(c, operatorId, done.epoch!);
    return c.json({ operator_id: operatorId, key: keyView.key(done.revoked, now), valid_keys: done.validKeys }, 200);
  });
}
