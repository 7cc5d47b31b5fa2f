import { publicOrigin } from "../env";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errors } from "../domain/errors";
import { SID_PATTERN } from "../domain/identifiers";
import { LIMITS } from "../domain/limits";
import { settle } from "../http/agent-result";
import { locate, agentOf } from "../http/agents";
import { authOf, requireKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { cachedAnswer, storeAnswer } from "../http/edge-cache";
import { prefersHtml } from "../http/negotiation";
import { agentPageView, PAGE_MAX_AGE_S, pageKey, purgePage } from "../http/public-page";
import { agentScore } from "../http/agents";
import { clientIp, consume, publicLimit } from "../http/rate-limit";
import { renderPageError, toApiError, wire } from "../http/wire";
import { pageHeaders } from "../http/wire/page/document";
import { renderAgentPage } from "../http/wire/page/agent-page";
import { schemas as a } from "../http/wire/form-a";
import { schemas as b } from "../http/wire/form-b";
import { publicProfileSchema, publicProfileView } from "../http/wire/public-page";
import { MISSING } from "../http/validation";
import { sample } from "./examples";
import { sidParam } from "./fields";
import { bearer, byForm, createRoute, errorEnvelope, errorResponses, json, jsonBody, publicAccess } from "./openapi";

// The agent's public page: GET /agents/{sid} answers a browser (Accept: text/html) with a page a
// person reads, server-rendered, cached and limited like badges, and every other client with the
// public score as JSON (counted like GET /score/{sid}/public). Each representation is cached under a
// key of its own, and every answer says `Vary: Accept`. Its owner opts in to show more with
// PUT /agents/{sid}/public-profile.

const html = (example: string) => ({ "text/html": { schema: z.string(), example } });

const page = createRoute({
  method: "get",
  path: "/agents/{sid}",
  operationId: "getAgentPage",
  tags: ["Pages"],
  summary: "The agent, for people and programs: its public page for Accept: text/html, its public score as JSON otherwise",
  description:
    "By content negotiation. A client that ranks `text/html` above `application/json` (a browser) gets the page: server-rendered " +
    "HTML with no script and nothing from another origin: the badge, the composite score and recommendation, the confidence, " +
    "the identity level and the operator's name (what `GET /score/{sid}/public` shows), and how to verify them: the current " +
    "attestation, the JWKS URL and the command that checks them. When the owner opted in (`PUT /agents/{sid}/public-profile`), " +
    "also the reasons in plain words, the five dimensions, the score history as a chart and open disputes (never who reported). " +
    "A suspended agent's page says so and carries no attestation. Uncached pages are limited to 120 per minute per IP; " +
    "`API-Version` does not apply to the page.\n\n" +
    "Any other client (no Accept, `*/*`, `application/json`) gets the public score, exactly as `GET /score/{sid}/public` answers " +
    "it in the requested form, and every such request counts against that route's limit (5 per hour per IP; a conditional read " +
    "answered 304 only in the revalidation limit). Each representation is cached at the edge for 60 seconds under its own key, " +
    "and every answer carries `Vary: Accept`.",
  security: publicAccess,
  request: {
    params: z.object({ sid: z.string().openapi({ param: { name: "sid", in: "path", description: "The agent's SID" }, example: "SID-0x3f9a0c1d2e4b5a69" }) }),
  },
  responses: {
    200: {
      description: "The page (text/html), or the public score (application/json, in the form API-Version names)",
      headers: {
        Vary: { description: "The answer depends on Accept (and the JSON on API-Version)", required: true, schema: { type: "string", example: "Accept" } },
      },
      content: { ...html(sample.publicPage), ...json(byForm({ A: a.publicScore, B: b.publicScore }), "").content },
    },
    400: {
      description: "A malformed SID (JSON clients; a browser gets the 404 page)",
      content: { "application/json": { schema: errorEnvelope, example: errors.invalid("Invalid SID format. Expected: SID-0x[16 hex chars]") } },
    },
    404: {
      description: "No agent has this SID: a page, or the JSON error",
      content: { ...html(sample.unknownAgentPage), "application/json": { schema: errorEnvelope, example: errors.agentNotFound() } },
    },
    429: {
      description: "Rate limited: retry after Retry-After seconds (a page, or the JSON error)",
      content: { ...html(sample.rateLimitedPage), "application/json": { schema: errorEnvelope, example: errors.rateLimited(60) } },
    },
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
          public_profile: z.boolean({
            error: (issue) => (issue.input === undefined || issue.input === null ? MISSING : "public_profile must be true or false"),
          }),
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
  const key = pageKey(publicOrigin(c.env), sid, "html");
  const hit = await cachedAnswer(key);
  if (hit) return hit;
  const decision = await consume(c, `ip:page:${clientIp(c)}`, [LIMITS.publicPage]);
  if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
  const body = renderAgentPage(await agentPageView(c, sid));
  const response = new Response(body, { headers: { ...(await pageHeaders()), "Cache-Control": `public, max-age=${PAGE_MAX_AGE_S}` } });
  return storeAnswer((p) => c.executionCtx.waitUntil(p), key, response);
}

const PUBLIC_SCORE_MAX_AGE_S = 60;

/**
 * The public score as GET /score/{sid}/public answers it, from the edge cache (its form's key) or
 * read and cached. The caller has counted the request.
 */
async function publicScoreAnswer(c: Context<AppEnv>, sid: string): Promise<Response> {
  if (!SID_PATTERN.test(sid)) throw errors.invalid("Invalid SID format. Expected: SID-0x[16 hex chars]");
  const key = pageKey(publicOrigin(c.env), sid, c.get("form") === "B" ? "json-b" : "json-a");
  const hit = await cachedAnswer(key);
  if (hit) return hit;
  const body = wire(c).publicScore(await agentScore(c, sid));
  const response = c.json(body, 200, { "Cache-Control": `public, max-age=${PUBLIC_SCORE_MAX_AGE_S}` });
  return storeAnswer((p) => c.executionCtx.waitUntil(p), key, response);
}

/** Every answer of the path depends on Accept (the JSON on API-Version too), errors included. */
function varying(response: Response, json: boolean): Response {
  response.headers.set("Vary", json ? "Accept, API-Version" : "Accept");
  return response;
}

export function registerPublicPage(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath(page);
  const countPublicScore = publicLimit("publicScore", "publicScoreRevalidation");
  app.get(
    "/agents/:sid",
    async (c, next) => {
      if (!prefersHtml(c.req.header("accept"))) {
        try {
          await next();
        } finally {
          varying(c.res, true);
        }
        return;
      }
      let response: Response;
      try {
        response = await agentPage(c, c.req.param("sid"));
      } catch (err) {
        response = await renderPageError(c, toApiError(err, c.get("requestId")));
      }
      return varying(response, false);
    },
    // Any other client: the public score, counted against its route's limit.
    countPublicScore,
    async (c) => publicScoreAnswer(c, c.req.param("sid")),
  );

  app.openapi(setting, async (c) => {
    const { sid } = c.req.valid("param");
    const ref = await locate(c, sid);
    const out = await agentOf(c, ref).setPublicProfile(ref, {
      callerId: authOf(c).operatorId,
      publicProfile: c.req.valid("json").public_profile,
      now: c.get("deps").now(),
    });
    const { publicProfile } = settle(c, sid, out);
    const origin = publicOrigin(c.env);
    c.executionCtx.waitUntil(purgePage(origin, sid));
    return c.json(publicProfileView(sid, publicProfile, origin), 200);
  });
}
