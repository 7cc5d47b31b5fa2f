// Secrets made once per checkout for local development and tests (never committed): an attestation
// signing key, the key that seals webhook secrets at rest, and the transparency log's keys (the key
// that names agents in the log, and a checkpoint signing key).
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { attestationKeysVar } from "./attestation-key.mjs";

/** The key that seals webhook secrets: 32 random bytes, base64. */
export const newWebhookSecretKey = () => randomBytes(32).toString("base64");
/** An HMAC secret (reporters' commitments in history entries, agents' names in log leaves): 32 random bytes, base64. */
export const newHmacSecret = () => randomBytes(32).toString("base64");

/** LOG_KEY: names agents in the log, HMAC-SHA256(key, sid); 32 random bytes, base64. */
export const newLogKey = () => randomBytes(32).toString("base64");

/** LOG_SIGNING_KEYS: a JSON array holding one new private Ed25519 JWK. */
export function newLogSigningKeys() {
  const { kty, crv, x, d } = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  return JSON.stringify([{ kty, crv, x, d }]);
}

/** Variables a fresh .dev.vars needs beyond .dev.vars.example, made anew. */
export const generatedSecrets = () => ({
  ATTESTATION_KEYS: `'${attestationKeysVar()}'`,
  WEBHOOK_SECRET_KEY: newWebhookSecretKey(),
  REPORTER_KEY: newHmacSecret(),
  LOG_KEY: newLogKey(),
  LOG_SIGNING_KEYS: `'${newLogSigningKeys()}'`,
});

/** The same, as `--var NAME:value` arguments of wrangler dev. */
export const secretVarArgs = (prefix = "local") => [
  "--var",
  `ATTESTATION_KEYS:${attestationKeysVar(prefix)}`,
  "--var",
  `WEBHOOK_SECRET_KEY:${newWebhookSecretKey()}`,
  "--var",
  `REPORTER_KEY:${newHmacSecret()}`,
  "--var",
  `LOG_KEY:${newLogKey()}`,
  "--var",
  `LOG_SIGNING_KEYS:${newLogSigningKeys()}`,
];
