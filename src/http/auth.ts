import type { Context } from "hono";
import { ApiError, errors, KEY_PREFIX } from "../domain/errors";
import { tierWindows } from "../domain/limits";
import { effectiveScopes, type Scope } from "../domain/scopes";
import type { RateDecision } from "../durable/rate-limiter";
import { adminConfig } from "../env";
import { granting, type AccessMiddleware, type AppEnv, type AuthContext } from "./context";
import { lookupKey, reloadKey, type KeyEntry, type KeyFacts } from "./key-cache";
import { consume, rateHeaders } from "./rate-limit";
import { dropLease, fromLease, keepLease, leaseWant } from "./tier-lease";
import { renderError } from "./wire";

/** The credential of `Authorization: Bearer <credential>`; the scheme is case-insensitive (RFC 9110 §11.1). */
export function bearerCredential(header: string | undefined): string | null {
  return /^bearer +(\S+) *$/i.exec(header ?? "")?.[1] ?? null;
}

/**
 * Bearer API key authentication, in the spec's order of checks (header form, prefix, known key),
 * then the operator's tier limit (every authenticated response carries X-RateLimit-*, refusals
 * included), then the key's revocation or grace, then the route's scope.
 */
export function requireKey(scope: Scope | null, options: { units?: (c: Context<AppEnv>) => Promise<number> } = {}): AccessMiddleware {
  return granting({ kind: "key", scope }, async (c, next) => {
    const key = bearerCredential(c.req.header("authorization"));
    if (!key) throw errors.missingAuth();
    if (!key.startsWith(KEY_PREFIX)) throw errors.badKeyFormat();
    const entry = await lookupKey(c.get("db"), key);
    if (!entry) throw errors.unknownKey();

    if (c.req.method === "GET" && !admit(c, entry.facts, scope)) {
      // A read has no side effects: count it and run the handler at the same time, so the limiter's
      // round trip adds no latency; a refusal (or a key found revoked on reload) replaces the answer.
      const [decision] = await Promise.all([limit(c, key, entry), next()]);
      if (decision instanceof ApiError) c.res = renderError(c, decision);
      else setHeaders(c.res.headers, rateHeaders(decision));
      return;
    }
    const decision = await limit(c, key, entry);
    if (decision instanceof ApiError) throw decision;
    for (const [name, value] of Object.entries(rateHeaders(decision))) c.header(name, value);
    await next();
  });

  /** Counts the request in the operator's bucket; an ApiError (with the limit headers) when it must be refused. */
  async function limit(c: Context<AppEnv>, key: string, entry: KeyEntry): Promise<RateDecision | ApiError> {
    // A batch counts every report it carries, all of them or none.
    const units = (await options.units?.(c)) ?? 1;
    let decision = await count(c, entry, true, units);
    if (decision.stale) {
      // The operator's keys or limits changed since these facts were read: read them again from the
      // primary (a revocation takes effect at once), then count with the new limits.
      const fresh = await reloadKey(c.env.DB.withSession("first-primary"), key);
      if (!fresh) return errors.unknownKey();
      entry = fresh;
      decision = await count(c, entry, false, units);
    }
    const refusal = admit(c, entry.facts, scope);
    if (refusal?.status === 401) return refusal;
    if (!decision.allowed) return errors.rateLimited(decision.retryAfter, rateHeaders(decision));
    if (refusal) return new ApiError(refusal.code, refusal.message, { ...refusal.headers, ...rateHeaders(decision) });
    c.set("rateWindows", windowsOf(entry.facts));
    return decision;
  }
}

/** The scopes of each key's facts as this isolate read them (they change only with the facts). */
const scopesOf = new WeakMap<KeyFacts, Scope[]>();

/** The key's own checks (revoked or past its grace, scope); records who is calling, or says why not. */
function admit(c: Context<AppEnv>, facts: KeyFacts, scope: Scope | null): ApiError | null {
  if (facts.revokedAt || (facts.expiresAt && Date.parse(facts.expiresAt) <= c.get("deps").now())) return errors.revokedKey();
  let scopes = scopesOf.get(facts);
  if (!scopes) scopesOf.set(facts, (scopes = effectiveScopes(facts.scopes, facts.expiresAt)));
  if (scope && !scopes.includes(scope)) return errors.insufficientScope(scope);
  c.set("auth", {
    keyId: facts.keyId,
    keyPrefix: facts.keyPrefix,
    operatorId: facts.operatorId,
    operatorName: facts.operatorName,
    verified: facts.verified,
    scopes,
  });
  return null;
}

