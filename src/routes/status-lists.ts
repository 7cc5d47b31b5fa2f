import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { countUnlisted, setStatusEntry, unlistedAgents } from "../db/directory";
import { signJws } from "../domain/attestations";
import { errors } from "../domain/errors";
import { LIMITS } from "../domain/limits";
import { MAX_LISTS, STATUS_LIST_MEDIA_TYPE, STATUS_LIST_TYPE, statusListClaims } from "../domain/status-list";
import type { AgentRef } from "../domain/agent";
import { publicOrigin, statusListRebuildMs } from "../env";
import { requireAdmin } from "../http/auth";
import type { AppEnv } from "../http/context";
import { cachedAnswer, storeAnswer } from "../http/edge-cache";
import { readCursor, writeCursor } from "../http/pagination";
import { clientIp, consume } from "../http/rate-limit";
import { signingKeys } from "../http/signing-keys";
import { currentFacts, listAgent, statusListObject } from "../http/status-lists";
import { sample } from "./examples";
import { adminSecurity, createRoute, errorResponses, json, jsonBody, publicAccess } from "./openapi";

// The status lists: GET /status/{n} (public, edge-cached, rebuilt at most once a minute) and the
// admin backfill that lists agents registered before the lists existed.

export const statusListCacheKey = (origin: string, list: number) => `https://status-list.cache/${encodeURIComponent(origin)}/${list}`;

const listParam = z.object({
  n: z
    .string()
    .regex(/^(?:0|[1-9][0-9]{0,4})$/, `n must be a status list number between 0 and ${MAX_LISTS - 1}`)
    .transform(Number)
    .openapi({
      param: { name: "n", in: "path", description: "The list's number, as the `uri` of an agent's status pointer names it" },
      type: "integer",
      example: 0,
    }),
});

const statusList = createRoute({
  method: "get",
  path: "/status/{n}",
  operationId: "getStatusList",
  tags: ["Offline trust"],
  summary: "A status list: 2 bits per agent (0 valid, 1 gone, 2 suspended, 3 caution), signed; check any agent in it offline",
  description:
    "An IETF Token Status List token (draft-ietf-oauth-status-list, JWT form): header `typ: statuslist+jwt`, `alg: EdDSA`, `kid` " +
    "(a key of /.well-known/jwks.json); claims `iss`, `sub` (this list's URI), `iat`, `exp` (iat + 1 hour), `ttl` (300: fetch it " +
    "again after that long) and `status_list: {bits: 2, lst}` (ZLIB-compressed, base64url). Each agent's `idx` and list are in its " +
    "attestations (`status_list`) and credentials (`status.status_list`). Rebuilt at most once a minute and cached at the edge for a " +
    "minute; uncached requests are limited to 120 per minute per IP.",
  security: publicAccess,
  request: { params: listParam },
  responses: {
    200: { description: "The signed list", content: { [STATUS_LIST_MEDIA_TYPE]: { schema: z.string(), example: sample.statusListToken } } },
    ...errorResponses(
      errors.invalid(`n must be a status list number between 0 and ${MAX_LISTS - 1}`),
      errors.statusListNotFound(),
      429,
      errors.attestationsNotConfigured(),
    ),
  },
});

const BACKFILL_PAGE = 100;
const BACKFILL_LIMIT_TEXT = "limit must be an integer between 1 and 200";
const backfillBody = z
  .object({
    limit: z.number({ error: BACKFILL_LIMIT_TEXT }).int(BACKFILL_LIMIT_TEXT).min(1, BACKFILL_LIMIT_TEXT).max(200, BACKFILL_LIMIT_TEXT).optional(),
    cursor: z.string({ error: "Invalid cursor" }).max(512, "Invalid cursor").optional(),
  })
  .openapi("StatusBackfillRequest");

const backfill = createRoute({
  method: "post",
  path: "/admin/status-lists/backfill",
  operationId: "adminBackfillStatusLists",
  tags: ["Admin"],
  summary: "Lists agents registered before the status lists existed: one page per call, resumable",
  description:
    "Body `{}` or `{limit, cursor}`. Gives each agent of the page that has no place in the status lists one (with its status and recommendation as its object has them). " +
    "Send the answer's `next_cursor` back until it is null; a call without a cursor starts again from the first unlisted agent, so an " +
    "interrupted backfill resumes either way. Agents not listed yet are listed anyway on their first attestation or credential.",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { body: jsonBody(backfillBody) },
  responses: {
    200: json(
      z
        .object({
          listed: z.number().int(),
          skipped: z.number().int(),
          remaining: z.number().int().openapi({ description: "Unlisted agents after this page: what the calls still to come will visit (for progress)" }),
          next_cursor: z.string().nullable(),
        })
        .openapi("StatusBackfill"),
      "One page listed",
      { listed: 100, skipped: 0, remaining: 1_250, next_cursor: "eyJudW0iOjExMjN9" },
    ),
    ...errorResponses(400, 401, 503),
  },
});

/** Lists one unlisted agent as its object says it is; false when it or the lists cannot be reached. */
async function listNow(c: Context<AppEnv>, ref: AgentRef): Promise<boolean> {
  const facts = await currentFacts(c, ref).catch(() => null);
  if (!facts) return false;
  const place = await listAgent(c, ref.sid, facts);
  if (!place) return false;
  await setStatusEntry(c.env.DB.withSession("first-primary"), ref.sid, place.list, place.idx);
  return true;
}

export function registerStatusLists(app: OpenAPIHono<AppEnv>) {
  app.openapi(statusList, async (c) => {
    const { n } = c.req.valid("param");
    const origin = publicOrigin(c.env);
    const key = statusListCacheKey(origin, n);
    const hit = await cachedAnswer(key);
    if (hit) return hit;
    const decision = await consume(c, `ip:status:${clientIp(c)}`, [LIMITS.badge]);
    if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
    const keys = await signingKeys(c);
    const built = await statusListObject(c.env, n).snapshot(c.get("deps").now());
    if (!built) throw errors.statusListNotFound();
    const token = await signJws(statusListClaims(origin, n, built.lst, built.issuedAt), keys[0], STATUS_LIST_TYPE);
    const response = c.body(token, 200, { "Content-Type": STATUS_LIST_MEDIA_TYPE, "Cache-Control": `public, max-age=${statusListRebuildMs(c.env) / 1000}` });
    return storeAnswer((p) => c.executionCtx.waitUntil(p), key, response);
  });

  app.openapi(backfill, async (c) => {
    const body = c.req.valid("json");
    const limit = body.limit ?? BACKFILL_PAGE;
    const after = readCursor(body.cursor, z.object({ num: z.number().int() }))?.num ?? 0;
    const page = await unlistedAgents(c.env.DB.withSession("first-primary"), after, limit);
    let listed = 0;
    for (const entry of page) if (await listNow(c, { sid: entry.sid, num: entry.num, shard: entry.shard, log: entry.log })) listed++;
    const next = page.length === limit ? writeCursor({ num: page[page.length - 1].num }) : null;
    const remaining = next === null ? 0 : await countUnlisted(c.env.DB.withSession("first-primary"), page[page.length - 1].num);
    return c.json({ listed, skipped: page.length - listed, remaining, next_cursor: next }, 200);
  });
}
