// The A2A Agent Card extension: an `AgentExtension` (uri, description, required, params) an agent
// pastes into its card's `capabilities.extensions`, carrying its SID and its latest attestation so a
// relying party can check the agent offline against the service's keys.
import { z } from "@hono/zod-openapi";
import { sid } from "./common";

/** The extension's path under the service's origin: its URI is `<origin>` + this, the attestation's `iss` + this. */
export const A2A_EXTENSION_PATH = "/a2a/extensions/trust-attestation/v1";
export const JWKS_PATH = "/.well-known/jwks.json";

/** A Token Status List entry: the agent's index in the list at `uri`. */
export interface StatusListPointer {
  idx: number;
  uri: string;
}

const statusList = z
  .object({ idx: z.number().int().min(0), uri: z.string().url() })
  .nullable()
  .openapi({
    description:
      "The attestation's `status_list` claim (a Token Status List: the agent's index `idx` in the list at `uri`), copied for a relying party that checks status offline; null when the attestation carries none",
  });

export const a2aExtensionSchema = z
  .object({
    uri: z
      .string()
      .url()
      .openapi({ description: `The extension's URI: the service's origin followed by ${A2A_EXTENSION_PATH}` }),
    description: z.string(),
    required: z.literal(false).openapi({ description: "Clients that do not know the extension may ignore it" }),
    params: z.object({
      sid,
      attestation: z
        .string()
        .openapi({ description: "The agent's latest attestation: a compact JWS (typ trust-attestation+jwt) valid 15 minutes from its iat" }),
      jwks_uri: z.string().url().openapi({ description: "The service's public keys (JWKS), which verify the attestation" }),
      attestation_uri: z.string().url().openapi({ description: "Where a fresh attestation is served, once this one has expired" }),
      status_list: statusList,
    }),
  })
  .openapi("A2AAgentExtension");

export type A2AExtension = z.infer<typeof a2aExtensionSchema>;

export const a2aDefinitionSchema = z
  .object({
    uri: z.string().url(),
    name: z.string(),
    description: z.string(),
    params: z.record(z.string(), z.string()).openapi({ description: "Each member of `params` and what it holds" }),
    verification: z.array(z.string()).openapi({ description: "How a relying party checks an agent that carries the extension, in order" }),
  })
  .openapi("A2AExtensionDefinition");

export const a2a = {
  extension: (origin: string, agent: string, attestation: string, pointer: StatusListPointer | null): A2AExtension => ({
    uri: `${origin}${A2A_EXTENSION_PATH}`,
    description: `Trust score of ${agent}, signed by ${origin}: verify params.attestation against params.jwks_uri`,
    required: false,
    params: {
      sid: agent,
      attestation,
      jwks_uri: `${origin}${JWKS_PATH}`,
      attestation_uri: `${origin}/score/${agent}/attestation`,
      status_list: pointer,
    },
  }),

  definition: (origin: string): z.infer<typeof a2aDefinitionSchema> => ({
    uri: `${origin}${A2A_EXTENSION_PATH}`,
    name: "Agent trust attestation",
    description:
      "An A2A Agent Card extension carrying the agent's trust score, signed by this service, so that a relying party can check the agent offline. " +
      `An agent gets it ready to paste into its card's capabilities.extensions from GET ${origin}/agents/{sid}/a2a-extension.`,
    params: {
      sid: "The agent's SID",
      attestation: "The agent's latest attestation: a compact JWS (alg EdDSA, typ trust-attestation+jwt), valid 15 minutes",
      jwks_uri: "The service's JWKS, which verifies the attestation",
      attestation_uri: "Where a fresh attestation is served, once this one has expired",
      status_list: "The attestation's status_list claim ({idx, uri}: the agent's entry in a Token Status List), or null",
    },
    verification: [
      `uri starts with the origin of a trust service you rely on (here ${origin})`,
      "the attestation's protected header has alg EdDSA, typ trust-attestation+jwt and the kid of a key in jwks_uri, and the signature verifies with it",
      "its iss is the origin of uri, its sub is params.sid and the agent you deal with, and exp is in the future (else fetch attestation_uri)",
      "where the agent proves a key (identity level 2), cnf.jkt is the RFC 7638 thumbprint of the key that signed its requests",
      "where status_list is given, the entry idx of the list at its uri is 0 (valid)",
      "its recommendation and composite_score meet your policy",
    ],
  }),
};
