#!/usr/bin/env node
// The agent's side of trust credentials: it asks the service for its own SD-JWT VC (no API key:
// the request is signed with its proven key over a service nonce, as Web Bot Auth signs), then shows
// a relying party only what it asks, here `no_caution`, bound to the party's nonce and audience.
//
//   node examples/credential-agent.mjs --url http://127.0.0.1:8787 --sid "$SID" --jwk ~/agent-key.json \
//     --audience https://shop.example --nonce "$RP_NONCE"
//
// --jwk is the agent's private Ed25519 JWK: the key it proved at identity level 2. Prints the
// presentation. docs/identity.md explains each step; test/routes/credential-examples.test.ts runs
// these functions against the service.
import { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
import { signatureHeaders } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";

/** The request's signature lives a minute: long enough to arrive, too short to be worth stealing. */
const LIFETIME_MS = 60_000;

const utf8 = (text) => new TextEncoder().encode(text);
const base64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const base64url = (bytes) => base64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const sha256 = async (data) => new Uint8Array(await crypto.subtle.digest("SHA-256", typeof data === "string" ? utf8(data) : data));

/** RFC 9530 Content-Digest of a body: what the signature covers in place of the body itself. */
export async function contentDigest(body) {
  return `sha-256=:${base64(await sha256(body))}:`;
}

/**
 * Asks the service for the agent's credential: a fresh nonce, then `POST /agents/{sid}/credential`
 * with an empty body, signed (RFC 9421, web-bot-auth) with the agent's proven key over that nonce,
 * covering `@method`, `@authority`, `@path` and `content-digest`. Returns the SD-JWT VC.
 */
export async function requestCredential(serviceUrl, sid, privateJwk, { fetch = globalThis.fetch, now = Date.now() } = {}) {
  const nonceRes = await fetch(`${serviceUrl}/agents/${sid}/credential/nonce`, { method: "POST" });
  if (nonceRes.status !== 200) throw new Error(`nonce: ${nonceRes.status} ${await nonceRes.text()}`);
  const { nonce } = await nonceRes.json();
  const url = `${serviceUrl}/agents/${sid}/credential`;
  const body = "";
  const headers = { "Content-Digest": await contentDigest(body) };
  const signer = await Ed25519Signer.fromJWK(privateJwk);
  const signed = await signatureHeaders(new Request(url, { method: "POST", headers }), signer, {
    created: new Date(now),
    expires: new Date(now + LIFETIME_MS),
    nonce,
    components: ["@method", "@authority", "@path", "content-digest"],
  });
  const res = await fetch(url, { method: "POST", headers: { ...headers, ...signed }, body });
  if (res.status !== 201) throw new Error(`credential: ${res.status} ${await res.text()}`);
  return (await res.json()).credential;
}

/**
 * A presentation of the credential disclosing only the claims `frame` names (`{no_caution: true}`,
 * `{composite_at_least: {1: true}}` for the second threshold reached, ...), with a key-binding JWT
 * signed by the agent's key over the relying party's `nonce` and `audience`.
 */
export async function present(credential, frame, privateJwk, { audience, nonce, now = Date.now() }) {
  const key = await crypto.subtle.importKey("jwk", privateJwk, { name: "Ed25519" }, false, ["sign"]);
  const holder = new SDJwtVcInstance({
    hasher: sha256,
    hashAlg: "sha-256",
    kbSigner: async (data) => base64url(await crypto.subtle.sign({ name: "Ed25519" }, key, utf8(data))),
    kbSignAlg: "EdDSA",
  });
  return holder.present(credential, frame, { kb: { payload: { iat: Math.floor(now / 1000), aud: audience, nonce } } });
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { readFileSync } = await import("node:fs");
  const { values } = parseArgs({ options: { url: { type: "string" }, sid: { type: "string" }, jwk: { type: "string" }, audience: { type: "string" }, nonce: { type: "string" } } });
  if (!values.sid || !values.jwk || !values.audience || !values.nonce) {
    throw new Error("usage: credential-agent.mjs --url URL --sid SID --jwk FILE --audience RP_ORIGIN --nonce RP_NONCE");
  }
  const base = (values.url ?? "http://127.0.0.1:8787").replace(/\/$/, "");
  const privateJwk = JSON.parse(readFileSync(values.jwk, "utf8"));
  const credential = await requestCredential(base, values.sid, privateJwk);
  console.log(await present(credential, { no_caution: true }, privateJwk, { audience: values.audience, nonce: values.nonce }));
}

// Run as a script (node examples/...), not when a test imports the functions.
if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
