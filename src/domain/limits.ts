// Rate limits: the public per-IP buckets, the verification attempts, and the operators' tiers.

export interface RateWindow {
  limit: number;
  seconds: number;
}

const HOUR = 3600;
const DAY = 86_400;

export const LIMITS = {
  apply: { limit: 5, seconds: HOUR },
  selfRegister: { limit: 5, seconds: HOUR },
  publicScore: { limit: 5, seconds: HOUR },
  /** Conditional reads of the public score answered 304: they cost no body, so they have their own, wider bucket. */
  publicScoreRevalidation: { limit: 60, seconds: 60 },
  waitlist: { limit: 5, seconds: 60 },
  badge: { limit: 120, seconds: 60 },
  /** Agents' public pages (HTML), uncached: as many as badges, in a bucket of their own. */
  publicPage: { limit: 120, seconds: 60 },
  verify: { limit: 3, seconds: HOUR },
  /** Signature proofs (identity level 2): per agent, apart from the callback attempts. */
  signatureProof: { limit: 10, seconds: HOUR },
  /** Credentials issued (POST /agents/{sid}/credential): per agent, whoever asks. */
  credential: { limit: 10, seconds: HOUR },
  /** Test events (POST /webhooks/{id}/test): per operator, whichever endpoint. */
  webhookTest: { limit: 10, seconds: 60 },
  /** Signed credential requests and their nonces: per IP, before any check (no key to count them by). */
  credentialRequest: { limit: 120, seconds: 60 },
} satisfies Record<string, RateWindow>;

export const TIERS = {
  free: { perMinute: 60, perDay: 5_000 },
  growth: { perMinute: 300, perDay: 50_000 },
  enterprise: { perMinute: 1_000, perDay: 500_000 },
} as const;
export type Tier = keyof typeof TIERS;
export const TIER_NAMES = Object.keys(TIERS) as [Tier, ...Tier[]];

/** An operator's windows: per minute, then per day (its custom limits override the tier's). */
export function tierWindows(tier: Tier, perMinute: number | null, perDay: number | null): RateWindow[] {
  return [
    { limit: perMinute ?? TIERS[tier].perMinute, seconds: 60 },
    { limit: perDay ?? TIERS[tier].perDay, seconds: DAY },
  ];
}

/**
 * An isolate's lease of an operator's tier quota lives at most this long (real time): it bounds how
 * long an isolate serves from a lease after the operator's key facts changed elsewhere, and how long
 * an announcement of new facts waits for the leases granted before it (RateLimiter.raiseEpoch).
 */
export const LEASE_TTL_MS = 1_000;
