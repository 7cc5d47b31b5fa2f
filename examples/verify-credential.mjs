#!/usr/bin/env node
// A relying party checks an agent's credential presentation offline: the service's signature (its
// JWKS), the disclosures, the key-binding JWT (the agent's key, this party's nonce and audience, made
// just now) and the agent's status in the status list this party keeps. No request names the agent.
//
//   node examples/verify-credential.mjs --url http://127.0.0.1:8787 --audience https://shop.example \
//     --nonce "$RP_NONCE" --presentation "$PRESENTATION"
//
// test/routes/credential-examples.test.ts runs these functions against the service.
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";

/** The service's credential type at its origin. */
export const VCT_PATH = "/credentials/agent-trust/v1";
/** A key-binding JWT older than this (or this far ahead) is refused: a presentation is made per request. */
const KB_MAX_AGE_S = 300;

const utf8 = (text) => new TextEncoder().encode(text);
const fromBase64url = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
const sha256 = async (data) => new Uint8Array(await crypto.subtle.digest("SHA-256", typeof data === "string" ? utf8(data) : data));
const headerOf = (signedPart) => JSON.parse(new TextDecoder().decode(fromBase64url(signedPart.split(".")[0])));
const payloadOf = (jwt) => JSON.parse(new TextDecoder().decode(fromBase64url(jwt.split(".")[1])));

async function verifyEd25519(jwk, data, signature) {
  const key = await crypto.subtle.importKey("jwk", { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, { name: "Ed25519" }, false, ["verify"]);
  return crypto.subtle.verify({ name: "Ed25519" }, key, fromBase64url(signature), utf8(data));
}

/**
 * A verifier of presentations that knows only the service's JWKS (`jwks`, fetched and cached by this
 * party) and reads status lists through `statusList(uri)` (this party's cached copy of each list: no
 * request names the agent). The library's default status check stays: any status but 0 (valid) is
 * refused, so a suspended (2) or caution (3) agent fails.
 */
export function credentialVerifier({ issuer, jwks, statusList }) {
  const serviceKey = (kid) => jwks.keys.find((k) => k.kid === kid);
  return new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    // The credential and the status lists are both signed with a key of the service's JWKS.
    verifier: async (data, signature) => {
      const key = serviceKey(headerOf(data).kid);
      return key !== undefined && verifyEd25519(key, data, signature);
    },
    // The key-binding JWT is signed with the key the credential binds (cnf.jwk).
    kbVerifier: async (data, signature, payload) => payload.cnf?.jwk !== undefined && verifyEd25519(payload.cnf.jwk, data, signature),
    statusListFetcher: async (uri) => {
      if (!uri.startsWith(`${issuer}/status/`)) throw new Error(`status list ${uri} is not the service's`);
      const token = await statusList(uri);
      if (headerOf(token).typ !== "statuslist+jwt" || payloadOf(token).sub !== uri) throw new Error(`${uri} is not that status list`);
      return token;
    },
  });
}

/**
 * The disclosed claims of a presentation, once everything holds: the service's signature and type,
 * its issuer, the expiry, the key binding (this party's `nonce` and `audience`, made within 5 minutes
 * of `now`) and the agent's status. Throws otherwise.
 */
export async function verifyPresentation(verifier, presentation, { issuer, audience, nonce, now = Date.now() }) {
  const currentDate = Math.floor(now / 1000);
  const { header, payload, kb } = await verifier.verify(presentation, { keyBindingNonce: nonce, currentDate });
  if (header.typ !== "dc+sd-jwt") throw new Error("not an SD-JWT VC");
  if (payload.iss !== issuer || payload.vct !== `${issuer}${VCT_PATH}`) throw new Error("not a credential of this service");
  if (kb.payload.aud !== audience) throw new Error("the presentation was made for another audience");
  if (Math.abs(currentDate - kb.payload.iat) > KB_MAX_AGE_S) throw new Error("the key-binding JWT is not fresh");
  return payload;
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: { url: { type: "string" }, audience: { type: "string" }, nonce: { type: "string" }, presentation: { type: "string" } } });
  if (!values.audience || !values.nonce || !values.presentation) throw new Error("usage: verify-credential.mjs --url URL --audience ORIGIN --nonce NONCE --presentation SD-JWT");
  const issuer = new URL(values.url ?? "http://127.0.0.1:8787").origin;
  // In production both are kept: the JWKS for hours, each list for its ttl (300 s).
  const jwks = await (await fetch(`${issuer}/.well-known/jwks.json`)).json();
  const lists = new Map();
  const statusList = async (uri) => {
    if (!lists.has(uri)) lists.set(uri, await (await fetch(uri, { headers: { accept: "application/statuslist+jwt" } })).text());
    return lists.get(uri);
  };
  const claims = await verifyPresentation(credentialVerifier({ issuer, jwks, statusList }), values.presentation, { issuer, audience: values.audience, nonce: values.nonce });
  console.log(JSON.stringify(claims, null, 2));
}

if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
