import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Deps } from "../../src/http/context";
import { bearer, call, createOperator, freshIp, registerAgent, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T12:00:00Z");

/** The app with a controlled clock, resolver and callback fetch, recording every outbound call. */
function harness(options: { status?: number; answers?: string[] } = {}) {
  const callbacks: { url: string; init: RequestInit; body: { challenge_token: string; sid: string } }[] = [];
  const lookups: string[] = [];
  const deps: Pick<Deps, "resolve" | "fetchOutbound"> = {
    resolve: async (host) => {
      lookups.push(host);
      return options.answers ?? ["93.184.216.34"];
    },
    fetchOutbound: async (input, init) => {
      callbacks.push({ url: String(input), init: init!, body: JSON.parse(String(init!.body)) });
      return new Response(null, { status: options.status ?? 200 });
    },
  };
  const h = testApp({ now: T0, resolve: deps.resolve, fetchOutbound: deps.fetchOutbound });
  const request = (path: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
    h.request(path, { method: "POST", headers: { "cf-connecting-ip": freshIp(), ...bearer(key), ...headers }, body });
  const clock = h.clock;
  return { clock, callbacks, lookups, request };
}

async function ownedAgent() {
  const owner = await createOperator();
  const { sid } = await registerAgent(owner.key);
  return { key: owner.key, sid };
}

describe("identity verification", () => {
  it("delivers a challenge, confirms it, and shows level 1 everywhere", async () => {
    const h = harness();
    const { key, sid } = await ownedAgent();
    const res = await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/callback" });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ message: expect.any(String), expires_in: 600 });
    expect(h.lookups).toEqual(["agent.example.com"]);
    expect(h.callbacks).toHaveLength(1);
    const [delivery] = h.callbacks;
    expect(delivery.url).toBe("https://agent.example.com/callback");
    expect(delivery.init.method).toBe("POST");
    expect(delivery.init.redirect).toBe("manual");
    expect(delivery.body).toEqual({ challenge_token: expect.stringMatching(/^[0-9a-f]{64}$/), sid });

    const stored = await env.DB.prepare("SELECT token_hash FROM challenges WHERE sid = ?").bind(sid).all<{ token_hash: string }>();
    expect(JSON.stringify(stored.results)).not.toContain(delivery.body.challenge_token);

    h.clock.now += 9 * 60_000;
    const confirmed = await h.request(`/agents/${sid}/verify/confirm`, key, { challenge_token: delivery.body.challenge_token });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toEqual({ message: expect.any(String), identity_level: 1, identity_label: "Callback-Verified" });

    const score = (await (await call(`/score/${sid}`, { headers: bearer(key) })).json()) as { identity_level: number; reasons: string[] };
    expect(score.identity_level).toBe(1);
    expect(score.reasons).not.toContain("IDENTITY_UNVERIFIED");
    const pub = (await (await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as { identity_level: number };
    expect(pub.identity_level).toBe(1);
    const report = (await (await call(`/report/${sid}`, { headers: bearer(key) })).json()) as { identity_level: number };
    expect(report.identity_level).toBe(1);

    const reused = await h.request(`/agents/${sid}/verify/confirm`, key, { challenge_token: delivery.body.challenge_token });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toEqual({ error: "Invalid or expired challenge token", request_id: expect.any(String) });
  });

  it("expires a token at 10 minutes", async () => {
    const h = harness();
    const { key, sid } = await ownedAgent();
    await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/cb" });
    const first = h.callbacks[0].body.challenge_token;
    await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/cb" });
    const second = h.callbacks[1].body.challenge_token;

    h.clock.now = T0 + 600_000;
    const expired = await h.request(`/agents/${sid}/verify/confirm`, key, { challenge_token: first });
    expect(expired.status).toBe(400);
    expect(await expired.json()).toEqual({ error: "Invalid or expired challenge token", request_id: expect.any(String) });

    h.clock.now = T0 + 599_999;
    const justInTime = await h.request(`/agents/${sid}/verify/confirm`, key, { challenge_token: second });
    expect(justInTime.status).toBe(200);
  });

  it("refuses wrong and missing tokens", async () => {
    const h = harness();
    const { key, sid } = await ownedAgent();
    await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/cb" });
    const missing = await h.request(`/agents/${sid}/verify/confirm`, key, {});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "challenge_token is required", request_id: expect.any(String) });
    for (const wrong of ["0".repeat(64), "short", h.callbacks[0].body.challenge_token.toUpperCase()]) {
      const res = await h.request(`/agents/${sid}/verify/confirm`, key, { challenge_token: wrong });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: "Invalid or expired challenge token", request_id: expect.any(String) });
    }
    // A token of one agent does not verify another agent of the same owner.
    const other = await registerAgent(key);
    const cross = await h.request(`/agents/${other.sid}/verify/confirm`, key, { challenge_token: h.callbacks[0].body.challenge_token });
    expect(cross.status).toBe(400);
  });

  it("refuses anyone but the owner without counting an attempt or calling out", async () => {
    const h = harness();
    const { key, sid } = await ownedAgent();
    const stranger = await createOperator();
    for (let i = 0; i < 4; i++) {
      const res = await h.request(`/agents/${sid}/verify`, stranger.key, { callbackUrl: "https://agent.example.com/cb" });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: "Forbidden: you do not own this agent", request_id: expect.any(String) });
    }
    expect(h.callbacks).toHaveLength(0);
    expect(h.lookups).toHaveLength(0);
    expect((await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/cb" })).status).toBe(202);
    const missing = await h.request("/agents/SID-0x0123456789abcdef/verify", key, { callbackUrl: "https://agent.example.com/cb" });
    expect(missing.status).toBe(404);
  });

  it("counts every owner request: the 4th in an hour gets 429 before any check or outbound call", async () => {
    const h = harness();
    const { key, sid } = await ownedAgent();
    expect((await h.request(`/agents/${sid}/verify`, key, {})).status).toBe(400);
    const http = await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "http://agent.example.com/cb" });
    expect(await http.json()).toEqual({ error: "callbackUrl must use HTTPS", request_id: expect.any(String) });
    expect((await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/cb" })).status).toBe(202);
    const lookupsBefore = h.lookups.length;
    const fourth = await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/cb" });
    expect(fourth.status).toBe(429);
    expect(await fourth.json()).toEqual({ error: "Too many verification attempts", request_id: expect.any(String) });
    expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(h.callbacks).toHaveLength(1);
    expect(h.lookups).toHaveLength(lookupsBefore);
    // Malformed JSON is an attempt too, and is refused once the limit is reached.
    expect((await h.request(`/agents/${sid}/verify`, key, "{oops")).status).toBe(429);
    // The next hour opens a new window.
    h.clock.now = T0 + 3_600_000;
    expect((await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/cb" })).status).toBe(202);
  });

  it("answers 400 for private targets and makes no outbound request", async () => {
    const h = harness({ answers: ["93.184.216.34", "10.0.0.8"] });
    const { key, sid } = await ownedAgent();
    const mixed = await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://rebind.example.com/cb" });
    expect(mixed.status).toBe(400);
    expect(await mixed.json()).toEqual({ error: "callbackUrl must not resolve to a private address", request_id: expect.any(String) });
    const literal = await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://169.254.169.254/latest" });
    expect(await literal.json()).toEqual({ error: "callbackUrl must not resolve to a private address", request_id: expect.any(String) });
    expect(h.callbacks).toHaveLength(0);
  });

  it("answers 502 when the callback fails, and the undelivered token is void", async () => {
    const h = harness({ status: 302 });
    const { key, sid } = await ownedAgent();
    const res = await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/cb" });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: "Callback delivery failed", request_id: expect.any(String) });
    const token = h.callbacks[0].body.challenge_token;
    expect((await h.request(`/agents/${sid}/verify/confirm`, key, { challenge_token: token })).status).toBe(400);
    const formB = await h.request(`/agents/${sid}/verify`, key, { callbackUrl: "https://agent.example.com/cb" }, { "api-version": "B" });
    expect(formB.status).toBe(502);
    expect(await formB.json()).toEqual({ error: { code: "callback_failed", message: "Callback delivery failed" }, request_id: expect.any(String) });
  });
});
