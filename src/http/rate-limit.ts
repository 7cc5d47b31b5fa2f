import type { Context, MiddlewareHandler } from "hono";
import type { RateDecision, RateWindow } from "../durable/rate-limiter";
import { errors } from "../domain/errors";
import type { AppEnv } from "../env";

const HOUR = 3600;
const DAY = 86_400;

export const LIMITS = {
  apply: { limit: 5, seconds: HOUR },
  selfRegister: { limit: 5, seconds: HOUR },
  publicScore: { limit: 5, seconds: HOUR },
  waitlist: { limit: 5, seconds: 60 },
  badge: { limit: 120, seconds: 60 },
  verify: { limit: 3, seconds: HOUR },
} satisfies Record<string, RateWindow>;

export const TIERS = {
  free: { perMinute: 60, perDay: 5_000 },
  growth: { perMinute: 300, perDay: 50_000 },
  enterprise: { perMinute: 1_000, perDay: 500_000 },
} as const;
export type Tier = keyof typeof TIERS;

/** An operator's windows: per minute, then per day (its custom limits override the tier's). */
export function tierWindows(tier: Tier, perMinute: number | null, perDay: number | null): RateWindow[] {
  return [
    { limit: perMinute ?? TIERS[tier].perMinute, seconds: 60 },
    { limit: perDay ?? TIERS[tier].perDay, seconds: DAY },
  ];
}

/** Counts one request in a bucket; every bucket is its own RateLimiter object. */
export function consume(c: Context<AppEnv>, bucket: string, windows: RateWindow[], knownEpoch?: number): Promise<RateDecision> {
  return c.env.RATE_LIMITER.getByName(bucket).hit(windows, c.get("deps").now(), knownEpoch);
}

/** The client address: CF-Connecting-IP only; X-Forwarded-For is client-controlled and never trusted. */
export const clientIp = (c: Context<AppEnv>) => c.req.header("cf-connecting-ip") ?? "unknown";

/** A public per-IP limit, one bucket per endpoint; every request counts, valid or not. */
export function publicLimit(endpoint: keyof typeof LIMITS): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const decision = await consume(c, `ip:${endpoint}:${clientIp(c)}`, [LIMITS[endpoint]]);
    if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
    await next();
  };
}

export function rateHeaders(d: RateDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    "X-RateLimit-Reset": String(d.reset),
  };
}
