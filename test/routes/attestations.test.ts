// Score attestations: a signed public score anyone verifies offline with the served JWKS.
import { createExecutionContext } from "cloudflare:test";
import { base64url, compactVerify, createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import { describe, expect, it } from "vitest";
import { newAttestationKey } from "../../scripts/attestation-key.mjs";
import { ADMIN, bearer, call, createOperator, freshIp, registerAgent, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:20:30Z");

async function attested(h: ReturnType<typeof testApp>, sid: string) {
  const res = await h.request(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": freshIp(), origin: "https://relying.example" } });
  return { res, body: (await res.json()) as { attestation: string; error?: string } };
}

describe("score attestations", () => {
  it("verify with jose against the served JWKS, and their claims equal the public score", async () => {
    const h = testApp({ now: T0 });
    const owner = await createOperator({ name: "Attested Ops" });
    const { sid } = await registerAgent(owner.key);
    const { res, body } = await attested(h, sid);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    const jwks = (await (await h.request("/.well-known/jwks.json")).json()) as JSONWebKeySet;
    expect(jwks.keys).toEqual([{ kty: "OKP", crv: "Ed25519", x: expect.any(String), kid: "test-key-1", alg: "EdDSA", use: "sig" }]);
    const { payload, protectedHeader } = await jwtVerify(body.attestation, createLocalJWKSet(jwks), {
      issuer: "http://trust.test",
      subject: sid,
      typ: "trust-attestation+jwt",
      currentDate: new Date(T0),
    });
    expect(protectedHeader).toEqual({ alg: "EdDSA", kid: "test-key-1", typ: "trust-attestation+jwt" });
    expect(payload.exp! - payload.iat!).toBe(900);
    expect(payload.iat).toBe(Math.floor(T0 / 1000));
    const pub = (await (await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as Record<string, unknown>;
    expect(payload).toMatchObject({
      status: "active",
      composite_score: pub.composite_score,
      confidence: pub.confidence,
      recommendation: pub.recommendation,
      identity_level: pub.identity_level,
      operator_name: "Attested Ops",
    });
    expect(payload.cnf).toBeUndefined();
  });

  it("is served from the edge cache for up to a minute, and not counted then", async () => {
    const h = testApp({ now: T0 });
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const ip = freshIp();
    const first = (await (await h.request(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": ip } })).json()) as { attestation: string };
    const again = (await (await h.request(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": ip } })).json()) as { attestation: string };
    expect(again.attestation).toBe(first.attestation);
  });

  it("names as issuer the configured public origin, whatever host the client called", async () => {
    const h = testApp({ now: T0, env: { PUBLIC_ORIGIN: "http://127.0.0.1:8787" } });
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const issuerVia = async (origin: string) => {
      const res = await h.app.fetch(new Request(`${origin}/score/${sid}/attestation`, { headers: { "cf-connecting-ip": freshIp() } }), h.env, createExecutionContext());
      const { attestation } = (await res.json()) as { attestation: string };
      return JSON.parse(new TextDecoder().decode(base64url.decode(attestation.split(".")[1]))).iss as string;
    };
    // localhost and 127.0.0.1 are one service: a relying party pinning its issuer accepts both answers.
    expect(await issuerVia("http://localhost:8787")).toBe("http://127.0.0.1:8787");
    expect(await issuerVia("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787");
    expect(await issuerVia("https://api.trust.example")).toBe("http://127.0.0.1:8787");
  });

  it("is refused for a suspended agent (409)", async () => {
    const h = testApp({ now: T0 });
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } });
    const { res, body } = await attested(h, sid);
    expect(res.status).toBe(409);
    expect(body.error).toBe("Agent is suspended: no attestation is issued");
  });

  it("signed before a key rotation, still verifies until its own expiry against the new JWKS", async () => {
    const first = newAttestationKey("key-a");
    const second = newAttestationKey("key-b");
    const before = testApp({ now: T0, env: { ATTESTATION_KEYS: JSON.stringify([first]) } });
    const after = testApp({ now: T0 + 120_000, env: { ATTESTATION_KEYS: JSON.stringify([second, first]) } });
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const old = (await attested(before, sid)).body.attestation;
    expect(decodeProtectedHeader(old).kid).toBe("key-a");
    const jwks = (await (await after.request("/.well-known/jwks.json")).json()) as JSONWebKeySet;
    expect(jwks.keys.map((k) => k.kid)).toEqual(["key-b", "key-a"]);
    const verified = await compactVerify(old, createLocalJWKSet(jwks));
    expect(JSON.parse(new TextDecoder().decode(verified.payload)).sub).toBe(sid);
    await expect(jwtVerify(old, createLocalJWKSet(jwks), { currentDate: new Date(T0 + 16 * 60_000) })).rejects.toThrow(/exp/);
    const other = await registerAgent(key);
    expect(decodeProtectedHeader((await attested(after, other.sid)).body.attestation).kid).toBe("key-b");
  });

  it("carries cnf.jkt, the proven key's thumbprint, at identity level 2", async () => {
    const { Ed25519Signer } = await import("web-bot-auth/crypto");
    const { signatureHeaders } = await import("web-bot-auth");
    const h = testApp({ now: Date.now() });
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const secret = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
    const signer = await Ed25519Signer.fromJWK(secret);
    await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body: { jwk: { kty: "OKP", crv: "Ed25519", x: secret.x } } });
    const { nonce } = (await (await h.request(`/agents/${sid}/verify/signature/challenge`, { method: "POST", headers: bearer(owner.key) })).json()) as { nonce: string };
    const path = `/agents/${sid}/verify/signature`;
    const headers = await signatureHeaders(new Request(`http://trust.test${path}`, { method: "POST" }), signer, {
      created: new Date(h.clock.now),
      expires: new Date(h.clock.now + 60_000),
      nonce,
      components: ["@method", "@authority", "@path"],
    });
    expect((await h.request(path, { method: "POST", headers: { ...headers } })).status).toBe(200);
    const { body } = await attested(h, sid);
    const jwks = (await (await h.request("/.well-known/jwks.json")).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(body.attestation, createLocalJWKSet(jwks), { currentDate: new Date(h.clock.now) });
    expect(payload).toMatchObject({ identity_level: 2, cnf: { jkt: signer.keyid } });
  });

  it("answers 503, and only there, without signing keys", async () => {
    const h = testApp({ now: T0, env: { ATTESTATION_KEYS: "not json" } });
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    expect((await attested(h, sid)).res.status).toBe(503);
    expect((await h.request("/.well-known/jwks.json")).status).toBe(503);
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).status).toBe(200);
    // The same agent is attested by an app whose keys are sound: the 503 came from the keys alone.
    expect((await attested(testApp({ now: T0 }), sid)).res.status).toBe(200);
  });
});
