import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { entriesAfter } from "../db/archived-reads";
import { errors } from "../domain/errors";
import { authOf, requireKey } from "../http/auth";
import { ownedAgent } from "../http/agents";
import type { AppEnv } from "../http/context";
import { logOriginOf } from "../http/log-origin";
import { ownerLogKeys } from "../http/log-keys";
import { agentTagOf } from "../http/log-proof";
import { DEFAULT_PAGE, pageOf, readCursor } from "../http/pagination";
import { entryList, entryListSchema } from "../http/wire/entries";
import { logKeysSchema } from "../http/wire/log-keys";
import { pageQuery, sidParam } from "./fields";
import { sample } from "./examples";
import { bearer, createRoute, errorResponses, json } from "./openapi";

// GET /agents/{sid}/entries: the agent's chained history in full, for its owner, oldest first: what
// `npm run verify` checks against the transparency log and replays to the agent's score.

const list = createRoute({
  method: "get",
  path: "/agents/{sid}/entries",
  operationId: "listAgentEntries",
  tags: ["Transparency log"],
  summary: "The agent's chained history entries in full, oldest first (owner; paginated): verify them with the log",
  description:
    "Each entry's canonical JSON (RFC 8785) and hash, the composite its log leaf commits to, and the clear text of its salted hashes. " +
    "The same payload under API-Version B. See docs/transparency.md.",
  security: bearer,
  middleware: [requireKey("agents:read")],
  request: { params: sidParam, query: z.object(pageQuery) },
  responses: { 200: json(entryListSchema, "Entries", sample.entries), ...errorResponses(400, 401, errors.notOwner(), 404, 429, errors.logKeyNotConfigured()) },
});

// GET /agents/{sid}/log-keys: the owner's keys to its agent's leaves, which name no agent in public.
const logKeys = createRoute({
  method: "get",
  path: "/agents/{sid}/log-keys",
  operationId: "getAgentLogKeys",
  tags: ["Transparency log"],
  summary: "The keys that find the agent's leaves in its log, for the epochs the caller owned it (owner)",
  description:
    "A leaf is `{tag, commit}`: `tag` = HMAC-SHA256(k, `<n>`) under the agent's key k of the owner epoch entry n falls in, so only a holder of k " +
    "links the agent's leaves. Entries up to `cutover` have leaves of the format before, named by `agent`. " +
    "The same payload under API-Version B. See docs/transparency.md.",
  security: bearer,
  middleware: [requireKey("agents:read")],
  request: { params: sidParam },
  responses: { 200: json(logKeysSchema, "Keys", sample.logKeys), ...errorResponses(400, 401, errors.notOwner(), 404, 429, errors.logKeyNotConfigured()) },
});

export function registerEntries(app: OpenAPIHono<AppEnv>) {
  app.openapi(logKeys, async (c) => {
    const { sid } = c.req.valid("param");
    const operatorId = authOf(c).operatorId;
    const { ref, row } = await ownedAgent(c, sid, operatorId);
    return c.json(await ownerLogKeys(c, ref, row, operatorId), 200);
  });
  app.openapi(list, async (c) => {
    const { sid } = c.req.valid("param");
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const { ref } = await ownedAgent(c, sid, authOf(c).operatorId);
    const after = readCursor(cursor, z.number().int().positive()) ?? 0;
    const agent = await agentTagOf(c, sid);
    if (!agent) throw errors.logKeyNotConfigured();
    // Entries older than the retention window come from the archive, transparently.
    const rows = await entriesAfter(c.get("sessions").shard(ref.shard), c.env.ARCHIVE_BUCKET, sid, after, limit + 1);
    const page = pageOf(rows, limit, (e) => e.n);
    return c.json(entryList(sid, { log: ref.log, origin: await logOriginOf(c, ref.log), agent }, page.items, page.nextCursor), 200);
  });
}
