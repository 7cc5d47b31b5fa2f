import type { MiddlewareHandler } from "hono";
import { SID_PATTERN } from "../domain/identifiers";
import type { AppEnv } from "./context";
import { cachedAnswer, dropAnswer, storeAnswer } from "./edge-cache";

// The edge cache of public trust badges (`GET /badge/{sid}.svg` and `.json`), in src/http/edge-cache.ts:
// a hit answers from the cache alone (no D1 read, no rate-limit object); routes purge an agent's
// badges after a change that moved what they show. Caveats: the Cache API is per data centre and
// only works on a custom domain (on *.workers.dev it is a no-op, so every request is a miss there).
// `purgeBadge` clears the memo of the isolate it runs in; other isolates keep their copy until it
// expires, which adds at most 30 seconds to the staleness other data centres already have.

export const BADGE_MAX_AGE = 300;
export const BADGE_CACHE_CONTROL = `public, max-age=${BADGE_MAX_AGE}, s-maxage=${BADGE_MAX_AGE}`;
export const BADGE_FORMATS = ["svg", "json"] as const;
export type BadgeFormat = (typeof BADGE_FORMATS)[number];

const CACHE_ORIGIN = "https://badge.cache";
export const badgeKey = (sid: string, format: BadgeFormat) => `${CACHE_ORIGIN}/${encodeURIComponent(sid)}.${format}`;

/**
 * Drops the agent's cached badges (svg and json). The Cache API is per data centre: this purges only
 * the location that runs it, so other locations may serve the old badge until their copy expires
 * (at most max-age, 5 minutes).
 */
export async function purgeBadge(sid: string): Promise<void> {
  await Promise.all(BADGE_FORMATS.map((format) => dropAnswer(badgeKey(sid, format))));
}

export const cachedBadge = cachedAnswer;
export const storeBadge = storeAnswer;

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
