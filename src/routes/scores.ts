import { type OpenAPIHono } from "@hono/zod-openapi";
import { agentReport, agentScore } from "../http/agents";
import type { AppEnv } from "../http/context";
import { requireKey } from "../http/auth";
import { publicLimit } from "../http/rate-limit";
import { wire } from "../http/wire";
import { schemas as a } from "../http/wire/form-a";
import { schemas as b } from "../http/wire/form-b";
import { sidParam } from "./fields";
import { bearer, byForm, createRoute, errorResponses, json, publicAccess } from "./openapi";

const score = createRoute({
  method: "get",
  path: "/score/{sid}",
  operationId: "getScore",
  tags: ["Scores"],
  summary: "The agent's full score: composite, dimensions, confidence, recommendation and reasons",
  security: bearer,
  middleware: [requireKey("agents:read")],
  request: { params: sidParam },
  responses: { 200: json(byForm({ A: a.score, B: b.score }), "The score"), ...errorResponses(400, 401, 403, 404, 429) },
});

const PUBLIC_CACHE = "public, max-age=60";

const publicScore = createRoute({
  method: "get",
  path: "/score/{sid}/public",
  operationId: "getPublicScore",
  tags: ["Scores"],
  summary: "The agent's reduced public score, for display",
  description:
    "Made for web pages: any origin may read it, and a browser or CDN may keep it a minute. A conditional read " +
    "(If-None-Match) answered 304 does not count in the 5 per hour, only in a revalidation limit of 60 per minute per client address.",
  security: publicAccess,
  middleware: [publicLimit("publicScore", "publicScoreRevalidation")],
  request: { params: sidParam },
  responses: {
    200: {
      ...json(byForm({ A: a.publicScore, B: b.publicScore }), "The public score"),
      headers: { Vary: { description: "The body depends on API-Version", required: true, schema: { type: "string", enum: ["API-Version"] } } },
    },
    ...errorResponses(400, 404, 429),
  },
});

const report = createRoute({
  method: "get",
  path: "/report/{sid}",
  operationId: "getReport",
  tags: ["Scores"],
  summary: "The agent's full report: score, operator, score and configuration history, transactions, open disputes",
  security: bearer,
  middleware: [requireKey("agents:read")],
  request: { params: sidParam },
  responses: { 200: json(byForm({ A: a.report, B: b.report }), "The report"), ...errorResponses(400, 401, 403, 404, 429) },
});

export function registerScores(app: OpenAPIHono<AppEnv>) {
  app.openapi(score, async (c) => {
    return c.json(wire(c).score(await agentScore(c, c.req.valid("param").sid)), 200);
  });

  app.openapi(publicScore, async (c) => {
    const found = await agentScore(c, c.req.valid("param").sid);
    return c.json(wire(c).publicScore(found), 200, { "Cache-Control": PUBLIC_CACHE, Vary: "API-Version" });
  });

  app.openapi(report, async (c) => {
    return c.json(wire(c).report(await agentReport(c, c.req.valid("param").sid)), 200);
  });
}
