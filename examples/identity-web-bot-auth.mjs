#!/usr/bin/env node
// Identity level 2 with the `web-bot-auth` package: the agent proves control of its Ed25519 key by
// signing the proof request (RFC 9421, as Web Bot Auth signs) over a challenge from the service.
//
//   node examples/identity-web-bot-auth.mjs --url http://127.0.0.1:8787 --key "$KEY" --sid "$SID" [--jwk ~/agent-key.json]
//
// --key is the owner's API key (scope identity:write; TRUST_API_KEY works too). --jwk names the
// agent's private JWK: read if the file exists, else a new key is made and written there. Without
// --jwk a throw-away key is used. docs/identity.md explains each step; test/routes/identity-examples.test.ts
// runs `signProof` below against the service, so this file and the docs cannot drift apart.
import { signatureHeaders } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";

/** A signature lives at most 5 minutes (the service refuses longer ones). */
const LIFETIME_MS = 300_000;

/**
 * The `Signature` and `Signature-Input` headers of `POST <proofUrl>`, signed with the agent's private
 * Ed25519 JWK over the service's challenge (`nonce`). web-bot-auth sets `tag="web-bot-auth"`,
 * `alg="ed25519"` and `keyid` (the key's RFC 7638 thumbprint, the name the service knows it by).
 */
export async function signProof(proofUrl, privateJwk, nonce, now = Date.now()) {
  const signer = await Ed25519Signer.fromJWK(privateJwk);
  return signatureHeaders(new Request(proofUrl, { method: "POST" }), signer, {
    created: new Date(now),
    expires: new Date(now + LIFETIME_MS),
    nonce,
    components: ["@method", "@authority", "@path"],
  });
}

/** A new Ed25519 key pair as JWKs (WebCrypto). */
export async function newAgentKey() {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  const privateJwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  const { kty, crv, x } = privateJwk;
  return { privateJwk, publicJwk: { kty, crv, x } };
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { existsSync, readFileSync, writeFileSync } = await import("node:fs");
  const { values } = parseArgs({ options: { url: { type: "string" }, key: { type: "string" }, sid: { type: "string" }, jwk: { type: "string" } } });
  const base = (values.url ?? "http://127.0.0.1:8787").replace(/\/$/, "");
  const apiKey = values.key ?? process.env.TRUST_API_KEY;
  const sid = values.sid;
  if (!apiKey || !sid) throw new Error("usage: identity-web-bot-auth.mjs --url URL --key API_KEY --sid SID [--jwk FILE]");

  // The agent's key pair. The private part stays with the agent; the service only ever sees x.
  let privateJwk;
  if (values.jwk && existsSync(values.jwk)) {
    privateJwk = JSON.parse(readFileSync(values.jwk, "utf8"));
  } else {
    privateJwk = (await newAgentKey()).privateJwk;
    if (values.jwk) writeFileSync(values.jwk, JSON.stringify(privateJwk), { mode: 0o600 });
  }
  const publicJwk = { kty: privateJwk.kty, crv: privateJwk.crv, x: privateJwk.x };

  const call = async (method, path, body, headers = {}) => {
    const res = await fetch(base + path, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const owner = { authorization: `Bearer ${apiKey}` };

  // 1. The owner registers the agent's public key (registering it again changes nothing).
  const { keys } = await call("POST", `/agents/${sid}/keys`, { jwk: publicJwk }, owner);
  console.log("registered keys:", keys.map((k) => k.thumbprint).join(", "));
  // 2. The owner asks for a challenge: a nonce, single use, valid 5 minutes.
  const { nonce } = await call("POST", `/agents/${sid}/verify/signature/challenge`, undefined, owner);
  // 3. The agent signs the proof request over that nonce and sends it, without any API key.
  const proofUrl = `${base}/agents/${sid}/verify/signature`;
  const proved = await call("POST", `/agents/${sid}/verify/signature`, undefined, await signProof(proofUrl, privateJwk, nonce));
  console.log(JSON.stringify(proved, null, 2));
}

// Run as a script (node examples/...), not when a test imports signProof.
if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