function setHeaders(target: Headers, values: Record<string, string>) {
  try {
    for (const [name, value] of Object.entries(values)) target.set(name, value);
  } catch {
    // Immutable headers (a response straight from a cache) go out as they are.
  }
}

const windowsOf = (facts: KeyFacts) => tierWindows(facts.tier, facts.rateLimitPerMinute, facts.rateLimitPerDay);

/** Counts `units` requests in the operator's tier limit: from this isolate's lease, else at its limiter. */
async function count(c: Context<AppEnv>, entry: KeyEntry, checkEpoch: boolean, units: number): Promise<RateDecision> {
  const { operatorId } = entry.facts;
  const windows = windowsOf(entry.facts);
  const now = c.get("deps").now();
  const leased = fromLease(operatorId, windows, now, entry.epoch, units);
  if (leased) return leased;
  const decision = await consume(c, `operator:${operatorId}`, windows, checkEpoch ? entry.epoch : undefined, leaseWant(operatorId), units);
  if (decision.stale) return decision;
  return keepLease(operatorId, windows, now, decision, units);
}

/**
 * Gives back to the calling operator's tier limit `units` it counted for this request (a batch's
 * reports answered 503, which recorded nothing). Best effort: a limiter that cannot be reached keeps
 * them counted, which only ever errs on the strict side.
 */
export async function giveBackUnits(c: Context<AppEnv>, units: number): Promise<void> {
  const windows = c.get("rateWindows");
  if (units <= 0 || !windows) return;
  await c.env.RATE_LIMITER.getByName(`operator:${authOf(c).operatorId}`)
    .giveBack(windows, c.get("deps").now(), units)
    .catch(() => undefined);
}

/** Tells every isolate that cached facts about this operator's keys are older than `epoch`. */
export async function announceEpoch(c: Context<AppEnv>, operatorId: number, epoch: number): Promise<void> {
  dropLease(operatorId);
  await c.env.RATE_LIMITER.getByName(`operator:${operatorId}`).raiseEpoch(epoch);
}

/**
 * Admin routes: the ADMIN_TOKEN secret (or, while a rotation runs, ADMIN_TOKEN_PREVIOUS until its
 * end), compared in constant time; nothing else is accepted. A missing or invalid secret disables
 * these routes only: 503.
 */
export const requireAdmin = granting({ kind: "admin" }, async (c, next) => {
  const config = adminConfig(c.env, c.get("deps").now());
  if (!config.ok) {
    console.error(JSON.stringify({ level: "error", message: "admin interface disabled", problem: config.problem, request_id: c.get("requestId") }));
    throw errors.adminNotConfigured();
  }
  const given = bearerCredential(c.req.header("authorization"));
  const accepted = [config.current, ...(config.previous ? [config.previous.token] : [])];
  const matches = given ? await Promise.all(accepted.map((secret) => sameSecret(given, secret))) : [];
  if (!matches.includes(true)) throw errors.adminOnly();
  await next();
});

const encoder = new TextEncoder();

async function sameSecret(a: string, b: string): Promise<boolean> {
  // The runtime's constant-time comparison needs equal lengths: comparing SHA-256 digests gives
  // them, so neither the secret's length nor a prefix leaks.
  const [ha, hb] = await Promise.all([crypto.subtle.digest("SHA-256", encoder.encode(a)), crypto.subtle.digest("SHA-256", encoder.encode(b))]);
  return crypto.subtle.timingSafeEqual(ha, hb);
}

/**
 * Routes that take a key without needing one (the MCP endpoint): the request's Authorization goes on,
 * untouched, to the keyed routes the route calls in-process, and each checks it as it always does.
 */
export const optionalKey = granting({ kind: "optional-key" }, (_c, next) => next());

export const authOf = (c: Context<AppEnv>): AuthContext => {
  const auth = c.get("auth");
  if (!auth) throw errors.missingAuthentication();
  return auth;
};
