// Trust credentials (SD-JWT VC) issued through the API and checked by libraries no one here wrote:
// @sd-jwt/sd-jwt-vc verifies (knowing only the JWKS, its status-list fetcher injected, its default
// status validator kept), @sd-jwt/present lists what a holder can disclose, @sd-jwt/jwt-status-list
// reads the lists; the agent signs its own requests with web-bot-auth. No network.
import { getListFromStatusListJWT } from "@sd-jwt/jwt-status-list";
import { presentableKeys } from "@sd-jwt/present";
import { decodeSdJwt, getClaims } from "@sd-jwt/decode";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { contentDigest, present, requestCredential } from "../../examples/credential-agent.mjs";
import { newAgentKey } from "../../examples/identity-web-bot-auth.mjs";
import { credentialVerifier, verifyPresentation } from "../../examples/verify-credential.mjs";
import { signatureHeaders } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";
import { SCOPES } from "../../src/domain/scopes";
import { STATUS_VALUES } from "../../src/domain/status-list";
import { dropAnswer } from "../../src/http/edge-cache";
import { statusListCacheKey } from "../../src/routes/status-lists";
import { ADMIN, bearer, createOperator, freshIp, registerAgent, testApp } from "../helpers";
import { deliverEvents, statusEvent } from "./status-helpers";

const ISSUER = "http://trust.test";
const RP = { audience: "https://shop.example", nonce: "rp-nonce-8c1f2e" };
const sha256 = async (data: string | ArrayBuffer) => new Uint8Array(await crypto.subtle.digest("SHA-256", typeof data === "string" ? new TextEncoder().encode(data) : data));

/** An owned agent at identity level 2 with its key, the app at the real time (signatures are checked against it). */
async function world(level: 0 | 2 = 2) {
  const h = testApp({ now: Date.now() });
  const owner = await createOperator({ name: "Credential Ops" });
  const { sid } = await registerAgent(owner.key);
  const key = await newAgentKey();
  if (level === 2) {
    expect((await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body: { jwk: key.publicJwk } })).status).toBe(201);
    const { nonce } = (await (await h.request(`/agents/${sid}/verify/signature/challenge`, { method: "POST", headers: bearer(owner.key) })).json()) as { nonce: string };
    const signer = await Ed25519Signer.fromJWK(key.privateJwk);
    const url = `${ISSUER}/agents/${sid}/verify/signature`;
    const proof = await signatureHeaders(new Request(url, { method: "POST" }), signer, {
      created: new Date(h.clock.now),
      expires: new Date(h.clock.now + 60_000),
      nonce,
      components: ["@method", "@authority", "@path"],
    });
    expect((await h.request(`/agents/${sid}/verify/signature`, { method: "POST", headers: { ...proof, "cf-connecting-ip": freshIp() } })).status).toBe(200);
  }
  /** The app as the agent's fetch: the example's requests, from a fresh address each. */
  const fetchApp = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const headers = Object.fromEntries(new Headers(init?.headers));
    return h.request(url.pathname, { method: init?.method, headers: { ...headers, "cf-connecting-ip": freshIp() }, body: init?.body ?? undefined });
  }) as typeof fetch;
  const jwks = (await (await h.request("/.well-known/jwks.json")).json()) as { keys: (JsonWebKey & { kid?: string })[] };
  /** The relying party's copy of each list, as fresh as the service serves it now. */
  const statusList = async (uri: string) => {
    const list = Number(new URL(uri).pathname.split("/").pop());
    await dropAnswer(statusListCacheKey(ISSUER, list));
    const res = await h.request(new URL(uri).pathname, { headers: { "cf-connecting-ip": freshIp() } });
    return res.text();
  };
  const verifier = credentialVerifier({ issuer: ISSUER, jwks, statusList });
  const verify = (presentation: string, options: Partial<typeof RP> & { now?: number } = {}) =>
    verifyPresentation(verifier, presentation, { issuer: ISSUER, ...RP, now: h.clock.now, ...options });
  const byOwner = async (apiKey = owner.key) => h.request(`/agents/${sid}/credential`, { method: "POST", headers: bearer(apiKey) });
  return { h, owner, sid, key, fetchApp, verify, byOwner, statusList };
}

async function ownerCredential(w: Awaited<ReturnType<typeof world>>) {
  const res = await w.byOwner();
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { credential: string; expires_at: string }).credential;
}

