import type { MiddlewareHandler } from "hono";
import { SID_PATTERN } from "../domain/identifiers";
import type { AppEnv } from "./context";

// The edge cache of public trust badges (`GET /badge/{sid}.svg` and `.json`).
//
// Both formats are cached with the Cache API for 5 minutes under a synthetic key
// (https://badge.cache/<sid>.<ext>), so the host name the client used does not split the cache.
// A hit answers from the cache alone: no D1 read, no rate-limit object. Routes purge an agent's
// badges after a change that moved what they show. Caveats: the Cache API is per data centre and
// only works on a custom domain (on *.workers.dev it is a no-op, so every request is a miss there).
//
// In front of the Cache API, each isolate keeps the badges it served for up to 30 seconds (MEMO): a
// Cache API lookup leaves the isolate, and for a hot badge that round trip is most of the request
// (docs/performance.md). `purgeBadge` clears the memo of the isolate it runs in; other isolates keep
// their copy until it expires, which adds at most 30 seconds to the staleness other data centres
// already have (up to max-age).

export const BADGE_MAX_AGE = 300;
export const BADGE_CACHE_CONTROL = `public, max-age=${BADGE_MAX_AGE}, s-maxage=${BADGE_MAX_AGE}`;
export const BADGE_FORMATS = ["svg", "json"] as const;
export type BadgeFormat = (typeof BADGE_FORMATS)[number];

const CACHE_ORIGIN = "https://badge.cache";
export const badgeKey = (sid: string, format: BadgeFormat) => `${CACHE_ORIGIN}/${encodeURIComponent(sid)}.${format}`;

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
 * Drops the agent's cached badges (svg and json). The Cache API is per data centre: this purges only
 * the location that runs it, so other locations may serve the old badge until their copy expires
 * (at most max-age, 5 minutes).
 */
export async function purgeBadge(sid: string): Promise<void> {
  const cache = caches.default;
  for (const format of BADGE_FORMATS) MEMO.delete(badgeKey(sid, format));
  await Promise.all(BADGE_FORMATS.map((format) => cache.delete(badgeKey(sid, format))));
}

/** The cached badge (this isolate's memo, then the Cache API), or null. */
export async function cachedBadge(key: string): Promise<Response | null> {
  const recalled = recall(key);
  if (recalled) return recalled;
  const hit = await caches.default.match(key);
  if (!hit) return null;
  const body = await hit.text();
  const age = Number(hit.headers.get("age") ?? "0");
  remember(key, body, hit.status, hit.headers, (BADGE_MAX_AGE - (Number.isFinite(age) ? age : BADGE_MAX_AGE)) * 1000);
  return new Response(body, { status: hit.status, headers: hit.headers });
}

/** Keeps a freshly rendered badge in the edge cache and this isolate's memo. */
export async function storeBadge(waitUntil: (p: Promise<unknown>) => void, key: string, response: Response): Promise<Response> {
  const body = await response.text();
  waitUntil(caches.default.put(key, new Response(body, response)));
  remember(key, body, response.status, response.headers, BADGE_MAX_AGE * 1000);
  return new Response(body, response);
}

/** Requests `badgeFromCache` already looked up and missed, so the route does not look again. */
const missed = new WeakSet<Request>();
export const lookedUpAndMissed = (request: Request) => missed.has(request);

const BADGE_PATH = /^\/badge\/([^/]+)\.(svg|json)$/;

/**
 * Registered before the app's other middleware but the request id and CORS: a cached badge is
 * answered without the rest (no body, no wire form, no D1 session); a miss goes on to the route.
 */
export const badgeFromCache: MiddlewareHandler<AppEnv> = async (c, next) => {
  const match = BADGE_PATH.exec(c.req.path);
  if (c.req.method === "GET" && match && SID_PATTERN.test(match[1])) {
    const hit = await cachedBadge(badgeKey(match[1], match[2] as BadgeFormat));
    if (hit) return hit;
    missed.add(c.req.raw);
  }
  await next();
};
