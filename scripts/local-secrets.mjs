// Secrets made once per checkout for local development and tests (never committed): an attestation
// signing key and the key that seals webhook secrets at rest.
import { randomBytes } from "node:crypto";
import { attestationKeysVar } from "./attestation-key.mjs";

/** The key that seals webhook secrets: 32 random bytes, base64. */
export const newWebhookSecretKey = () => randomBytes(32).toString("base64");
/** An HMAC secret (reporters' commitments in history entries, agents' names in log leaves): 32 random bytes, base64. */
export const newHmacSecret = () => randomBytes(32).toString("base64");

/** Variables a fresh .dev.vars needs beyond .dev.vars.example, made anew. */
export const generatedSecrets = () => ({
  ATTESTATION_KEYS: `'${attestationKeysVar()}'`,
  WEBHOOK_SECRET_KEY: newWebhookSecretKey(),
  REPORTER_KEY: newHmacSecret(),
  LOG_KEY: newHmacSecret(),
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
  `LOG_KEY:${newHmacSecret()}`,
];
