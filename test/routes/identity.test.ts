// Identity level 2: an agent proves control of its own Ed25519 key with an HTTP Message Signature
// (RFC 9421, as Web Bot Auth signs), over a challenge its owner asked for.
import { verify } from "http-message-sig";
import { describe, expect, it } from "vitest";
import { signatureHeaders } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";
import { bearer, createOperator, freshIp, registerAgent, testApp } from "../helpers";

const COMPONENTS = ["@method", "@authority", "@path"];

async function agentKey() {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const secret = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JsonWebKey;
  const { kty, crv, x } = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  const signer = await Ed25519Signer.fromJWK(secret);
  return { jwk: { kty, crv, x }, secret, signer, thumbprint: signer.keyid };
}

const HOUR = 3_600_000;
/**
 * The instant every request of this file happens at: frozen in the middle of an hour and of a minute
 * (signatures live 5 minutes, proofs are limited per hour), so no test straddles a window boundary.
 * The RFC 9421 library also refuses a signature whose `expires` is past by the runtime's own clock,
 * so the instant is the middle of the next hour, ahead of the real clock for the whole run.
 */
const T0 = Math.ceil(Date.now() / HOUR) * HOUR + 30 * 60_000 + 30_000;

/** The world of one owned agent. */
async function world() {
  const h = testApp({ now: T0 });
  const owner = await createOperator();
  const { sid } = await registerAgent(owner.key);
  const key = await agentKey();
  const add = (jwk: unknown, who = owner.key, agent = sid) => h.request(`/agents/${agent}/keys`, { headers: bearer(who), body: { jwk } });
  const challenge = async (agent = sid) =>
    ((await (await h.request(`/agents/${agent}/verify/signature/challenge`, { method: "POST", headers: bearer(owner.key) })).json()) as { nonce: string }).nonce;
  /** Sends the proof for `agent`, signed over `signedPath` (default: the proof's own path). */
  const prove = async (
    nonce: string,
    options: { agent?: string; signer?: Ed25519Signer; signedPath?: string; components?: string[]; created?: number; lifetime?: number } = {},
  ) => {
    const agent = options.agent ?? sid;
    const path = `/agents/${agent}/verify/signature`;
    const created = options.created ?? h.clock.now;
    const signed = new Request(`http://trust.test${options.signedPath ?? path}`, { method: "POST" });
    const headers = await signatureHeaders(signed, options.signer ?? key.signer, {
      created: new Date(created),
      expires: new Date(created + (options.lifetime ?? 300_000)),
      nonce,
      components: options.components ?? COMPONENTS,
    });
    return h.request(path, { method: "POST", headers: { ...headers, "cf-connecting-ip": freshIp() } });
  };
  return { h, owner, sid, key, add, challenge, prove };
}

