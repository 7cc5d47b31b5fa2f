import type { Context } from "hono";
import ipaddr from "ipaddr.js";
import type { RateDecision } from "../durable/rate-limiter";
import { errors } from "../domain/errors";
import { LIMITS, type RateWindow } from "../domain/limits";
import { granting, type AccessMiddleware, type AppEnv } from "./context";

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
  return `${v6.parts.slice(0, 4).map((p) => p.toString(16)).join(":")}::/64`;
}

/** A public per-IP limit, one bucket per endpoint; every request counts, valid or not. */
export function publicLimit(endpoint: keyof typeof LIMITS): AccessMiddleware {
  return granting({ kind: "public", limit: LIMITS[endpoint] }, async (c, next) => {
    const decision = await consume(c, `ip:${endpoint}:${clientIp(c)}`, [LIMITS[endpoint]]);
    if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
    await next();
  });
}

export function rateHeaders(d: RateDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    "X-RateLimit-Reset": String(d.reset),
  };
}
