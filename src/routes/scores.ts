import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { agentReport, agentScore } from "../http/agents";
import type { AppEnv } from "../http/context";
import { requireKey } from "../http/auth";
import { publicLimit } from "../http/rate-limit";
import { wire } from "../http/wire";
import { schemas as a } from "../http/wire/form-a";
import { schemas as b } from "../http/wire/form-b";
import { sidParam } from "./fields";
import { apiVersionHeader, bearer, errorResponses, json } from "./openapi";

const score = createRoute({
  method: "get",
  path: "/score/{sid}",
  tags: ["Scores"],
  summary: "The agent's full score",
  security: bearer,
  middleware: [requireKey("agents:read")],
  request: { params: sidParam, headers: apiVersionHeader },
  responses: { 200: json(z.union([a.score, b.score]), "Score (Form A or B)"), ...errorResponses(400, 401, 403, 404, 429) },
});

const publicScore = createRoute({
  method: "get",
  path: "/score/{sid}/public",
  tags: ["Scores"],
  summary: "The agent's reduced public score (no key, 5 per hour per IP)",
  middleware: [publicLimit("publicScore")],
  request: { params: sidParam, headers: apiVersionHeader },
  responses: { 200: json(z.union([a.publicScore, b.publicScore]), "Public score (Form A or B)"), ...errorResponses(400, 404, 429) },
});

const report = createRoute({
  method: "get",
  path: "/report/{sid}",
  tags: ["Scores"],
  summary: "The agent's full report: score, operator, history, transactions",
  security: bearer,
  middleware: [requireKey("agents:read")],
  request: { params: sidParam, headers: apiVersionHeader },
  responses: { 200: json(z.union([a.report, b.report]), "Report (Form A or B)"), ...errorResponses(400, 401, 403, 404, 429) },
});

const PUBLIC_CACHE = "public, max-age=60";

export function registerScores(app: OpenAPIHono<AppEnv>) {
  app.openapi(score, async (c) => {
    return c.json(wire(c).score(await agentScore(c, c.req.valid("param").sid)), 200);
  });

  app.openapi(publicScore, async (c) => {
    const found = await agentScore(c, c.req.valid("param").sid);
    // Made for web pages: a browser or CDN may keep it a minute; the form depends on API-Version.
    return c.json(wire(c).publicScore(found), 200, { "Cache-Control": PUBLIC_CACHE, Vary: "API-Version" });
  });

  app.openapi(report, async (c) => {
    return c.json(wire(c).report(await agentReport(c, c.req.valid("param").sid)), 200);
  });
}
