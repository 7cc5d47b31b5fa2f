// The A2A Agent Card extension: GET /agents/{sid}/a2a-extension gives an AgentExtension that the
// A2A SDK's own AgentCard codec carries unchanged, and whose attestation a relying party verifies
// offline with jose and the JWKS the extension names.
import { AgentCard, AgentExtension, type AgentCard as AgentCardType } from "@a2a-js/sdk";
import { env } from "cloudflare:workers";
import { CompactSign, createLocalJWKSet, importJWK, jwtVerify, type JSONWebKeySet, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/domain/limits";
import { ADMIN, call, createOperator, freshIp, registerAgent, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:20:30Z");
const ORIGIN = "http://trust.test";
const URI = `${ORIGIN}/a2a/extensions/trust-attestation/v1`;

type App = ReturnType<typeof testApp>;
type Json = Record<string, any>;

const extensionOf = async (h: App, sid: string, ip = freshIp()) => h.request(`/agents/${sid}/a2a-extension`, { headers: { "cf-connecting-ip": ip, origin: "https://agent.example" } });

async function agent() {
  const owner = await createOperator({ name: "Carded Ops" });
  const { sid } = await registerAgent(owner.key);
  return sid;
}

/** The agent's card, as the agent would publish it, typed and encoded by the A2A SDK. */
function cardWith(extension: Json): AgentCardType {
  const card: AgentCardType = AgentCard.fromJSON({
    name: "Invoice Bot",
    description: "Reconciles invoices",
    supportedInterfaces: [{ url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    version: "1.0.0",
    capabilities: { streaming: false, extensions: [extension] },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  });
  return AgentCard.fromJSON(JSON.parse(JSON.stringify(AgentCard.toJSON(card))));
}

describe("GET /agents/{sid}/a2a-extension", () => {
  it("is an AgentExtension the A2A SDK's card carries unchanged, whose attestation verifies offline", async () => {
    const h = testApp({ now: T0 });
    const sid = await agent();
    const res = await extensionOf(h, sid);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    expect(res.headers.get("etag")).toBeTruthy();
    const extension = (await res.json()) as Json;
    expect(extension).toEqual({
      uri: URI,
      description: expect.stringContaining(sid),
      required: false,
      params: { sid, attestation: expect.any(String), jwks_uri: `${ORIGIN}/.well-known/jwks.json`, attestation_uri: `${ORIGIN}/score/${sid}/attestation`, status_list: { idx: expect.any(Number), uri: `${ORIGIN}/status/0` } },
    });

    // The relying party's side: the card as published, read with the SDK's types only.
    const card = cardWith(extension);
    const carried = card.capabilities!.extensions.find((e) => e.uri === URI)!;
    // Protobuf's JSON leaves out a false boolean; the decoded card still has it.
    expect(carried.required).toBe(false);
    expect({ required: false, ...(AgentExtension.toJSON(carried) as Json) }).toEqual(extension);
    const params = carried.params as { sid: string; attestation: string; jwks_uri: string };
    const jwks = (await (await h.request(new URL(params.jwks_uri).pathname)).json()) as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(params.attestation, createLocalJWKSet(jwks), {
      issuer: new URL(carried.uri).origin,
      subject: params.sid,
      typ: "trust-attestation+jwt",
      currentDate: new Date(T0),
    });
    expect(protectedHeader.alg).toBe("EdDSA");
    expect(payload).toMatchObject({ sub: sid, status: "active", operator_name: "Carded Ops", recommendation: expect.any(String) });
  });

  it("carries the attestation GET /score/{sid}/attestation serves, and is cached a minute", async () => {
    const h = testApp({ now: T0 });
    const sid = await agent();
    const served = (await (await h.request(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as Json;
    const first = (await (await extensionOf(h, sid)).json()) as Json;
    expect(first.params.attestation).toBe(served.attestation);
    expect(((await (await extensionOf(h, sid)).json()) as Json).params.attestation).toBe(served.attestation);
  });

  it("copies the attestation's status_list claim as the status-list pointer", async () => {
    const h = testApp({ now: T0 });
    const sid = await agent();
    const [signing] = JSON.parse(env.ATTESTATION_KEYS as string) as JWK[];
    const claims = { iss: ORIGIN, sub: sid, iat: T0 / 1000, exp: T0 / 1000 + 900, status: "active", status_list: { idx: 4711, uri: `${ORIGIN}/status/0` } };
    const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
      .setProtectedHeader({ alg: "EdDSA", kid: signing.kid, typ: "trust-attestation+jwt" })
      .sign(await importJWK(signing, "EdDSA"));
    // As if the attestation route had just served it (the parallel work signs this claim).
    const key = `https://attestation.cache/${encodeURIComponent(ORIGIN)}/${encodeURIComponent(sid)}`;
    await caches.default.put(key, new Response(JSON.stringify({ attestation: jws }), { headers: { "content-type": "application/json", "cache-control": "public, max-age=60" } }));
    const extension = (await (await extensionOf(h, sid)).json()) as Json;
    expect(extension.params).toMatchObject({ attestation: jws, status_list: { idx: 4711, uri: `${ORIGIN}/status/0` } });
  });

  it("refuses a suspended agent with the attestation route's 409, an unknown one 404, a bad SID 400", async () => {
    const h = testApp({ now: T0 });
    const sid = await agent();
    await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } });
    const suspended = await extensionOf(h, sid);
    expect(suspended.status).toBe(409);
    expect(await suspended.json()).toEqual({ error: "Agent is suspended: no attestation is issued", request_id: expect.any(String) });
    expect((await extensionOf(h, "SID-0x0000000000000000")).status).toBe(404);
    const bad = await extensionOf(h, "SID-0xNOPE");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error).toBe("Invalid SID format. Expected: SID-0x[16 hex chars]");
  });

  it("counts uncached requests with badges and attestations: 120 per minute per address", async () => {
    const h = testApp({ now: T0 });
    const [one, two] = [await agent(), await agent()];
    const ip = freshIp();
    await env.RATE_LIMITER.getByName(`ip:badge:${ip}`).hit([LIMITS.badge], T0, undefined, 119);
    expect((await extensionOf(h, one, ip)).status).toBe(200);
    const refused = await extensionOf(h, two, ip);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    // A cached answer is not counted.
    expect((await extensionOf(h, one, ip)).status).toBe(200);
  });
});

describe("the extension's URI", () => {
  it("serves the extension's definition, naming its params and how to verify them", async () => {
    const h = testApp({ now: T0 });
    const res = await h.request("/a2a/extensions/trust-attestation/v1");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const definition = (await res.json()) as Json;
    expect(definition.uri).toBe(URI);
    expect(Object.keys(definition.params)).toEqual(["sid", "attestation", "jwks_uri", "attestation_uri", "status_list"]);
    expect(definition.verification.length).toBeGreaterThan(3);
  });
});
