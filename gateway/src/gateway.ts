import { serializeDictionary, Token } from "structured-headers";
import type { GatewayEnv } from "./env";
import { policyOf, type Policy, type Standing } from "./policy";
import { nonceSlice } from "./nonces";
import { BadSignature, verifySigned } from "./signature";
import { Stale, TrustCache, type Attestation } from "./trust";

// The Agent Trust gateway: in front of a site's origin, it verifies an agent's Web Bot Auth
// signature and its trust attestation offline (the service's JWKS and status lists, cached), and
// forwards the request with an `Agent-Trust` header (RFC 9651) or answers 403, as the site's policy
// says. It never calls the trust service per request, so the service never learns who visits whom.

/** The header carrying the agent's attestation (GET /score/{sid}/attestation's compact JWS). */
export const ATTESTATION_HEADER = "agent-attestation";
/** What the gateway tells the origin; any copy a client sends is removed first. */
export const TRUST_HEADER = "agent-trust";

type Trusted = { kind: "trusted"; standing: Standing; attestation: Attestation };
type Verdict =
  | { kind: "unsigned" }
  | { kind: "invalid"; reason: string }
  | { kind: "stale"; reason: string }
  | Trusted
  /** Everything held, but the nonce store could not say whether the nonce is new. */
  | { kind: "unchecked"; reason: string; trusted: Trusted };

const caches = new WeakMap<object, TrustCache>();

/** Standing from the list's value, else the attestation's recommendation: the worse of the two. */
function standingOf(value: number | null, attestation: Attestation): Standing {
  if (value === 1) return "gone";
  if (value === 2) return "suspended";
  if (value === 3 || attestation.recommendation === "caution") return "caution";
  return attestation.recommendation === "clear" ? "clear" : "review";
}

async function judge(request: Request, env: GatewayEnv, policy: Policy, cache: TrustCache, now: number): Promise<Verdict> {
  if (!request.headers.has("signature") && !request.headers.has("signature-input")) return { kind: "unsigned" };
  try {
    const signed = await verifySigned(request);
    const jws = request.headers.get(ATTESTATION_HEADER);
    if (!jws) return { kind: "invalid", reason: "an Agent-Attestation header is required with a signature" };
    const attestation = await cache.attestation(jws).catch((err: unknown) => {
      if (err instanceof Stale) throw err;
      throw new BadSignature(`the attestation is refused: ${err instanceof Error ? err.message : String(err)}`);
    });
    if (attestation.cnf?.jkt !== signed.thumbprint) return { kind: "invalid", reason: "the attestation is not of the signing key (cnf.jkt)" };
    let value: number | null = null;
    const pointer = attestation.status_list;
    if (pointer) {
      if (typeof pointer.uri !== "string" || !pointer.uri.startsWith(`${policy.service}/status/`)) return { kind: "invalid", reason: "the status list is not the trust service's" };
      value = await cache.status(pointer.uri, pointer.idx);
    }
    const trusted: Trusted = { kind: "trusted", standing: standingOf(value, attestation), attestation };
    if (!policy.nonces) return trusted;
    // Last, once everything else holds: a request refused for another reason spends no nonce.
    if (!signed.nonce) return { kind: "invalid", reason: "a nonce is required" };
    let first: boolean;
    try {
      first = await (await nonceSlice(env.NONCE_STORE, signed.nonce)).firstSight(signed.nonce, signed.expires, now);
    } catch (err) {
      return { kind: "unchecked", reason: `nonce store unreachable: ${err instanceof Error ? err.message : String(err)}`, trusted };
    }
    return first ? trusted : { kind: "invalid", reason: "the nonce was already used" };
  } catch (err) {
    if (err instanceof Stale) return { kind: "stale", reason: err.message };
    if (err instanceof BadSignature) return { kind: "invalid", reason: err.message };
    return { kind: "invalid", reason: `unverifiable: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** `rec=clear;score=812;level=2;sid="SID-0x…"`: one dictionary member, its parameters the facts. */
export function agentTrust(standing: Standing, attestation: Attestation): string {
  const facts = new Map<string, number | string>([
    ["score", attestation.composite_score],
    ["level", attestation.identity_level],
    ["sid", attestation.sub],
  ]);
  return serializeDictionary(new Map([["rec", [new Token(standing), facts]]]));
}

const refusal = (status: 403 | 503, reason: string) =>
  new Response(JSON.stringify({ error: reason }), { status, headers: { "content-type": "application/json", "cache-control": "no-store" } });

/** Outbound calls and the clock; tests may replace them. */
export interface GatewayDeps {
  fetch: typeof fetch;
  now: () => number;
}

export async function handle(request: Request, env: GatewayEnv, deps: GatewayDeps): Promise<Response> {
  const policy = policyOf(env);
  let cache = caches.get(env);
  if (!cache) caches.set(env, (cache = new TrustCache(policy, deps.fetch, deps.now)));
  const verdict = await judge(request, env, policy, cache, deps.now());
  const headers = new Headers(request.headers);
  // Nobody but the gateway says what an agent is.
  headers.delete(TRUST_HEADER);
  const forward = () => {
    const url = new URL(request.url);
    const target = policy.origin ? `${policy.origin}${url.pathname}${url.search}` : request.url;
    return deps.fetch(new Request(target, { method: request.method, headers, body: request.body, redirect: "manual" }));
  };
  const admit = (trusted: Trusted) => {
    if (policy.refuse.has(trusted.standing)) return refusal(403, `agents whose standing is ${trusted.standing} are not admitted`);
    headers.set(TRUST_HEADER, agentTrust(trusted.standing, trusted.attestation));
    return forward();
  };
  switch (verdict.kind) {
    case "unsigned":
      return policy.unsigned === "refuse" ? refusal(403, "this site admits signed agents only") : forward();
    case "invalid":
      return policy.invalid === "refuse" ? refusal(403, verdict.reason) : forward();
    case "stale":
      console.error(JSON.stringify({ level: "error", message: "trust data stale", reason: verdict.reason }));
      return policy.onStale === "closed" ? refusal(503, "agent trust cannot be checked right now") : forward();
    case "unchecked":
      console.error(JSON.stringify({ level: "error", message: "nonce store unreachable", reason: verdict.reason }));
      if (policy.onNonceStoreDown === "closed") return refusal(503, "replay protection cannot be checked right now");
      return admit(verdict.trusted);
    case "trusted":
      return admit(verdict);
  }
}
