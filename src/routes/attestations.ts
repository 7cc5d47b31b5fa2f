import { publicOrigin } from "../env";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import { errors } from "../domain/errors";
import { LIMITS } from "../domain/limits";
import { agentScore } from "../http/agents";
import { attest, attestationCacheKey } from "../http/attestation";
import type { AppEnv } from "../http/context";
import { cachedAnswer, storeAnswer } from "../http/edge-cache";
import { clientIp, consume } from "../http/rate-limit";
import { signingKeys } from "../http/signing-keys";
import { sidParam } from "./fields";
import { sample } from "./examples";
import { createRoute, errorResponses, json, publicAccess } from "./openapi";

// Signed scores: GET /score/{sid}/attestation (public, cached at most a minute, limited like
// badges) and the service's public keys at GET /.well-known/jwks.json.

export const ATTESTATION_MAX_AGE_S = 60;
const JWKS_MAX_AGE_S = 300;
const cacheKey = attestationCacheKey;

const attestationSchema = z
  .object({
    attestation: z.string().openapi({
      description:
        "Compact JWS (alg EdDSA, typ trust-attestation+jwt, kid): iss, sub (SID), iat, exp (iat + 15 min), status, composite_score, confidence, recommendation, identity_level, operator_name, " +
        "cnf.jkt (the proven key's thumbprint) at identity level 2, status_list {idx, uri}: the agent's entry in the status lists (GET /status/{n}), " +
        "and log {origin, index, tree_size, root, inclusion, leaf, opening, checkpoint}: the agent's latest sequenced leaf in its transparency log with its inclusion proof " +
        "(base64 audit path) against the signed checkpoint of tree_size, and the score and nonce that open its score_commit; null while none is sequenced",
    }),
  })
  .openapi("Attestation");

const attestation = createRoute({
  method: "get",
  path: "/score/{sid}/attestation",
  operationId: "getAttestation",
  tags: ["Scores"],
  summary: "The agent's public score, signed by the service: verify it offline against /.well-known/jwks.json",
  description: "Public. Cached at most 60 seconds; uncached requests are limited to 120 per minute per IP. A suspended agent gets none (409).",
  security: publicAccess,
  request: { params: sidParam },
  responses: {
    200: json(attestationSchema, "Signed score", sample.attestation),
    ...errorResponses(400, 404, errors.suspendedAttestation(), 429, errors.attestationsNotConfigured()),
  },
});

const jwksSchema = z
  .object({
    keys: z.array(
      z.object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string(), kid: z.string(), alg: z.literal("EdDSA"), use: z.literal("sig") }),
    ),
  })
  .openapi("JWKS");

const jwks = createRoute({
  method: "get",
  path: "/.well-known/jwks.json",
  operationId: "getJwks",
  tags: ["Scores"],
  summary: "The public keys attestations are signed with (every key of a rotation)",
  security: publicAccess,
  responses: { 200: json(jwksSchema, "JWKS", sample.jwks), ...errorResponses(400, errors.attestationsNotConfigured()) },
});

/** The agent's attestation, newly signed; 404 for an unknown agent, 409 for a suspended one. */
async function signedAttestation(c: Context<AppEnv>, sid: string): Promise<z.infer<typeof attestationSchema>> {
  const [keys, agent] = await Promise.all([signingKeys(c), agentScore(c, sid)]);
  if (agent.status === "suspended") throw errors.suspendedAttestation();
  return { attestation: await attest(c, agent, keys) };
}

/** Signs the agent's attestation and keeps the answer at the edge, as GET /score/{sid}/attestation serves it. */
async function issueAttestation(c: Context<AppEnv>, sid: string) {
  const body = await signedAttestation(c, sid);
  const response = c.json(body, 200, { "Cache-Control": `public, max-age=${ATTESTATION_MAX_AGE_S}` });
  return {
    body,
    response: (await storeAnswer((p) => c.executionCtx.waitUntil(p), cacheKey(publicOrigin(c.env), sid), response)) as unknown as typeof response,
  };
}

/**
 * The agent's latest attestation, the one GET /score/{sid}/attestation serves now: its cached answer,
 * else a new one (kept for that route too). Counts no limit: the caller counts its own.
 */
export async function latestAttestation(c: Context<AppEnv>, sid: string): Promise<string> {
  const hit = await cachedAnswer(cacheKey(publicOrigin(c.env), sid));
  if (hit) return ((await hit.json()) as z.infer<typeof attestationSchema>).attestation;
  return (await issueAttestation(c, sid)).body.attestation;
}

export function registerAttestations(app: OpenAPIHono<AppEnv>) {
  app.openapi(attestation, async (c) => {
    const { sid } = c.req.valid("param");
    const hit = await cachedAnswer(cacheKey(publicOrigin(c.env), sid));
    // The cached answer is this route's own earlier JSON.
    if (hit) return hit as unknown as TypedResponse<z.infer<typeof attestationSchema>, 200, "json">;
    const decision = await consume(c, `ip:badge:${clientIp(c)}`, [LIMITS.badge]);
    if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
    return (await issueAttestation(c, sid)).response;
  });

  app.openapi(jwks, async (c) => {
    const keys = await signingKeys(c);
    return c.json({ keys: keys.map((k) => k.publicJwk) } as z.infer<typeof jwksSchema>, 200, { "Cache-Control": `public, max-age=${JWKS_MAX_AGE_S}` });
  });
}
