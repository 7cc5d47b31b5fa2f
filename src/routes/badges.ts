import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { makeBadge } from "badge-maker";
import type { Context } from "hono";
import { readAgentScore } from "../db/agents";
import { errors } from "../domain/errors";
import { SID_PATTERN } from "../domain/identifiers";
import type { Recommendation } from "../domain/scoring";
import type { AppEnv } from "../env";
import { clientIp, consume, LIMITS } from "../http/rate-limit";
import { errorResponses } from "./common";

// Public trust badges: `GET /badge/{sid}.svg` (shields.io flat style) and its twin
// `GET /badge/{sid}.json` (the shields.io endpoint format, for https://shields.io/badges/endpoint-badge).
//
// Both are cached at the edge with the Cache API for 5 minutes under a synthetic key
// (https://badge.cache/<sid>.<ext>), so the host name the client used does not split the cache.
// A hit answers from the cache alone: no D1 read, no rate-limit object. Only a miss reads D1 and
// counts against the per-IP limit (120 per minute). The agent's scorer calls `purgeBadge` after every
// score change. Caveats: the Cache API is per data centre and only works on a custom domain (on
// *.workers.dev it is a no-op, so every request is a miss there).

const LABEL = "trust";
const MAX_AGE = 300;
const CACHE_CONTROL = `public, max-age=${MAX_AGE}, s-maxage=${MAX_AGE}`;
const CACHE_ORIGIN = "https://badge.cache";
const FORMATS = ["svg", "json"] as const;
type Format = (typeof FORMATS)[number];

// shields.io named colours (badge-maker 6 palette: green #67ac09, yellow #d8b800, red #dd4343, lightgrey #939393).
const COLOURS: Record<Recommendation, string> = { clear: "green", review: "yellow", caution: "red" };
const UNKNOWN = { message: "unknown", color: "lightgrey" };

interface BadgeFace {
  message: string;
  color: string;
}

const cacheKey = (sid: string, format: Format) => `${CACHE_ORIGIN}/${encodeURIComponent(sid)}.${format}`;

/**
 * Drops the agent's cached badges (svg and json). Called by the agent's scorer after every score
 * change. The Cache API is per data centre: this purges only the location that runs it, so other
 * locations may serve the old badge until their copy expires (at most max-age, 5 minutes).
 */
export async function purgeBadge(sid: string): Promise<void> {
  const cache = caches.default;
  await Promise.all(FORMATS.map((format) => cache.delete(cacheKey(sid, format))));
}

function render(format: Format, face: BadgeFace, status: 200 | 404): Response {
  const headers = {
    "Cache-Control": CACHE_CONTROL,
    "Access-Control-Allow-Origin": "*",
    "X-Content-Type-Options": "nosniff",
  };
  if (format === "json") {
    const body = JSON.stringify({ schemaVersion: 1, label: LABEL, message: face.message, color: face.color });
    return new Response(body, { status, headers: { ...headers, "Content-Type": "application/json" } });
  }
  const svg = makeBadge({ label: LABEL, message: face.message, color: face.color, style: "flat" });
  return new Response(svg, { status, headers: { ...headers, "Content-Type": "image/svg+xml" } });
}

/** The badge of a well-formed SID: from the edge cache, or from D1 (counted per IP) and then cached. */
async function badge(c: Context<AppEnv>, sid: string, format: Format): Promise<Response> {
  // A malformed SID can never exist: the grey badge, without D1, the limiter or the cache.
  if (!SID_PATTERN.test(sid)) return render(format, UNKNOWN, 404);

  const cache = caches.default;
  const key = cacheKey(sid, format);
  const hit = await cache.match(key);
  if (hit) return new Response(hit.body, hit);

  const decision = await consume(c, `ip:badge:${clientIp(c)}`, [LIMITS.badge]);
  if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);

  const found = await readAgentScore(c.get("db"), sid, c.get("deps").now());
  // SIDs are 64 random bits, so a well-formed SID that is unknown now will not appear within the
  // 5 minutes its grey badge is cached: caching it too spares D1 repeated lookups of a bad link.
  const response = found
    ? render(format, { message: `${found.score.composite} · ${found.score.recommendation}`, color: COLOURS[found.score.recommendation] }, 200)
    : render(format, UNKNOWN, 404);
  c.executionCtx.waitUntil(cache.put(key, response.clone()));
  return response;
}

// The OpenAPI description. Routing uses one Hono pattern per format below, because an OpenAPI
// path like /badge/{sid}.svg would become the Hono parameter `:sid.svg`.
const sidPath = z.object({
  sid: z.string().openapi({ param: { name: "sid", in: "path" }, example: "SID-0x3f9a0c1d2e4b5a69" }),
});

const svgRoute = createRoute({
  method: "get",
  path: "/badge/{sid}.svg",
  tags: ["Badges"],
  summary: "The agent's public trust badge (SVG, shields.io flat style)",
  description:
    "Label `trust`, message `<composite> · <recommendation>`; green for clear, yellow for review, red for caution. " +
    "A grey `unknown` badge with status 404 for an unknown or malformed SID. Cached at the edge for 5 minutes; " +
    "uncached requests are limited to 120 per minute per IP.",
  request: { params: sidPath },
  responses: {
    200: { description: "The badge", content: { "image/svg+xml": { schema: z.string() } } },
    404: { description: "Unknown agent: a grey `unknown` badge", content: { "image/svg+xml": { schema: z.string() } } },
    ...errorResponses(429),
  },
});

const endpointSchema = z
  .object({
    schemaVersion: z.literal(1),
    label: z.string().openapi({ example: LABEL }),
    message: z.string().openapi({ example: "812 · clear" }),
    color: z.string().openapi({ example: "green" }),
  })
  .openapi("BadgeEndpoint");

const jsonRoute = createRoute({
  method: "get",
  path: "/badge/{sid}.json",
  tags: ["Badges"],
  summary: "The agent's badge in the shields.io endpoint format",
  description: "The same badge as `/badge/{sid}.svg`, as JSON for https://shields.io/badges/endpoint-badge; same caching and limits.",
  request: { params: sidPath },
  responses: {
    200: { description: "The badge", content: { "application/json": { schema: endpointSchema } } },
    404: { description: "Unknown agent: message `unknown`, colour lightgrey", content: { "application/json": { schema: endpointSchema } } },
    ...errorResponses(429),
  },
});

export function registerBadges(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath(svgRoute);
  app.openAPIRegistry.registerPath(jsonRoute);
  // One Hono route for both formats: two routes with the same parameter under different patterns
  // make Hono's RegExpRouter give up, and SmartRouter would then use the slower TrieRouter for
  // every route of the app. `[^/]+` keeps the parameter inside one path segment.
  app.get("/badge/:file{[^/]+\\.(?:svg|json)}", (c) => {
    const file = c.req.param("file");
    const format: Format = file.endsWith(".svg") ? "svg" : "json";
    return badge(c, file.slice(0, file.length - format.length - 1), format);
  });
}
