#!/usr/bin/env node
// Identity level 2 with plain WebCrypto, no library: the same proof as identity-web-bot-auth.mjs,
// with the RFC 9421 signature base written out, for agents in any language to copy.
//
//   node examples/identity-webcrypto.mjs --url http://127.0.0.1:8787 --key "$KEY" --sid "$SID" [--jwk ~/agent-key.json]
//
// --key is the owner's API key (scope identity:write; TRUST_API_KEY works too). --jwk names the
// agent's private JWK: read if the file exists, else a new key is made and written there. Without
// --jwk a throw-away key is used. test/routes/identity-examples.test.ts runs `signProof` below
// against the service.

const LIFETIME_S = 300;
const utf8 = (text) => new TextEncoder().encode(text);
const base64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const base64url = (bytes) => base64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/**
 * The key's RFC 7638 thumbprint: SHA-256 over its required members in lexicographic order, without
 * spaces, base64url. The service names keys by it; it is the signature's `keyid`.
 */
export async function thumbprint(jwk) {
  return base64url(await crypto.subtle.digest("SHA-256", utf8(`{"crv":"${jwk.crv}","kty":"${jwk.kty}","x":"${jwk.x}"}`)));
}

/**
 * The `Signature` and `Signature-Input` headers of `POST <proofUrl>`, signed with the agent's private
 * Ed25519 JWK over the service's challenge (`nonce`).
 */
export async function signProof(proofUrl, privateJwk, nonce, now = Date.now()) {
  const url = new URL(proofUrl);
  const created = Math.floor(now / 1000);
  // RFC 9421 §2.2: @authority is the host, lowercased (URL does that), without a default port.
  const port = url.port && url.port !== "80" && url.port !== "443" ? `:${url.port}` : "";
  const params =
    `("@method" "@authority" "@path");created=${created};expires=${created + LIFETIME_S}` +
    `;keyid="${await thumbprint(privateJwk)}";alg="ed25519";nonce="${nonce}";tag="web-bot-auth"`;
  // The signature base (RFC 9421 §2.5): one line per covered component, then the parameters.
  const signatureBase = [`"@method": POST`, `"@authority": ${url.hostname}${port}`, `"@path": ${url.pathname}`, `"@signature-params": ${params}`].join("\n");
  const key = await crypto.subtle.importKey("jwk", privateJwk, { name: "Ed25519" }, false, ["sign"]);
  const signature = await crypto.subtle.sign({ name: "Ed25519" }, key, utf8(signatureBase));
  return { "Signature-Input": `sig1=${params}`, Signature: `sig1=:${base64(signature)}:` };
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { existsSync, readFileSync, writeFileSync } = await import("node:fs");
  const { values } = parseArgs({ options: { url: { type: "string" }, key: { type: "string" }, sid: { type: "string" }, jwk: { type: "string" } } });
  const base = (values.url ?? "http://127.0.0.1:8787").replace(/\/$/, "");
  const apiKey = values.key ?? process.env.TRUST_API_KEY;
  const sid = values.sid;
  if (!apiKey || !sid) throw new Error("usage: identity-webcrypto.mjs --url URL --key API_KEY --sid SID [--jwk FILE]");

  // The agent's key pair. The private part stays with the agent; the service only ever sees x.
  let privateJwk;
  if (values.jwk && existsSync(values.jwk)) {
    privateJwk = JSON.parse(readFileSync(values.jwk, "utf8"));
  } else {
    const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
    privateJwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
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
  await call("POST", `/agents/${sid}/keys`, { jwk: publicJwk }, owner);
  console.log("registered key:", await thumbprint(publicJwk));
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
