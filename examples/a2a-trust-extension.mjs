#!/usr/bin/env node
// The trust score in an A2A Agent Card. The agent's side puts the service's extension into its card's
// capabilities.extensions (and refreshes it: the attestation inside lives 15 minutes); a relying
// party's side finds it in a card and verifies it offline against the service's keys.
//
//   node examples/a2a-trust-extension.mjs --url http://127.0.0.1:8787 --sid "$SID"   (prints a card carrying it, then checks it)
//
// test/routes/a2a-example.test.ts runs these functions against the service.
import { verifyAttestation } from "./verify-attestation.mjs";

export const TRUST_EXTENSION_PATH = "/a2a/extensions/trust-attestation/v1";

/** The agent's side: the extension, ready to paste, from the service that scores the agent. */
export async function fetchTrustExtension(serviceUrl, sid, fetchImpl = fetch) {
  const res = await fetchImpl(new URL(`/agents/${sid}/a2a-extension`, serviceUrl));
  const body = await res.json();
  if (!res.ok) throw new Error(`GET /agents/${sid}/a2a-extension → ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** The card with the extension in capabilities.extensions, replacing an older copy of it. */
export function withTrustExtension(card, extension) {
  const others = (card.capabilities?.extensions ?? []).filter((e) => e.uri !== extension.uri);
  return { ...card, capabilities: { ...card.capabilities, extensions: [...others, extension] } };
}

/**
 * The relying party's side: the claims of the attestation a card carries from the trust service at
 * `trustedOrigin`, once its signature, type, issuer, subject and expiry hold. An expired one is
 * replaced by a fresh one from the same service (params.attestation_uri). Throws when the card has
 * no extension of that service or nothing verifies.
 */
export async function checkTrustExtension(card, keys, { trustedOrigin, sid, currentDate, fetchImpl = fetch } = {}) {
  const extension = (card.capabilities?.extensions ?? []).find((e) => e.uri === `${trustedOrigin}${TRUST_EXTENSION_PATH}`);
  if (!extension) throw new Error(`the card carries no trust extension of ${trustedOrigin}`);
  const { params } = extension;
  const expected = { issuer: trustedOrigin, sid: sid ?? params.sid, currentDate };
  try {
    return { claims: await verifyAttestation(params.attestation, keys, expected), statusList: params.status_list ?? null };
  } catch (err) {
    if (err?.code !== "ERR_JWT_EXPIRED" || new URL(params.attestation_uri).origin !== trustedOrigin) throw err;
    const res = await fetchImpl(params.attestation_uri);
    if (!res.ok) throw new Error(`${params.attestation_uri} → ${res.status}`);
    const { attestation } = await res.json();
    return { claims: await verifyAttestation(attestation, keys, expected), statusList: params.status_list ?? null };
  }
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { serviceKeys } = await import("./verify-attestation.mjs");
  const { values } = parseArgs({ options: { url: { type: "string" }, sid: { type: "string" } } });
  if (!values.sid) throw new Error("usage: a2a-trust-extension.mjs --url URL --sid SID");
  const origin = new URL(values.url ?? "http://127.0.0.1:8787").origin;
  const card = withTrustExtension(
    { name: "Example Agent", description: "An agent that shows its trust score", version: "1.0.0", capabilities: { streaming: false } },
    await fetchTrustExtension(origin, values.sid),
  );
  console.log(JSON.stringify(card, null, 2));
  const { claims } = await checkTrustExtension(card, serviceKeys(origin), { trustedOrigin: origin, sid: values.sid });
  console.log(`verified: ${claims.sub} ${claims.recommendation} ${claims.composite_score}`);
}

if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