describe("POST /agents/{sid}/credential", () => {
  it("issues an SD-JWT VC to the owner: typ dc+sd-jwt, 24 hours, bound to the proven key, every trust claim disclosable", async () => {
    const w = await world();
    const res = await w.byOwner();
    expect(res.status).toBe(201);
    const body = (await res.json()) as { credential: string; expires_at: string };
    const decoded = await decodeSdJwt(body.credential, sha256);
    expect(decoded.jwt.header).toMatchObject({ typ: "dc+sd-jwt", alg: "EdDSA" });
    const iat = Math.floor(w.h.clock.now / 1000);
    expect(decoded.jwt.payload).toMatchObject({
      iss: ISSUER,
      sub: w.sid,
      iat,
      exp: iat + 86_400,
      vct: `${ISSUER}/credentials/agent-trust/v1`,
      cnf: { jwk: w.key.publicJwk },
      status: { status_list: { idx: expect.any(Number), uri: expect.stringMatching(/^http:\/\/trust\.test\/status\/[0-9]+$/) } },
    });
    expect(body.expires_at).toBe(new Date((iat + 86_400) * 1000).toISOString());
    // Nothing of the score is in the signed part in the clear: every claim is a disclosure.
    for (const claim of ["composite_score", "recommendation", "confidence", "reliability", "operator_name", "no_caution"]) expect(decoded.jwt.payload).not.toHaveProperty(claim);
    // What the holder can disclose, as @sd-jwt/present lists it.
    const keys = await presentableKeys(decoded.jwt.payload, decoded.disclosures, sha256);
    expect(keys.sort()).toEqual(
      ["composite_score", "confidence", "financial", "identity_level", "no_caution", "open_disputes", "operator_name", "quality", "recommendation", "reliability", "security", "stability"].sort(),
    );
    const claims = (await getClaims(decoded.jwt.payload, decoded.disclosures, sha256)) as Record<string, unknown>;
    const score = (await (await w.h.request(`/score/${w.sid}`, { headers: bearer(w.owner.key) })).json()) as Record<string, unknown>;
    expect(claims).toMatchObject({
      composite_score: score.composite_score,
      reliability: score.reliability,
      recommendation: score.recommendation,
      confidence: score.confidence,
      identity_level: 2,
      operator_name: "Credential Ops",
      open_disputes: 0,
      no_caution: true,
      composite_at_least: [],
    });
    // Every credential has as many digests, whatever the agent's standing: 12 claims (decoys fill in), 3 thresholds.
    expect((decoded.jwt.payload._sd as string[]).length).toBe(12);
    expect((decoded.jwt.payload.composite_at_least as unknown[]).length).toBe(3);
  });

  it("issues to the agent itself: a web-bot-auth signature with its proven key over a service nonce, covering content-digest", async () => {
    const w = await world();
    const credential = await requestCredential(ISSUER, w.sid, w.key.privateJwk, { fetch: w.fetchApp, now: w.h.clock.now });
    const claims = await w.verify(await present(credential, { recommendation: true }, w.key.privateJwk, { ...RP, now: w.h.clock.now }));
    expect(claims).toMatchObject({ sub: w.sid, recommendation: "review" });
  });

  it("refuses a replayed signed request, a stale one, a forged or foreign nonce, a body its digest does not match, and a key not proven", async () => {
    const w = await world();
    const now = w.h.clock.now;
    const nonceFor = async (sid: string) => ((await (await w.fetchApp(`${ISSUER}/agents/${sid}/credential/nonce`, { method: "POST" })).json()) as { nonce: string }).nonce;
    const signed = async (opts: { nonce: string; body?: string; digestOf?: string; created?: number; jwk?: JsonWebKey; components?: string[] }) => {
      const url = `${ISSUER}/agents/${w.sid}/credential`;
      const headers = { "Content-Digest": await contentDigest(opts.digestOf ?? opts.body ?? "") };
      const created = opts.created ?? now;
      const signature = await signatureHeaders(new Request(url, { method: "POST", headers }), await Ed25519Signer.fromJWK(opts.jwk ?? w.key.privateJwk), {
        created: new Date(created),
        expires: new Date(created + 60_000),
        nonce: opts.nonce,
        components: opts.components ?? ["@method", "@authority", "@path", "content-digest"],
      });
      return w.fetchApp(url, { method: "POST", headers: { ...headers, ...signature }, body: opts.body ?? "" });
    };
    const refusal = async (res: Response) => ({ status: res.status, error: ((await res.json()) as { error: string }).error });

    const nonce = await nonceFor(w.sid);
    const first = await signed({ nonce });
    expect(first.status).toBe(201);
    expect(await refusal(await signed({ nonce }))).toEqual({ status: 401, error: "Signature verification failed: the nonce is not one the service issued for this agent, or it was used or has expired" });
    expect(await refusal(await signed({ nonce: await nonceFor(w.sid), created: now - 120_000 }))).toEqual({ status: 401, error: "Signature verification failed: the signature has expired" });
    const other = await registerAgent(w.owner.key);
    expect((await refusal(await signed({ nonce: await nonceFor(other.sid) }))).status).toBe(401);
    const forged = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(64))));
    expect((await refusal(await signed({ nonce: forged }))).status).toBe(401);
    expect(await refusal(await signed({ nonce: await nonceFor(w.sid), body: '{"x":1}', digestOf: "" }))).toEqual({
      status: 401,
      error: "Signature verification failed: Content-Digest must be the sha-256 of the body",
    });
    expect(await refusal(await signed({ nonce: await nonceFor(w.sid), components: ["@method", "@authority", "@path"] }))).toEqual({
      status: 401,
      error: "Signature verification failed: the signature must cover content-digest",
    });
    // A second registered key that was never proven signs nothing here.
    const second = await newAgentKey();
    expect((await w.h.request(`/agents/${w.sid}/keys`, { headers: bearer(w.owner.key), body: { jwk: second.publicJwk } })).status).toBe(201);
    expect(await refusal(await signed({ nonce: await nonceFor(w.sid), jwk: second.privateJwk }))).toEqual({
      status: 401,
      error: "Signature verification failed: keyid must be the agent's proven key (its identity_key)",
    });
    // An unsigned request without a key.
    expect((await w.fetchApp(`${ISSUER}/agents/${w.sid}/credential`, { method: "POST" })).status).toBe(400);
  });

  it("refuses an agent below identity level 2 (409, saying why) and a suspended one (409)", async () => {
    const w = await world(0);
    const res = await w.byOwner();
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toMatch(/^Credentials are issued at identity level 2 \(Signature-Verified\) only; this agent is at level 0/);
    const proven = await world();
    await proven.h.request(`/admin/agents/${proven.sid}`, { headers: ADMIN, body: { status: "suspended" } });
    const suspended = await proven.byOwner();
    expect(suspended.status).toBe(409);
    expect(await suspended.json()).toMatchObject({ error: "Agent is suspended: no credential is issued" });
  });

  it("needs identity:write of the owner: a narrower key, another operator's key and a key in its rotation grace are refused", async () => {
    const w = await world();
    const narrow = (await (await w.h.request("/keys", { headers: bearer(w.owner.key), body: { scopes: ["agents:read", "agents:write"] } })).json()) as { key: { api_key: string } };
    expect((await w.byOwner(narrow.key.api_key)).status).toBe(403);
    const stranger = await createOperator();
    const foreign = await w.byOwner(stranger.key);
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: "Forbidden: you do not own this agent" });
    // A full key of the owner, rotated: the old one keeps only what running traffic needs.
    const full = ((await (await w.h.request("/keys", { headers: bearer(w.owner.key), body: { scopes: [...SCOPES] } })).json()) as { key: { api_key: string } }).key;
    expect((await w.h.request("/keys/rotate", { method: "POST", headers: bearer(full.api_key) })).status).toBe(201);
    const grace = await w.byOwner(full.api_key);
    expect(grace.status).toBe(403);
    expect(await grace.json()).toMatchObject({ error: "Forbidden: this API key lacks the identity:write scope" });
  });

  it("issues at most 10 per hour per agent", async () => {
    const w = await world();
    for (let i = 0; i < 10; i++) expect((await w.byOwner()).status).toBe(201);
    const res = await w.byOwner();
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("a relying party verifying a presentation (examples/verify-credential.mjs)", () => {
  it("accepts only what was disclosed: no_caution alone, bound to its nonce and audience", async () => {
    const w = await world();
    const presentation = await present(await ownerCredential(w), { no_caution: true }, w.key.privateJwk, { ...RP, now: w.h.clock.now });
    const claims = await w.verify(presentation);
    expect(claims.no_caution).toBe(true);
    for (const hidden of ["composite_score", "recommendation", "confidence", "reliability", "operator_name", "open_disputes", "identity_level"]) expect(claims).not.toHaveProperty(hidden);
    expect(claims.composite_at_least).toEqual([]);
  });

  it("refuses a forged or altered disclosure, a missing or foreign key binding, another audience or nonce, a stale binding, an expired credential", async () => {
    const w = await world();
    const credential = await ownerCredential(w);
    const now = w.h.clock.now;
    const good = await present(credential, { recommendation: true }, w.key.privateJwk, { ...RP, now });
    await expect(w.verify(good)).resolves.toMatchObject({ recommendation: "review" });

    const [jwt, ...rest] = good.split("~");
    const kb = rest.pop()!;
    const b64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    // A disclosure the service never signed (its digest is nowhere in the credential).
    const forged = [jwt, ...rest, b64url(JSON.stringify(["c2FsdHNhbHQ", "composite_score", 999])), kb].join("~");
    await expect(w.verify(forged)).rejects.toThrow();
    // The agent's real disclosure, its value changed.
    const altered = [jwt, b64url(JSON.stringify([JSON.parse(atob(rest[0].replace(/-/g, "+").replace(/_/g, "/")))[0], "recommendation", "clear"])), kb].join("~");
    await expect(w.verify(altered)).rejects.toThrow();
    // No key-binding JWT: a stolen credential alone is useless.
    await expect(w.verify(await present(credential, { recommendation: true }, w.key.privateJwk, { ...RP, now }).then((p) => p.slice(0, p.lastIndexOf("~") + 1)))).rejects.toThrow(/Key Binding JWT not exist/);
    // Bound with a key that is not the credential's.
    const thief = await newAgentKey();
    await expect(w.verify(await present(credential, { recommendation: true }, thief.privateJwk, { ...RP, now }))).rejects.toThrow(/Signature/);
    await expect(w.verify(good, { audience: "https://elsewhere.example" })).rejects.toThrow(/another audience/);
    await expect(w.verify(good, { nonce: "another-nonce" })).rejects.toThrow(/Nonce/);
    await expect(w.verify(await present(credential, { recommendation: true }, w.key.privateJwk, { ...RP, now: now - 600_000 }))).rejects.toThrow(/not fresh/);
    const later = now + 86_400_000 + 1_000;
    await expect(w.verify(await present(credential, { recommendation: true }, w.key.privateJwk, { ...RP, now: later }), { now: later })).rejects.toThrow(/expired/);
  });

  it("refuses an agent the status list shows caution (3), and one suspended (2) after its credential was issued", async () => {
    const w = await world();
    const credential = await ownerCredential(w);
    const place = (await env.DB.prepare("SELECT status_list AS list, status_idx AS idx FROM agent_directory WHERE sid = ?").bind(w.sid).first<{ list: number; idx: number }>())!;
    const now = w.h.clock.now;
    const presentation = () => present(credential, { no_caution: true }, w.key.privateJwk, { ...RP, now: w.h.clock.now });
    await expect(w.verify(await presentation())).resolves.toMatchObject({ no_caution: true });

    await deliverEvents([statusEvent(w.sid, "score.changed", { recommendation: "caution" }, "c0ffee", 1, now)]);
    w.h.clock.now = now + 61_000;
    expect(getListFromStatusListJWT(await w.statusList(`${ISSUER}/status/${place.list}`)).getStatus(place.idx)).toBe(STATUS_VALUES.caution);
    await expect(w.verify(await presentation())).rejects.toThrow(/Status is not valid/);

    await deliverEvents([statusEvent(w.sid, "agent.status_changed", { status: "suspended" }, "c0ffee", 2, now + 1)]);
    w.h.clock.now = now + 122_000;
    expect(getListFromStatusListJWT(await w.statusList(`${ISSUER}/status/${place.list}`)).getStatus(place.idx)).toBe(STATUS_VALUES.suspended);
    await expect(w.verify(await presentation())).rejects.toThrow(/Status is not valid/);
  });

  it("refuses a credential signed by a key not in the JWKS, and a status list that is not the one named", async () => {
    const w = await world();
    const credential = await ownerCredential(w);
    const presentation = await present(credential, { no_caution: true }, w.key.privateJwk, { ...RP, now: w.h.clock.now });
    const otherKeys = { keys: [{ ...(await newAgentKey()).publicJwk, kid: "not-the-service" }] };
    const strange = credentialVerifier({ issuer: ISSUER, jwks: otherKeys, statusList: w.statusList });
    await expect(verifyPresentation(strange, presentation, { issuer: ISSUER, ...RP, now: w.h.clock.now })).rejects.toThrow(/Signature/);
    // A list the service's keys really signed, but not the one named: a deployment under another name.
    const elsewhere = testApp({ now: w.h.clock.now, env: { PUBLIC_ORIGIN: "http://elsewhere.test" } });
    const swapped = credentialVerifier({
      issuer: ISSUER,
      jwks: (await (await w.h.request("/.well-known/jwks.json")).json()) as { keys: JsonWebKey[] },
      statusList: async (uri) => {
        const res = await elsewhere.request(new URL(uri).pathname, { headers: { "cf-connecting-ip": freshIp() } });
        return res.text();
      },
    });
    await expect(verifyPresentation(swapped, presentation, { issuer: ISSUER, ...RP, now: w.h.clock.now })).rejects.toThrow(/is not that status list/);
  });
});

describe("POST /agents/{sid}/credential/nonce", () => {
  it("gives a 64-byte nonce (the Web Bot Auth format) for a known agent, 404 for an unknown one", async () => {
    const w = await world(0);
    const res = await w.fetchApp(`${ISSUER}/agents/${w.sid}/credential/nonce`, { method: "POST" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { nonce: string; expires_in: number };
    expect(body.expires_in).toBe(300);
    expect(Uint8Array.from(atob(body.nonce), (c) => c.charCodeAt(0))).toHaveLength(64);
    expect((await w.fetchApp(`${ISSUER}/agents/SID-0x0000000000000001/credential/nonce`, { method: "POST" })).status).toBe(404);
  });
});