describe("agent keys", () => {
  it("registers an Ed25519 public key by its RFC 7638 thumbprint, lists and removes it (owner)", async () => {
    const { h, owner, sid, key, add } = await world();
    const res = await add(key.jwk);
    expect(res.status).toBe(201);
    const body = (await res.json()) as { keys: { thumbprint: string; x: string; proven: boolean; directory_url: null }[] };
    expect(body.keys).toEqual([expect.objectContaining({ thumbprint: key.thumbprint, kty: "OKP", crv: "Ed25519", x: key.jwk.x, proven: false, directory_url: null })]);
    const listed = (await (await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key) })).json()) as { keys: unknown[] };
    expect(listed.keys).toHaveLength(1);
    expect((await h.request(`/agents/${sid}/keys/${key.thumbprint}`, { method: "DELETE", headers: bearer(owner.key) })).status).toBe(200);
    expect((await h.request(`/agents/${sid}/keys/${key.thumbprint}`, { method: "DELETE", headers: bearer(owner.key) })).status).toBe(404);
  });

  it("refuses a private part, other key types, a sixth key, non-owners and keys without identity:write", async () => {
    const { h, owner, sid, key, add } = await world();
    const privateOne = await add(key.secret);
    expect(privateOne.status).toBe(400);
    expect(((await privateOne.json()) as { error: string }).error).toBe("jwk must not contain a private key (d)");
    expect((await add({ kty: "EC", crv: "P-256", x: "a", y: "b" })).status).toBe(400);
    expect((await add({ kty: "OKP", crv: "Ed25519", x: "short" })).status).toBe(400);
    expect((await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body: {} })).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await add((await agentKey()).jwk)).status).toBe(201);
    const sixth = await add((await agentKey()).jwk);
    expect(sixth.status).toBe(409);
  });

  it("registers the Ed25519 keys of a Web Bot Auth key directory, fetched through the SSRF guard", async () => {
    const key = await agentKey();
    const fetched: string[] = [];
    const h = testApp({
      now: T0,
      resolve: async (host) => (host === "inside.example.com" ? ["10.0.0.8"] : ["93.184.216.34"]),
      fetchOutbound: async (url) => {
        fetched.push(String(url));
        return Response.json({ keys: [key.jwk, { kty: "RSA", n: "x", e: "AQAB" }] }, { headers: { "content-type": "application/http-message-signatures-directory+json" } });
      },
    });
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const inside = await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body: { directory_url: "https://inside.example.com/.well-known/http-message-signatures-directory" } });
    expect(inside.status).toBe(400);
    expect(((await inside.json()) as { error: string }).error).toBe("directory_url must not resolve to a private address");
    expect(fetched).toEqual([]);
    const res = await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body: { directory_url: "https://agent.example.com/.well-known/http-message-signatures-directory" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { keys: { thumbprint: string; directory_url: string }[] };
    expect(body.keys).toEqual([expect.objectContaining({ thumbprint: key.thumbprint, directory_url: "https://agent.example.com/.well-known/http-message-signatures-directory" })]);
    expect(fetched).toHaveLength(1);
  });

  it("answers a directory_url or jwk of the wrong type with the field's own text, in both forms", async () => {
    const { h, owner, sid } = await world();
    const cases: [unknown, string][] = [
      [{ directory_url: 42 }, "directory_url must be a valid URL"],
      [{ directory_url: { href: "https://agent.example.com/" } }, "directory_url must be a valid URL"],
      [{ jwk: "OKP" }, "jwk must be a JSON object"],
      [{ jwk: [1] }, "jwk must be a JSON object"],
    ];
    for (const [body, text] of cases) {
      const a = await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body });
      expect(a.status).toBe(400);
      expect(await a.json()).toEqual({ error: text, request_id: expect.any(String) });
      const b = await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key, { "api-version": "B" }), body });
      expect(await b.json()).toEqual({ error: { code: "invalid_request", message: text }, request_id: expect.any(String) });
    }
  });
});

