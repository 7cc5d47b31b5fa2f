import { publicOrigin } from "../env";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errors } from "../domain/errors";
import { SID_PATTERN } from "../domain/identifiers";
import { LIMITS } from "../domain/limits";
import { settle } from "../http/agent-result";
import { locate, scorerOf } from "../http/agents";
import { authOf, requireKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { cachedAnswer, storeAnswer } from "../http/edge-cache";
import { prefersHtml } from "../http/negotiation";
import { agentPageView, PAGE_MAX_AGE_S, pageKey, purgePage } from "../http/public-page";
import { clientIp, consume } from "../http/rate-limit";
import { renderPageError, toApiError } from "../http/wire";
import { pageHeaders } from "../http/wire/page/document";
import { renderAgentPage } from "../http/wire/page/agent-page";
import { publicProfileSchema, publicProfileView } from "../http/wire/public-page";
import { MISSING } from "../http/validation";
import { sample } from "./examples";
import { sidParam } from "./fields";
import { bearer, createRoute, errorEnvelope, errorResponses, json, jsonBody, publicAccess } from "./openapi";

// The agent's public page: GET /agents/{sid} answers a browser (Accept: text/html) with a page a
// person reads, server-rendered, cached and limited like badges; every other client keeps the JSON
// 404 the path always gave. Its owner opts in to show more with PUT /agents/{sid}/public-profile.

const html = (example: string) => ({ "text/html": { schema: z.string(), example } });

const page = createRoute({
  method: "get",
  path: "/agents/{sid}",
  operationId: "getAgentPage",
  tags: ["Pages"],
  summary: "The agent's public page, for people: send Accept: text/html (as a browser does)",
  description:
    "Server-rendered HTML with no script and nothing from another origin: the badge, the composite score and recommendation, " +
    "the confidence, the identity level and the operator's name (what `GET /score/{sid}/public` shows), and how to verify them: " +
    "the current attestation, the JWKS URL and the command that checks them. When the owner opted in " +
    "(`PUT /agents/{sid}/public-profile`), also the reasons in plain words, the five dimensions, the score history as a chart " +
    "and open disputes (never who reported). A suspended agent's page says so and carries no attestation. " +
    "Cached at the edge for 60 seconds; uncached requests are limited to 120 per minute per IP. `API-Version` does not apply. " +
    "A client that does not rank `text/html` above `application/json` gets the JSON 404 `Not found`, as before the page existed.",
  security: publicAccess,
  request: {
    params: z.object({ sid: z.string().openapi({ param: { name: "sid", in: "path", description: "The agent's SID" }, example: "SID-0x3f9a0c1d2e4b5a69" }) }),
  },
  responses: {
    200: {
      description: "The page",
      headers: { Vary: { description: "The answer depends on Accept", required: true, schema: { type: "string", enum: ["Accept"] } } },
      content: html(sample.publicPage),
    },
    404: {
      description: "No agent has this SID (a page); or the client did not ask for HTML (JSON, as always)",
      content: { ...html(sample.unknownAgentPage), "application/json": { schema: errorEnvelope, example: errors.notFound() } },
    },
    429: { description: "Rate limited: retry after Retry-After seconds (a page)", content: html(sample.rateLimitedPage) },
  },
});

const setting = createRoute({
  method: "put",
  path: "/agents/{sid}/public-profile",
  operationId: "setPublicProfile",
  tags: ["Agents"],
  summary: "Choose what the agent's public page shows (owner)",
  description:
    "`public_profile: true` adds to the agent's public page (`GET /agents/{sid}` in a browser) the reasons in plain words, the five " +
    "dimensions, the score history and open disputes; `false` (every agent's start) shows only what the public score shows. " +
    "Takes effect at once in the data centre that made the change, elsewhere within a minute.",
  security: bearer,
  middleware: [requireKey("agents:write")],
  request: {
    params: sidParam,
    body: jsonBody(
      z
        .object({
          public_profile: z.boolean({ error: (issue) => (issue.input === undefined || issue.input === null ? MISSING : "public_profile must be true or false") }),
        })
        .openapi("PublicProfileRequest"),
    ),
  },
  responses: {
    200: json(publicProfileSchema, "The agent's setting now", sample.publicProfile),
    ...errorResponses(errors.missingFields(["public_profile"]), 401, 403, 404, 413, 429),
  },
});

/** The page from the edge cache, or made (counted per IP), cached, and answered. */
async function agentPage(c: Context<AppEnv>, sid: string): Promise<Response> {
  // A malformed SID can never exist: the 404 page, without D1, the limiter or the cache.
  if (!SID_PATTERN.test(sid)) throw errors.agentNotFound();
  const key = pageKey(publicOrigin(c.env), sid);
  const hit = await cachedAnswer(key);
  if (hit) return hit;
  const decision = await consume(c, `ip:page:${clientIp(c)}`, [LIMITS.publicPage]);
  if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
  const body = renderAgentPage(await agentPageView(c, sid));
  const response = new Response(body, { headers: { ...(await pageHeaders()), "Cache-Control": `public, max-age=${PAGE_MAX_AGE_S}` } });
  return storeAnswer((p) => c.executionCtx.waitUntil(p), key, response);
}

export function registerPublicPage(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath(page);
  app.get("/agents/:sid", async (c) => {
    // Every answer of the path depends on Accept, the JSON 404 included.
    c.header("Vary", "Accept");
    if (!prefersHtml(c.req.header("accept"))) throw errors.notFound();
    let response: Response;
    try {
      response = await agentPage(c, c.req.param("sid"));
    } catch (err) {
      response = await renderPageError(c, toApiError(err, c.get("requestId")));
    }
    response.headers.set("Vary", "Accept");
    return response;
  });

  app.openapi(setting, async (c) => {
    const { sid } = c.req.valid("param");
    const ref = await locate(c, sid);
    const out = await scorerOf(c, ref).setPublicProfile(ref, { callerId: authOf(c).operatorId, publicProfile: c.req.valid("json").public_profile, now: c.get("deps").now() });
    const { publicProfile } = settle(c, sid, out);
    const origin = publicOrigin(c.env);
    c.executionCtx.waitUntil(purgePage(origin, sid));
    return c.json(publicProfileView(sid, publicProfile, origin), 200);
  });
}
