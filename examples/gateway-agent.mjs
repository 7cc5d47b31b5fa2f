#!/usr/bin/env node
// An agent calling a site behind the Agent Trust gateway: each request is signed with Web Bot Auth
// (RFC 9421, the `web-bot-auth` package) with the agent's proven key, and carries the agent's
// attestation (`Agent-Attestation`) and public key (`Agent-Key`), so the gateway checks it offline.
//
//   node examples/gateway-agent.mjs --service http://127.0.0.1:8787 --sid "$SID" --jwk ~/agent-key.json --url https://shop.example/offers
//
// test/node/gateway.test.ts runs these functions against the gateway, the service and an origin.
import { signatureHeaders } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";

/** The gateway refuses signatures that live longer than a minute. */
const LIFETIME_MS = 60_000;

/** The agent's attestation (valid 15 minutes: fetch a new one before it runs out). */
export async function fetchAttestation(serviceUrl, sid, { fetch = globalThis.fetch } = {}) {
  const res = await fetch(`${serviceUrl}/score/${sid}/attestation`);
  if (res.status !== 200) throw new Error(`attestation: ${res.status} ${await res.text()}`);
  return (await res.json()).attestation;
}

/**
 * The headers of a request to `url` through the gateway: `Signature` and `Signature-Input` (web-bot-auth
 * sets `tag`, `alg`, `keyid` and a fresh 64-byte `nonce`; created now, expiring within a minute,
 * covering `@method`, `@authority` and `@path`), the attestation and the public key.
 */
export async function gatewayHeaders(url, privateJwk, attestation, { method = "GET", now = Date.now() } = {}) {
  const signer = await Ed25519Signer.fromJWK(privateJwk);
  const signature = await signatureHeaders(new Request(url, { method }), signer, {
    created: new Date(now),
    expires: new Date(now + LIFETIME_MS),
    components: ["@method", "@authority", "@path"],
  });
  const { kty, crv, x } = privateJwk;
  return { ...signature, "Agent-Attestation": attestation, "Agent-Key": JSON.stringify({ kty, crv, x }) };
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { readFileSync } = await import("node:fs");
  const { values } = parseArgs({ options: { service: { type: "string" }, sid: { type: "string" }, jwk: { type: "string" }, url: { type: "string" } } });
  if (!values.sid || !values.jwk || !values.url) throw new Error("usage: gateway-agent.mjs --service URL --sid SID --jwk FILE --url SITE_URL");
  const privateJwk = JSON.parse(readFileSync(values.jwk, "utf8"));
  const attestation = await fetchAttestation((values.service ?? "http://127.0.0.1:8787").replace(/\/$/, ""), values.sid);
  const res = await fetch(values.url, { headers: await gatewayHeaders(values.url, privateJwk, attestation) });
  console.log(res.status, await res.text());
}

if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