describe("identity level 2", () => {
  it("is granted by a signature over a fresh challenge, and shows everywhere", async () => {
    const { h, owner, sid, key, add, challenge, prove } = await world();
    await add(key.jwk);
    const res = await prove(await challenge());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      message: expect.any(String),
      identity_level: 2,
      identity_label: "Signature-Verified",
      identity_key: key.thumbprint,
    });
    const score = (await (await h.request(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as Record<string, unknown>;
    expect(score).toMatchObject({ identity_level: 2, identity_label: "Signature-Verified", identity_key: key.thumbprint });
    const report = (await (await h.request(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as Record<string, unknown>;
    expect(report).toMatchObject({ identity_level: 2, identity_label: "Signature-Verified", identity_key: key.thumbprint });
    const scoreB = (await (await h.request(`/score/${sid}`, { headers: bearer(owner.key, { "api-version": "B" }) })).json()) as Record<string, unknown>;
    expect(scoreB.identity_level).toBe(2);
    for (const version of ["A", "B"]) {
      const pub = (await (await h.request(`/score/${sid}/public`, { headers: { "api-version": version, "cf-connecting-ip": freshIp() } })).json()) as Record<string, unknown>;
      expect(pub.identity_level).toBe(2);
    }
    const me = (await (await h.request("/me", { headers: bearer(owner.key) })).json()) as { agents: { sid: string; identity_level: number }[] };
    expect(me.agents.find((a) => a.sid === sid)?.identity_level).toBe(2);
    const badge = (await (await h.request(`/badge/${sid}.json`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as { message: string };
    expect(badge.message).toBe("500 · review · L2");
    expect(await (await h.request(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": freshIp() } })).text()).toContain("500 · review · L2");
    const keys = (await (await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key) })).json()) as { keys: { proven: boolean }[] };
    expect(keys.keys[0].proven).toBe(true);
  });

  it("registering keys answers proven: true for the agent's proven key, false for the others", async () => {
    const { add, challenge, prove, key } = await world();
    const other = await agentKey();
    await add(key.jwk);
    expect((await prove(await challenge())).status).toBe(200);
    const proven = (k: Response) => k.json().then((b) => (b as { keys: { thumbprint: string; proven: boolean }[] }).keys.map((x) => [x.thumbprint, x.proven]));
    const again = await add(key.jwk);
    expect(again.status).toBe(201);
    expect(await proven(again)).toEqual([[key.thumbprint, true]]);
    const added = await add(other.jwk);
    expect(added.status).toBe(201);
    expect(await proven(added)).toEqual([[other.thumbprint, false]]);
  });

  it("refuses a self-chosen nonce, a reused challenge, an expired signature and a missing covered component", async () => {
    const { key, add, challenge, prove } = await world();
    await add(key.jwk);
    const selfChosen = await prove(btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(64)))));
    expect(selfChosen.status).toBe(401);
    expect(((await selfChosen.json()) as { error: string }).error).toMatch(/^Signature verification failed: the nonce/);

    const nonce = await challenge();
    expect((await prove(nonce)).status).toBe(200);
    expect((await prove(nonce)).status).toBe(401);

    const expired = await prove(await challenge(), { created: T0 - 400_000, lifetime: 300_000 });
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { error: string }).error).toBe("Signature verification failed: the signature has expired");

    const uncovered = await prove(await challenge(), { components: ["@method", "@authority"] });
    expect(uncovered.status).toBe(401);
    expect(((await uncovered.json()) as { error: string }).error).toBe("Signature verification failed: the signature must cover @path");
    const tooLong = await prove(await challenge(), { lifetime: 3_600_000 });
    expect(tooLong.status).toBe(401);
  });

  it("refuses a signature over another agent's path, and a key that is not registered", async () => {
    const { h, owner, sid, key, add, challenge, prove } = await world();
    const other = await registerAgent(owner.key);
    await add(key.jwk);
    await add(key.jwk, owner.key, other.sid);
    // Signed for the other agent's proof, sent to this one's.
    const misdirected = await prove(await challenge(), { signedPath: `/agents/${other.sid}/verify/signature` });
    expect(misdirected.status).toBe(401);
    expect(((await misdirected.json()) as { error: string }).error).toBe("Signature verification failed: the signature does not verify with the key keyid names");
    const stranger = await agentKey();
    const unregistered = await prove(await challenge(), { signer: stranger.signer });
    expect(unregistered.status).toBe(401);
    expect(((await unregistered.json()) as { error: string }).error).toBe("Signature verification failed: keyid is not a key registered for this agent");
    expect(((await (await h.request(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as { identity_level: number }).identity_level).toBe(0);
  });

  it("deleting the proven key drops the agent to the level it still holds", async () => {
    let token = "";
    const h = testApp({
      now: T0,
      resolve: async () => ["93.184.216.34"],
      fetchOutbound: async (_url, init) => ((token = JSON.parse(String(init!.body)).challenge_token), new Response(null, { status: 204 })),
    });
    const { owner, sid, key, add, challenge, prove } = await world();
    await add(key.jwk);
    expect((await prove(await challenge())).status).toBe(200);
    const removed = await h.request(`/agents/${sid}/keys/${key.thumbprint}`, { method: "DELETE", headers: bearer(owner.key) });
    expect(await removed.json()).toMatchObject({ identity_level: 0, identity_label: "Unverified" });

    // Callback-verified first, then signature: deleting the key leaves level 1.
    await h.request(`/agents/${sid}/verify`, { headers: bearer(owner.key), body: { callbackUrl: "https://agent.example.com/cb" } });
    expect((await h.request(`/agents/${sid}/verify/confirm`, { headers: bearer(owner.key), body: { challenge_token: token } })).status).toBe(200);
    await add(key.jwk);
    expect((await prove(await challenge())).status).toBe(200);
    const again = await h.request(`/agents/${sid}/keys/${key.thumbprint}`, { method: "DELETE", headers: bearer(owner.key) });
    expect(await again.json()).toMatchObject({ identity_level: 1, identity_label: "Callback-Verified" });
    expect(((await (await h.request(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as { identity_key: unknown }).identity_key).toBeNull();
  });

  it("removing another key, or confirming a callback, leaves a level-2 agent at level 2 and says so", async () => {
    let token = "";
    const h = testApp({
      now: T0,
      resolve: async () => ["93.184.216.34"],
      fetchOutbound: async (_url, init) => ((token = JSON.parse(String(init!.body)).challenge_token), new Response(null, { status: 204 })),
    });
    const { owner, sid, key, add, challenge, prove } = await world();
    const spare = await agentKey();
    await add(key.jwk);
    await add(spare.jwk);
    expect((await prove(await challenge())).status).toBe(200);
    const removed = await h.request(`/agents/${sid}/keys/${spare.thumbprint}`, { method: "DELETE", headers: bearer(owner.key) });
    expect(await removed.json()).toEqual({ message: "Key removed", identity_level: 2, identity_label: "Signature-Verified", identity_key: key.thumbprint });
    await h.request(`/agents/${sid}/verify`, { headers: bearer(owner.key), body: { callbackUrl: "https://agent.example.com/cb" } });
    const confirmed = await h.request(`/agents/${sid}/verify/confirm`, { headers: bearer(owner.key), body: { challenge_token: token } });
    expect(await confirmed.json()).toEqual({ message: "Identity verified by callback challenge", identity_level: 2, identity_label: "Signature-Verified" });
  });

  it("allows 10 proof attempts per hour per agent", async () => {
    const { key, add, prove } = await world();
    await add(key.jwk);
    const unissued = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(64))));
    for (let i = 0; i < 10; i++) expect((await prove(unissued())).status).toBe(401);
    const eleventh = await prove(unissued());
    expect(eleventh.status).toBe(429);
    expect(((await eleventh.json()) as { error: string }).error).toBe("Too many verification attempts");
  });
});

describe("RFC 9421 Appendix B.2.6", () => {
  it("the signature base builder reproduces the Ed25519 test vector, and its signature verifies", async () => {
    // RFC 9421 B.1.4 test-key-ed25519 (public part) and the B.2.6 request.
    const publicKey = await crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs" }, { name: "Ed25519" }, false, ["verify"]);
    const request = {
      method: "POST",
      url: "https://example.com/foo?param=Value&Pet=dog",
      headers: {
        date: "Tue, 20 Apr 2021 02:07:55 GMT",
        "content-type": "application/json",
        "content-length": "18",
        "signature-input": 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
        signature: "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:",
      },
    };
    const expectedBase = [
      '"date": Tue, 20 Apr 2021 02:07:55 GMT',
      '"@method": POST',
      '"@path": /foo',
      '"@authority": example.com',
      '"content-type": application/json',
      '"content-length": 18',
      '"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
    ].join("\n");
    const verified = await verify(request, async (data, signature) => {
      expect(data).toBe(expectedBase);
      return crypto.subtle.verify({ name: "Ed25519" }, publicKey, signature, new TextEncoder().encode(data));
    });
    expect(verified).toBe(true);
  });
});
