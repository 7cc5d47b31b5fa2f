// Trust credentials and the nonces agents sign to ask for them: the same payloads in both forms.
import { z } from "@hono/zod-openapi";
import { DIMENSIONS } from "../../domain/model";
import { timestamp } from "./common";

const credential = z
  .object({
    credential: z.string().openapi({
      description:
        "An SD-JWT VC (`<issuer-signed JWT>~<disclosure>~…~`): header `typ: dc+sd-jwt`, `alg: EdDSA`, `kid`; claims `iss`, `sub` (the SID), `iat`, " +
        "`exp` (iat + 24 h), `vct`, `cnf.jwk` (the agent's proven key), `status.status_list {idx, uri}`, and as disclosures, each on its own: " +
        `\`composite_score\`, ${DIMENSIONS.map((d) => `\`${d}\``).join(", ")}, \`recommendation\`, \`confidence\`, \`identity_level\`, ` +
        "`operator_name`, `open_disputes`, `no_caution` (only when the recommendation is not caution) and each element of `composite_at_least` " +
        "(600, 700, 800: those the composite reaches)",
    }),
    expires_at: timestamp,
  })
  .openapi("Credential");

const nonce = z
  .object({
    nonce: z.string().openapi({ description: "64 bytes, base64 (the Web Bot Auth nonce format): sign it as the `nonce` of the credential request, once" }),
    expires_in: z.number().int().openapi({ description: "Seconds it stays valid" }),
  })
  .openapi("CredentialNonce");

export const credentials = {
  schemas: { credential, nonce },
  credential: (sdJwt: string, expiresAt: number): z.infer<typeof credential> => ({ credential: sdJwt, expires_at: new Date(expiresAt).toISOString() }),
  nonce: (value: string, expiresIn: number): z.infer<typeof nonce> => ({ nonce: value, expires_in: expiresIn }),
};
