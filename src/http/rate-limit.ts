import type { Context } from "hono";
import ipaddr from "ipaddr.js";
import type { RateDecision } from "../durable/rate-limiter";
import { errors } from "../domain/errors";
import { LIMITS, type RateWindow } from "../domain/limits";
import { granting, type AccessMiddleware, type AppEnv } from "./context";
import { conditional } from "./public-reads";

/** Counts `need` requests (all or none) in a bucket, or up to `want` for a lease; every bucket is its own RateLimiter object. */
export function consume(c: Context<AppEnv>, bucket: string, windows: RateWindow[], knownEpoch?: number, want = 1, need = 1): Promise<RateDecision> {
  return c.env.RATE_LIMITER.getByName(bucket).hit(windows, c.get("deps").now(), knownEpoch, Math.max(want, need), need);
}

/**
 * The client for limits: CF-Connecting-IP only (X-Forwarded-For is client-controlled and never
 * trusted). An IPv6 client is its /64 network, the smallest allocation a subscriber gets, so one
 * subscriber cannot take a fresh address per request; an IPv4-mapped address counts as the IPv4.
 */
export function clientIp(c: Context<AppEnv>): string {
  const raw = c.req.header("cf-connecting-ip")?.trim() ?? "";
  if (ipaddr.IPv4.isValidFourPartDecimal(raw)) return raw;
  if (!ipaddr.IPv6.isValid(raw)) return "unknown";
  const v6 = ipaddr.IPv6.parse(raw);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(":")}::/64`;
}

/**
 * A public per-IP limit, one bucket per endpoint; every request counts, valid or not. With
 * `revalidation`, a conditional read (If-None-Match) that is answered 304 counts only in that
 * bucket (its own, wider one): like GitHub's, a revalidation that costs the client nothing does not
 * use up a page's quota. One that gets a body (a stale or made-up tag) counts in both.
 */
export function publicLimit(endpoint: keyof typeof LIMITS, revalidation?: keyof typeof LIMITS): AccessMiddleware {
  const count = async (c: Context<AppEnv>, bucket: keyof typeof LIMITS) => {
    const decision = await consume(c, `ip:${bucket}:${clientIp(c)}`, [LIMITS[bucket]]);
    if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
  };
  return granting({ kind: "public", limit: LIMITS[endpoint] }, async (c, next) => {
    if (!revalidation || c.req.method !== "GET" || c.req.header("if-none-match") === undefined) {
      await count(c, endpoint);
      return next();
    }
    await count(c, revalidation);
    // The ETag middleware, run here rather than only around the app, so the limit knows the outcome.
    await conditional(c, next);
    if (c.res.status !== 304) await count(c, endpoint);
  });
}

export function rateHeaders(d: RateDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    "X-RateLimit-Reset": String(d.reset),
  };
}
