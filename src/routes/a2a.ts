import { publicOrigin } from "../env";
import { type OpenAPIHono } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import { decodeJwt } from "jose";
import { errors } from "../domain/errors";
import { LIMITS } from "../domain/limits";
import { a2aExtensionCacheKey } from "../http/attestation";
import type { AppEnv } from "../http/context";
import { cachedAnswer, storeAnswer } from "../http/edge-cache";
import { clientIp, consume } from "../http/rate-limit";
import { A2A_EXTENSION_PATH, a2a, a2aDefinitionSchema, a2aExtensionSchema, type A2AExtension, type StatusListPointer } from "../http/wire/a2a";
import { ATTESTATION_MAX_AGE_S, latestAttestation } from "./attestations";
import { EXAMPLE_ORIGIN } from "./example-agent";
import { sample } from "./examples";
import { sidParam } from "./fields";
import { createRoute, errorResponses, json, publicAccess } from "./openapi";

// The A2A Agent Card extension: GET /agents/{sid}/a2a-extension (public, cached and limited like
// attestations) and the extension's definition at its own URI.

const DEFINITION_MAX_AGE_S = 86_400;
const cacheKey = a2aExtensionCacheKey;

const EXAMPLE_SID = "SID-0x3f9a0c1d2e4b5a69";

const extension = createRoute({
  method: "get",
  path: "/agents/{sid}/a2a-extension",
  operationId: "getA2AExtension",
  tags: ["Integrations"],
  summary: "The agent's A2A Agent Card extension, ready to paste into its card's capabilities.extensions",
  description:
    "Public. Carries the agent's SID, its latest attestation (the one GET /score/{sid}/attestation serves), the JWKS URL and the attestation's status-list entry. " +
    "Cached at most 60 seconds; uncached requests count with badges and attestations (120 per minute per IP). A suspended agent gets none (409).",
  security: publicAccess,
  request: { params: sidParam },
  responses: {
    200: json(
      a2aExtensionSchema,
      "The extension",
      a2a.extension(EXAMPLE_ORIGIN, EXAMPLE_SID, sample.attestation.attestation, { idx: 4711, uri: `${EXAMPLE_ORIGIN}/status/0` }),
    ),
    ...errorResponses(400, 404, errors.suspendedAttestation(), 429, errors.attestationsNotConfigured()),
  },
});

const definition = createRoute({
  method: "get",
  path: A2A_EXTENSION_PATH,
  operationId: "getA2AExtensionDefinition",
  tags: ["Integrations"],
  summary: "The definition of the A2A extension whose URI this is: its params and how a relying party verifies them",
  description: "Public, the same for every agent; cacheable for a day.",
  security: publicAccess,
  responses: { 200: json(a2aDefinitionSchema, "The definition", a2a.definition(EXAMPLE_ORIGIN)), ...errorResponses(400) },
});

/** The attestation's own status-list entry, when it names one (the claim a Token Status List adds). */
function statusListOf(attestation: string): StatusListPointer | null {
  const claim = decodeJwt(attestation).status_list as Partial<StatusListPointer> | undefined;
  if (!claim || typeof claim !== "object" || !Number.isSafeInteger(claim.idx) || typeof claim.uri !== "string") return null;
  return { idx: claim.idx as number, uri: claim.uri };
}

export function registerA2A(app: OpenAPIHono<AppEnv>) {
  app.openapi(extension, async (c) => {
    const { sid } = c.req.valid("param");
    const origin = publicOrigin(c.env);
    const key = cacheKey(origin, sid);
    const hit = await cachedAnswer(key);
    // The cached answer is this route's own earlier JSON.
    if (hit) return hit as unknown as TypedResponse<A2AExtension, 200, "json">;
    const decision = await consume(c, `ip:badge:${clientIp(c)}`, [LIMITS.badge]);
    if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
    const attestation = await latestAttestation(c, sid);
    const response = c.json(a2a.extension(origin, sid, attestation, statusListOf(attestation)), 200, {
      "Cache-Control": `public, max-age=${ATTESTATION_MAX_AGE_S}`,
    });
    return (await storeAnswer((p) => c.executionCtx.waitUntil(p), key, response)) as unknown as typeof response;
  });

  app.openapi(definition, (c) => c.json(a2a.definition(publicOrigin(c.env)), 200, { "Cache-Control": `public, max-age=${DEFINITION_MAX_AGE_S}` }));
}
