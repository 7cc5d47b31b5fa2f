// The Worker's secrets that are made anew: an attestation signing key, the key that seals webhook
// secrets at rest, the reporters' commitment key and the transparency log's keys (the key that names
// agents in the log, and a checkpoint signing key). `npm start` writes them into .dev.vars once per
// checkout (never committed), the tests make their own, and `npm run deploy` sets those a deployed
// Worker lacks: one list for all three.
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

/** Every made secret, new values as the Worker reads them (`kid`: the attestation key's). */
export const workerSecrets = (kid) => ({
  ATTESTATION_KEYS: attestationKeysVar(kid),
  WEBHOOK_SECRET_KEY: newWebhookSecretKey(),
  REPORTER_KEY: newHmacSecret(),
  LOG_KEY: newLogKey(),
  LOG_SIGNING_KEYS: newLogSigningKeys(),
});

/** Variables a fresh .dev.vars needs beyond .dev.vars.example, made anew (JSON values quoted for .dev.vars). */
export const generatedSecrets = () =>
  Object.fromEntries(Object.entries(workerSecrets()).map(([name, value]) => [name, value.startsWith("[") ? `'${value}'` : value]));

/** The same, as `--var NAME:value` arguments of wrangler dev. */
export const secretVarArgs = (prefix = "local") => Object.entries(workerSecrets(prefix)).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
