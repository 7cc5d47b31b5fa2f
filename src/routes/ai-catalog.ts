import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { errors } from "../domain/errors";
import { LIMITS } from "../domain/limits";
import { publicOrigin } from "../env";
import { agentScore } from "../http/agents";
import type { AppEnv } from "../http/context";
import { clientIp, consume } from "../http/rate-limit";
import { AI_CATALOG_ATTESTATION_PATH, aiCatalog, aiCatalogDefinitionSchema, aiCatalogSchema } from "../http/wire/ai-catalog";
import { EXAMPLE_ORIGIN } from "./example-agent";
import { sidParam } from "./fields";
import { createRoute, errorResponses, json, publicAccess } from "./openapi";

// The agent's trust score in an AI Catalog: GET /agents/{sid}/ai-catalog (public, limited like
// attestations) answers the Attestation object for its owner's Trust Manifest and, given the card's
// URL, a catalog holding the entry that lists the card with it; the attestation type's definition
// is served at its own URI.

const MAX_AGE_S = 60;
const DEFINITION_MAX_AGE_S = 86_400;
const EXAMPLE_SID = "SID-0x3f9a0c1d2e4b5a69";
const EXAMPLE_CARD = "https://agents.acme.example/invoice-bot/agent-card.json";

const uri = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;
const query = z.object({
  card_url: z
    .string()
    .max(2048, "card_url must be an http(s) URL of at most 2048 characters")
    .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), "card_url must be an http(s) URL")
    .optional()
    .openapi({ description: "The URL of the agent's A2A card: with it, the answer carries a catalog listing that card", example: EXAMPLE_CARD }),
  identity: z
    .string()
    .max(2048, "identity must be a URI of at most 2048 characters")
    .regex(uri, "identity must be a URI (a DID, an https URL, a SPIFFE ID)")
    .optional()
    .openapi({
      description: "The Trust Manifest's identity (the publisher: a DID, an https URL, ...); default: the card's origin",
      example: "did:web:acme.example",
    }),
});

const route = createRoute({
  method: "get",
  path: "/agents/{sid}/ai-catalog",
  operationId: "getAiCatalogAttestation",
  tags: ["Integrations"],
  summary: "The agent's trust score for an AI Catalog: an Attestation object, and a catalog entry listing its A2A card with it",
  description:
    "Public. `attestation` is an AI Catalog (v0.9) Attestation object for the `attestations` of the Trust Manifest the agent's owner publishes " +
    "beside its A2A card: its `uri` is GET /score/{sid}/attestation, and it has no `digest` (the attestation is live: a new JWS, valid 15 minutes, " +
    "every minute at most). With `card_url`, `catalog` is an AI Catalog holding the entry that lists the card (type " +
    "application/a2a-agent-card+json) with a Trust Manifest carrying the attestation: serve it as /.well-known/ai-catalog.json, or add the entry to " +
    "yours, and sign the manifest (its subject the card's digest) for a Trusted Catalog. The card's trust extension " +
    "(GET /agents/{sid}/a2a-extension) carries the SID the attestation's `sub` must equal. Uncached requests count with badges and attestations " +
    "(120 per minute per IP). A suspended agent gets none (409).",
  security: publicAccess,
  request: { params: sidParam, query },
  responses: {
    200: json(
      aiCatalogSchema,
      "The attestation and the catalog",
      aiCatalog.answer(EXAMPLE_ORIGIN, EXAMPLE_SID, { url: EXAMPLE_CARD, identity: "did:web:acme.example" }),
    ),
    ...errorResponses(400, 404, errors.suspendedAttestation(), 429),
  },
});

const definition = createRoute({
  method: "get",
  path: AI_CATALOG_ATTESTATION_PATH,
  operationId: "getAiCatalogAttestationType",
  tags: ["Integrations"],
  summary: "The definition of the AI Catalog attestation type whose URI this is: what its uri serves and how a relying party verifies it",
  description: "Public, the same for every agent; cacheable for a day.",
  security: publicAccess,
  responses: { 200: json(aiCatalogDefinitionSchema, "The definition", aiCatalog.definition(EXAMPLE_ORIGIN)), ...errorResponses(400) },
});

export function registerAiCatalog(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const { sid } = c.req.valid("param");
    const { card_url: cardUrl, identity } = c.req.valid("query");
    const decision = await consume(c, `ip:badge:${clientIp(c)}`, [LIMITS.badge]);
    if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
    // The attestation it points to must exist: a known agent, not suspended.
    const agent = await agentScore(c, sid);
    if (agent.status === "suspended") throw errors.suspendedAttestation();
    const card = cardUrl === undefined ? null : { url: new URL(cardUrl).href, identity: identity ?? new URL(cardUrl).origin };
    return c.json(aiCatalog.answer(publicOrigin(c.env), sid, card), 200, { "Cache-Control": `public, max-age=${MAX_AGE_S}` });
  });

  app.openapi(definition, (c) => c.json(aiCatalog.definition(publicOrigin(c.env)), 200, { "Cache-Control": `public, max-age=${DEFINITION_MAX_AGE_S}` }));
}
