#!/usr/bin/env node
// A relying party checks an agent offline: a signed score attestation, verified with `jose` against
// the service's published keys (GET /.well-known/jwks.json).
//
//   node examples/verify-attestation.mjs --url http://127.0.0.1:8787 --sid "$SID"
//   node examples/verify-attestation.mjs --url http://127.0.0.1:8787 --attestation "$JWS"   (one the agent handed you)
//
// test/routes/attestation-example.test.ts runs `verifyAttestation` below against the service.
import { createRemoteJWKSet, jwtVerify } from "jose";

/**
 * The service's keys, fetched once and kept: jose refetches only for a `kid` it does not know (a
 * rotation), at most every 30 seconds, and otherwise after 10 minutes.
 */
export const serviceKeys = (serviceUrl, options) => createRemoteJWKSet(new URL("/.well-known/jwks.json", serviceUrl), options);

/**
 * The attestation's claims when its signature, type, issuer, subject and expiry (15 minutes) all hold;
 * throws otherwise. `issuer` is the service's public origin (its `iss`), whatever host you reach it by.
 */
export async function verifyAttestation(attestation, keys, { issuer, sid, currentDate } = {}) {
  const { payload } = await jwtVerify(attestation, keys, {
    algorithms: ["EdDSA"],
    typ: "trust-attestation+jwt",
    issuer,
    subject: sid,
    currentDate,
  });
  return payload;
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: { url: { type: "string" }, sid: { type: "string" }, attestation: { type: "string" } } });
  const issuer = new URL(values.url ?? "http://127.0.0.1:8787").origin;
  let attestation = values.attestation;
  if (!attestation) {
    if (!values.sid) throw new Error("usage: verify-attestation.mjs --url URL (--sid SID | --attestation JWS)");
    const res = await fetch(`${issuer}/score/${values.sid}/attestation`);
    const body = await res.json();
    if (!res.ok) throw new Error(`GET /score/${values.sid}/attestation → ${res.status} ${JSON.stringify(body)}`);
    attestation = body.attestation;
  }
  const claims = await verifyAttestation(attestation, serviceKeys(issuer), { issuer, sid: values.sid });
  // The decision is yours; a common policy: act on clear, look closer on review, refuse caution.
  console.log(JSON.stringify(claims, null, 2));
}

if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
