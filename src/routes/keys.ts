import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { getKey, insertKey, listKeys, revokeKey, rotateKey, type KeyRow } from "../db/keys";
import { ApiError, errors } from "../domain/errors";
import { newApiKey } from "../domain/identifiers";
import type { AppEnv } from "../env";
import { announceEpoch, authOf, requireKey, SCOPES, type Scope } from "../http/auth";
import { bearer, errorResponses, json, jsonBody } from "./common";

export const ROTATION_GRACE_MS = 24 * 3600 * 1000;

const keySchema = z
  .object({
    id: z.number(),
    prefix: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    status: z.enum(["active", "expiring", "expired", "revoked"]),
    created_at: z.string(),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi("ApiKey");
const issuedSchema = keySchema.extend({ api_key: z.string().openapi({ description: "Shown only this once" }) }).openapi("IssuedApiKey");

function keyView(k: KeyRow, now: number) {
  const status = k.revokedAt
    ? ("revoked" as const)
    : k.expiresAt
      ? Date.parse(k.expiresAt) <= now
        ? ("expired" as const)
        : ("expiring" as const)
      : ("active" as const);
  return {
    id: k.id,
    prefix: k.prefix,
    scopes: k.scopes.split(" ") as Scope[],
    status,
    created_at: k.createdAt,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
  };
}

const rotate = createRoute({
  method: "post",
  path: "/keys/rotate",
  tags: ["Keys"],
  summary: "Issue a new key with the calling key's scopes; the calling key stays valid for 24 hours",
  security: bearer,
  middleware: [requireKey(null)],
  responses: {
    201: json(z.object({ key: issuedSchema, previous_key: keySchema }), "Rotated"),
    ...errorResponses(401, 429),
  },
});

const create = createRoute({
  method: "post",
  path: "/keys",
  tags: ["Keys"],
  summary: "Create another key, with the same or narrower scopes than the calling key",
  security: bearer,
  middleware: [requireKey(null)],
  request: {
    body: jsonBody(
      z.object({
        scopes: z
          .array(z.enum(SCOPES, { error: `scopes must be among: ${SCOPES.join(", ")}` }), { error: "Missing required fields: scopes" })
          .min(1, "scopes must name at least one scope"),
      }),
    ),
  },
  responses: { 201: json(z.object({ key: issuedSchema }), "Created"), ...errorResponses(400, 401, 403, 429) },
});

const list = createRoute({
  method: "get",
  path: "/keys",
  tags: ["Keys"],
  summary: "The operator's keys, by prefix (never the keys themselves)",
  security: bearer,
  middleware: [requireKey(null)],
  responses: { 200: json(z.object({ keys: z.array(keySchema) }), "Keys"), ...errorResponses(401, 429) },
});

const revoke = createRoute({
  method: "delete",
  path: "/keys/{id}",
  tags: ["Keys"],
  summary: "Revoke one of the operator's keys at once (not its last lasting key)",
  security: bearer,
  middleware: [requireKey(null)],
  request: {
    params: z.object({
      id: z.coerce.number({ error: "id must be a number" }).int().positive("id must be a positive integer").openapi({ param: { name: "id", in: "path" } }),
    }),
  },
  responses: { 200: json(z.object({ key: keySchema }), "Revoked"), ...errorResponses(400, 401, 404, 409, 429) },
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
    return c.json({ key: { ...keyView(created, now), api_key: next.key }, previous_key: keyView(old, now) }, 201);
  });

  app.openapi(create, async (c) => {
    const auth = authOf(c);
    const scopes = [...new Set(c.req.valid("json").scopes)];
    const beyond = scopes.find((s) => !auth.scopes.includes(s));
    if (beyond) throw errors.insufficientScope(beyond);
    const now = c.get("deps").now();
    const next = await newApiKey();
    const created = await insertKey(c.get("db"), { operatorId: auth.operatorId, ...next, scopes, now: new Date(now).toISOString() });
    return c.json({ key: { ...keyView(created, now), api_key: next.key } }, 201);
  });

  app.openapi(list, async (c) => {
    const now = c.get("deps").now();
    const keys = await listKeys(c.get("db"), authOf(c).operatorId);
    return c.json({ keys: keys.map((k) => keyView(k, now)) }, 200);
  });

  app.openapi(revoke, async (c) => {
    const auth = authOf(c);
    const id = c.req.valid("param").id;
    const now = c.get("deps").now();
    const { revoked, epoch } = await revokeKey(c.get("db"), auth.operatorId, id, new Date(now).toISOString());
    if (revoked) {
      await announceEpoch(c, auth.operatorId, epoch);
      return c.json({ key: keyView(revoked, now) }, 200);
    }
    const found = await getKey(c.get("db"), auth.operatorId, id);
    if (!found) throw errors.notFound("API key not found");
    if (found.revokedAt) throw new ApiError("conflict", "API key is already revoked");
    throw new ApiError("conflict", "Cannot revoke the operator's last valid API key; create or rotate a key first");
  });
}
