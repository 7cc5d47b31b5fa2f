// A fresh Ed25519 signing key for score attestations, as ATTESTATION_KEYS holds it (a JSON array of
// private JWKs): `npm start` writes one into .dev.vars, the tests and the benchmark make their own.
import { generateKeyPairSync, randomBytes } from "node:crypto";

export function newAttestationKey(kid = `local-${randomBytes(4).toString("hex")}`) {
  const { privateKey } = generateKeyPairSync("ed25519");
  const { kty, crv, x, d } = privateKey.export({ format: "jwk" });
  return { kty, crv, x, d, kid };
}

/** The ATTESTATION_KEYS value for one new key. */
export const attestationKeysVar = (kid) => JSON.stringify([newAttestationKey(kid)]);
