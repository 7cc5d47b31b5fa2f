// Agent keys and identity proofs: the same payloads in both forms (only Form A's verification
// routes exist; keys came with identity level 2).
import { z } from "@hono/zod-openapi";
import { IDENTITY_LABELS, type AgentKey } from "../../domain/agent-keys";
import { identityLabel, identityLevel, timestamp } from "./common";

const key = z
  .object({
    thumbprint: z.string().openapi({ description: "RFC 7638 SHA-256 thumbprint, base64url: the keyid of the agent's signatures" }),
    kty: z.literal("OKP"),
    crv: z.literal("Ed25519"),
    x: z.string(),
    directory_url: z.string().nullable().openapi({ description: "The key directory the key came from; null for a key registered as a JWK" }),
    proven: z.boolean().openapi({ description: "The agent proved control of this key: identity level 2" }),
    added_at: timestamp,
  })
  .openapi("AgentKey");

const proof = z
  .object({
    message: z.string(),
    identity_level: identityLevel,
    identity_label: identityLabel,
    identity_key: z.string().nullable(),
  })
  .openapi("IdentityProof");

const view = (k: AgentKey, identityKey: string | null): z.infer<typeof key> => ({
  thumbprint: k.thumbprint,
  kty: k.jwk.kty,
  crv: k.jwk.crv,
  x: k.jwk.x,
  directory_url: k.directoryUrl,
  proven: k.thumbprint === identityKey,
  added_at: k.addedAt,
});

export const identity = {
  schemas: { key, keys: z.object({ keys: z.array(key) }).openapi("AgentKeys"), proof },
  keys: (keys: AgentKey[], identityKey: string | null) => ({ keys: keys.map((k) => view(k, identityKey)) }),
  proof: (message: string, level: number, identityKey: string | null): z.infer<typeof proof> => ({
    message,
    identity_level: level,
    identity_label: IDENTITY_LABELS[level as 0 | 1 | 2],
    identity_key: identityKey,
  }),
};
