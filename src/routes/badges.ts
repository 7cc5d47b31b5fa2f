import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { readAgentScore } from "../db/agents";
import { errors } from "../domain/errors";
import { SID_PATTERN } from "../domain/identifiers";
import type { Recommendation } from "../domain/scoring";
import type { AppEnv } from "../env";
import { clientIp, consume, LIMITS } from "../http/rate-limit";
import { badgeSvg, type BadgeColour } from "../http/wire/badge-svg";
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
//
// In front of the Cache API, each isolate keeps the badges it served for up to 30 seconds (MEMO): a
// Cache API lookup leaves the isolate, and for a hot badge that round trip is most of the request
// (docs/performance.md). `purgeBadge` clears the memo of the isolate it runs in; other isolates keep
// their copy until it expires, which adds at most 30 seconds to the staleness other data centres
// already have (up to max-age).

const LABEL = "trust";
const MAX_AGE = 300;
const CACHE_CONTROL = `public, max-age=${MAX_AGE}, s-maxage=${MAX_AGE}`;
const CACHE_ORIGIN = "https://badge.cache";
const FORMATS = ["svg", "json"] as const;
type Format = (typeof FORMATS)[number];

// shields.io named colours; the SVG paints them as badge-maker 6 does (http/wire/badge-svg.ts).
const COLOURS: Record<Recommendation, BadgeColour> = { clear: "green", review: "yellow", caution: "red" };
const UNKNOWN: BadgeFace = { message: "unknown", color: "lightgrey" };

interface BadgeFace {
  message: string;
  color: BadgeColour;
}

const cacheKey = (sid: string, format: Format) => `${CACHE_ORIGIN}/${encodeURIComponent(sid)}.${format}`;

const MEMO_TTL_MS = 30_000;
const MEMO_MAX_ENTRIES = 2_000; // ~1.3 KB each
interface Memo {
  body: string;
  status: number;
  headers: [string, string][];
  expires: number;
}
/** This isolate's recent badges by cache key; insertion order is age order, so eviction is FIFO. */
const MEMO = new Map<string, Memo>();

function remember(key: string, body: string, status: number, headers: Headers, maxAgeLeftMs: number) {
  if (MEMO.size >= MEMO_MAX_ENTRIES) MEMO.delete(MEMO.keys().next().value as string);
  const kept = [...headers].filter(([name]) => name !== "age" && name !== "cf-cache-status");
  MEMO.delete(key);
  MEMO.set(key, { body, status, headers: kept, expires: Date.now() + Math.min(MEMO_TTL_MS, maxAgeLeftMs) });
}

function recall(key: string): Response | null {
  const memo = MEMO.get(key);
  if (!memo) return null;
  if (memo.expires <= Date.now()) {
    MEMO.delete(key);
    return null;
  }
  return new Response(memo.body, { status: memo.status, headers: memo.headers });
}

/**
 * Drops the agent's cached badges (svg and json). Called by the agent's scorer after every score
 * change. The Cache API is per data centre: this purges only the location that runs it, so other
 * locations may serve the old badge until their copy expires (at most max-age, 5 minutes).
 */
export async function purgeBadge(sid: string): Promise<void> {
  const cache = caches.default;
  for (const format of FORMATS) MEMO.delete(cacheKey(sid, format));
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
  const svg = badgeSvg(LABEL, face.message, face.color);
  return new Response(svg, { status, headers: { ...headers, "Content-Type": "image/svg+xml" } });
}

/** Requests `badgeFromCache` already looked up and missed, so the route does not look again. */
const missed = new WeakSet<Request>();

/** The cached badge (this isolate's memo, then the Cache API), or null. */
async function cached(key: string): Promise<Response | null> {
  const recalled = recall(key);
  if (recalled) return recalled;
  const hit = await caches.default.match(key);
  if (!hit) return null;
  const body = await hit.text();
  const age = Number(hit.headers.get("age") ?? "0");
  remember(key, body, hit.status, hit.headers, (MAX_AGE - (Number.isFinite(age) ? age : MAX_AGE)) * 1000);
  return new Response(body, { status: hit.status, headers: hit.headers });
}

const BADGE_PATH = /^\/badge\/([^/]+)\.(svg|json)$/;

/**
 * Optional fast path: registered before the app's other middleware (`app.use("/badge/*",
 * badgeFromCache)`), a cached badge is answered without them; a miss goes on to the route. A badge
 * needs none of them on a hit: no body, no wire form, no D1 session.
 */
export const badgeFromCache: MiddlewareHandler<AppEnv> = async (c, next) => {
  const match = BADGE_PATH.exec(c.req.path);
  if (c.req.method === "GET" && match && SID_PATTERN.test(match[1])) {
    const hit = await cached(cacheKey(match[1], match[2] as Format));
    if (hit) return hit;
    missed.add(c.req.raw);
  }
  await next();
};

/** The badge of a well-formed SID: from the edge cache, or from D1 (counted per IP) and then cached. */
async function badge(c: Context<AppEnv>, sid: string, format: Format): Promise<Response> {
  // A malformed SID can never exist: the grey badge, without D1, the limiter or the cache.
  if (!SID_PATTERN.test(sid)) return render(format, UNKNOWN, 404);

  const key = cacheKey(sid, format);
  const cache = caches.default;
  const hit = missed.has(c.req.raw) ? null : await cached(key);
  if (hit) return hit;

  const decision = await consume(c, `ip:badge:${clientIp(c)}`, [LIMITS.badge]);
  if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);

  const found = await readAgentScore(c.get("db"), sid, c.get("deps").now());
  // SIDs are 64 random bits, so a well-formed SID that is unknown now will not appear within the
  // 5 minutes its grey badge is cached: caching it too spares D1 repeated lookups of a bad link.
  const response = found
    ? render(format, { message: `${found.score.composite} · ${found.score.recommendation}`, color: COLOURS[found.score.recommendation] }, 200)
    : render(format, UNKNOWN, 404);
  const body = await response.text();
  c.executionCtx.waitUntil(cache.put(key, new Response(body, response)));
  remember(key, body, response.status, response.headers, MAX_AGE * 1000);
  return new Response(body, response);
}

// The OpenAPI description. Routing uses its own Hono pattern below, because an OpenAPI path like
// /badge/{sid}.svg would become the Hono parameter `:sid.svg`.
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
