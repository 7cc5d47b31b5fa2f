#!/usr/bin/env node
// The trust score in an AI Catalog (/.well-known/ai-catalog.json). The owner's side: the catalog
// entry that lists the agent's A2A card with the service's attestation in its Trust Manifest
// (GET /agents/{sid}/ai-catalog?card_url=...). A relying party's side: in an entry, find the
// attestation of a trust service it relies on, fetch the JWS its uri serves, and verify it offline
// with jose against the service's keys (the JWKS, fetched once).
//
//   node examples/ai-catalog.mjs --url http://127.0.0.1:8787 --sid "$SID" --card-url https://agents.example/card.json
//
// test/routes/ai-catalog.test.ts runs these functions against the service.
import { createLocalJWKSet, jwtVerify } from "jose";

export const TRUST_ATTESTATION_PATH = "/ai-catalog/attestations/trust-score/v1";

/** The owner's side: the service's answer, `{attestation, catalog}` (catalog: one entry, for the card at `cardUrl`). */
export async function fetchCatalogFragment(serviceUrl, sid, cardUrl, fetchImpl = fetch) {
  const url = new URL(`/agents/${sid}/ai-catalog`, serviceUrl);
  url.searchParams.set("card_url", cardUrl);
  const res = await fetchImpl(url);
  const body = await res.json();
  if (!res.ok) throw new Error(`GET ${url.pathname} → ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** The service's JWKS, fetched once: everything after it is offline. */
export async function fetchServiceKeys(serviceUrl, fetchImpl = fetch) {
  const res = await fetchImpl(new URL("/.well-known/jwks.json", serviceUrl));
  if (!res.ok) throw new Error(`GET /.well-known/jwks.json → ${res.status}`);
  return res.json();
}

/** The entry's attestation from the trust service at `trustedOrigin`, or null: its type and uri both name that service. */
export function trustAttestationOf(entry, trustedOrigin) {
  const attestations = entry?.trustManifest?.attestations ?? [];
  return attestations.find((a) => a.type === `${trustedOrigin}${TRUST_ATTESTATION_PATH}` && typeof a.uri === "string" && a.uri.startsWith(`${trustedOrigin}/`)) ?? null;
}

/**
 * The relying party's side: the claims of the attestation a catalog entry points to, once its
 * signature (a key of `jwks`), type, issuer (`trustedOrigin`), subject (`sid`, which the agent's A2A
 * card carries in its trust extension) and expiry hold. Throws otherwise. Trust the entry's Trust
 * Manifest first (signed by the owner, its subject the card's digest): the catalog format says how.
 */
export async function verifyCatalogAttestation(entry, { trustedOrigin, jwks, sid, currentDate, fetchImpl = fetch }) {
  const pointer = trustAttestationOf(entry, trustedOrigin);
  if (!pointer) throw new Error(`the entry carries no attestation of ${trustedOrigin}`);
  const res = await fetchImpl(pointer.uri);
  const body = await res.json();
  if (!res.ok) throw new Error(`${pointer.uri} → ${res.status} ${JSON.stringify(body)}`);
  const { payload } = await jwtVerify(body.attestation, createLocalJWKSet(jwks), {
    algorithms: ["EdDSA"],
    typ: "trust-attestation+jwt",
    issuer: trustedOrigin,
    subject: sid,
    currentDate,
  });
  return payload;
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: { url: { type: "string" }, sid: { type: "string" }, "card-url": { type: "string" } } });
  if (!values.sid || !values["card-url"]) throw new Error("usage: ai-catalog.mjs --url URL --sid SID --card-url URL");
  const origin = new URL(values.url ?? "http://127.0.0.1:8787").origin;
  const { catalog } = await fetchCatalogFragment(origin, values.sid, values["card-url"]);
  console.log(JSON.stringify(catalog, null, 2));
  const claims = await verifyCatalogAttestation(catalog.entries[0], { trustedOrigin: origin, jwks: await fetchServiceKeys(origin), sid: values.sid });
  console.log(JSON.stringify(claims, null, 2));
}

if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
