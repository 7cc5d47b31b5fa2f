import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { agentScore } from "../http/agents";
import { ApiError, errors } from "../domain/errors";
import { SID_PATTERN } from "../domain/identifiers";
import type { AppEnv } from "../http/context";
import { clientIp, consume } from "../http/rate-limit";
import { BADGE_CACHE_CONTROL, badgeKey, cachedBadge, lookedUpAndMissed, storeBadge, type BadgeFormat } from "../http/badge-cache";
import { BADGE_COLOURS, BADGE_LABEL, badgeFace, badgeSvg, UNKNOWN_FACE, type BadgeColour } from "../http/wire/badge-svg";
import { LIMITS } from "../domain/limits";
import { sample } from "./examples";
import { createRoute, errorResponses, json, publicAccess } from "./openapi";

// Public trust badges: `GET /badge/{sid}.svg` (shields.io flat style) and its twin
// `GET /badge/{sid}.json` (the shields.io endpoint format, for https://shields.io/badges/endpoint-badge),
// edge-cached (src/http/badge-cache.ts); only a miss reads D1 and counts against the per-IP limit.

const LABEL = BADGE_LABEL;

const UNKNOWN: BadgeFace = UNKNOWN_FACE;

interface BadgeFace {
  message: string;
  color: BadgeColour;
}

function render(format: BadgeFormat, face: BadgeFace, status: 200 | 404): Response {
  const headers = {
    "Cache-Control": BADGE_CACHE_CONTROL,
    "Access-Control-Allow-Origin": "*",
    "X-Content-Type-Options": "nosniff",
  };
  if (format === "json") {
    const body = JSON.stringify({ schemaVersion: 1, label: LABEL, message: face.message, color: face.color });
    return new Response(body, { status, headers: { ...headers, "Content-Type": "application/json" } });
  }
  const svg = badgeSvg(LABEL, face.message, face.color);
  return new Response(svg, { status, headers: { ...headers, "Content-Type": "image/svg+xml" } });
}

/** The badge of a well-formed SID: from the edge cache, or from D1 (counted per IP) and then cached. */
async function badge(c: Context<AppEnv>, sid: string, format: BadgeFormat): Promise<Response> {
  // A malformed SID can never exist: the grey badge, without D1, the limiter or the cache.
  if (!SID_PATTERN.test(sid)) return render(format, UNKNOWN, 404);

  const key = badgeKey(sid, format);
  const hit = lookedUpAndMissed(c.req.raw) ? null : await cachedBadge(key);
  if (hit) return hit;

  const decision = await consume(c, `ip:badge:${clientIp(c)}`, [LIMITS.badge]);
  if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);

  const found = await agentScore(c, sid).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === "not_found") return null;
    throw err;
  });
  // SIDs are 64 random bits, so a well-formed SID that is unknown now will not appear within the
  // 5 minutes its grey badge is cached: caching it too spares D1 repeated lookups of a bad link.
  const response = found
    ? render(format, badgeFace({ ...found.score, identityLevel: found.identityLevel, status: found.status }), 200)
    : render(format, UNKNOWN, 404);
  return storeBadge((p) => c.executionCtx.waitUntil(p), key, response);
}

// The OpenAPI description. Routing uses its own Hono pattern below, because an OpenAPI path like
// /badge/{sid}.svg would become the Hono parameter `:sid.svg`.
const sidPath = z.object({
  sid: z.string().openapi({
    param: { name: "sid", in: "path", description: "The agent's SID; any other text gets the grey unknown badge" },
    example: "SID-0x3f9a0c1d2e4b5a69",
  }),
});

const svgRoute = createRoute({
  method: "get",
  path: "/badge/{sid}.svg",
  operationId: "getBadgeSvg",
  tags: ["Badges"],
  summary: "The agent's public trust badge (SVG, shields.io flat style)",
  description:
    "Label `trust`, message `<composite> · <recommendation>`; green for clear, yellow for review, red for caution; a grey " +
    "`suspended` for an agent an admin suspended. A grey `unknown` badge with status 404 for an unknown or malformed SID. Cached at the edge for 5 minutes; " +
    "uncached requests are limited to 120 per minute per IP.",
  security: publicAccess,
  request: { params: sidPath },
  responses: {
    200: { description: "The badge", content: { "image/svg+xml": { schema: z.string(), example: sample.badgeSvg } } },
    404: {
      description: "Unknown agent: a grey `unknown` badge",
      content: { "image/svg+xml": { schema: z.string(), example: badgeSvg(LABEL, UNKNOWN.message, UNKNOWN.color) } },
    },
    ...errorResponses(429),
  },
});

const endpointSchema = z
  .object({
    schemaVersion: z.literal(1),
    label: z.literal(LABEL),
    message: z.string(),
    color: z.enum(Object.keys(BADGE_COLOURS) as [BadgeColour, ...BadgeColour[]]),
  })
  .openapi("BadgeEndpoint");

const jsonRoute = createRoute({
  method: "get",
  path: "/badge/{sid}.json",
  operationId: "getBadgeJson",
  tags: ["Badges"],
  summary: "The agent's badge in the shields.io endpoint format",
  description: "The same badge as `/badge/{sid}.svg`, as JSON for https://shields.io/badges/endpoint-badge; same caching and limits.",
  security: publicAccess,
  request: { params: sidPath },
  responses: {
    200: json(endpointSchema, "The badge", sample.badgeEndpoint),
    404: json(endpointSchema, "Unknown agent: message `unknown`, colour lightgrey", { schemaVersion: 1, label: LABEL, ...UNKNOWN }),
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
    const format: BadgeFormat = file.endsWith(".svg") ? "svg" : "json";
    return badge(c, file.slice(0, file.length - format.length - 1), format);
  });
}
