// The agent's trust score in an AI Catalog (`/.well-known/ai-catalog.json`, AI Catalog specification
// v0.9): an Attestation object for the `attestations` of the Trust Manifest its owner publishes beside
// the agent's A2A card, and a ready catalog holding the entry that lists that card with it.
import { z } from "@hono/zod-openapi";
import { JWKS_PATH } from "./a2a";

/** The attestation type's path under the service's origin: its URI (`type`) is `<origin>` + this. */
export const AI_CATALOG_ATTESTATION_PATH = "/ai-catalog/attestations/trust-score/v1";
/** The AI Catalog specification version the fragment follows. */
export const AI_CATALOG_SPEC_VERSION = "0.9";
/** The media type an AI Catalog entry gives an A2A Agent Card. */
export const A2A_CARD_TYPE = "application/a2a-agent-card+json";

const attestation = z
  .object({
    type: z
      .string()
      .url()
      .openapi({ description: `The attestation type: the service's origin followed by ${AI_CATALOG_ATTESTATION_PATH} (its definition is served there)` }),
    uri: z
      .string()
      .url()
      .openapi({ description: "Where the attestation is served: GET /score/{sid}/attestation, a JSON object whose `attestation` is a compact JWS" }),
    description: z.string(),
  })
  .openapi("AiCatalogAttestation", {
    description:
      "An AI Catalog Attestation object. No `digest`: the document is live (a new JWS, valid 15 minutes, every minute at most), so no digest could hold.",
  });

const entry = z
  .object({
    identifier: z.string().openapi({
      description: "The agent's page at this service (an absolute URI naming the agent; replace it with your own urn:air identifier if you have one)",
    }),
    type: z.literal(A2A_CARD_TYPE),
    url: z.string().url().openapi({ description: "The agent's A2A card (card_url), whose trust extension carries the SID" }),
    trustManifest: z.object({
      identity: z.string().openapi({ description: "The publisher's identity: `identity`, else the card's origin" }),
      attestations: z.array(attestation).min(1),
    }),
  })
  .openapi("AiCatalogEntry");

const catalog = z
  .object({ specVersion: z.literal(AI_CATALOG_SPEC_VERSION), entries: z.array(entry).length(1) })
  .openapi("AiCatalogFragment", { description: "An AI Catalog holding the agent's entry: serve it, or add its entry to your /.well-known/ai-catalog.json" });

export const aiCatalogSchema = z
  .object({
    attestation,
    catalog: catalog.nullable().openapi({ description: "Null without card_url: the entry lists the agent's card, which only its owner knows" }),
  })
  .openapi("AiCatalogAttestations");

export const aiCatalogDefinitionSchema = z
  .object({ type: z.string().url(), name: z.string(), description: z.string(), verification: z.array(z.string()) })
  .openapi("AiCatalogAttestationType");

export type AiCatalogAnswer = z.infer<typeof aiCatalogSchema>;

export const aiCatalog = {
  attestation: (origin: string, agent: string): z.infer<typeof attestation> => ({
    type: `${origin}${AI_CATALOG_ATTESTATION_PATH}`,
    uri: `${origin}/score/${agent}/attestation`,
    description: `Trust score of ${agent}, signed by ${origin}: a JWS valid 15 minutes, verified against ${origin}${JWKS_PATH}`,
  }),

  answer: (origin: string, agent: string, card: { url: string; identity: string } | null): AiCatalogAnswer => {
    const att = aiCatalog.attestation(origin, agent);
    return {
      attestation: att,
      catalog: card && {
        specVersion: AI_CATALOG_SPEC_VERSION,
        entries: [
          { identifier: `${origin}/agents/${agent}`, type: A2A_CARD_TYPE, url: card.url, trustManifest: { identity: card.identity, attestations: [att] } },
        ],
      },
    };
  },

  definition: (origin: string): z.infer<typeof aiCatalogDefinitionSchema> => ({
    type: `${origin}${AI_CATALOG_ATTESTATION_PATH}`,
    name: "Agent trust score",
    description:
      "An AI Catalog attestation: the agent's trust score, signed by this service. Its uri serves {attestation: <compact JWS>} " +
      `(alg EdDSA, typ trust-attestation+jwt, valid 15 minutes). An owner gets it, and a catalog entry carrying it, from GET ${origin}/agents/{sid}/ai-catalog.`,
    verification: [
      `the uri starts with the origin of a trust service you rely on (here ${origin}), and the entry's Trust Manifest is one you trust (signed by the owner, its subject the card's digest)`,
      `fetch the uri; the JWS's protected header has alg EdDSA, typ trust-attestation+jwt and the kid of a key in ${origin}${JWKS_PATH}, and the signature verifies with it`,
      "its iss is that origin, its sub is the SID the agent's A2A card carries (its trust extension's params.sid), and exp is in the future",
      "its recommendation and composite_score meet your policy",
    ],
  }),
};
