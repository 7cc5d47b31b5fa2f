// The agent's public page: GET /agents/{sid} for a browser. HTML only for a client that asks for it
// (every other client keeps the path's JSON 404), what it shows with and without the owner's opt-in,
// the owner's route that sets it, caching, limits, and what an attacker can put in it.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { describe, expect, it } from "vitest";
import { newSid } from "../../src/domain/identifiers";
import { LIMITS } from "../../src/domain/limits";
import { ADMIN, agentConfig, bearer, call, createOperator, emptyAgentObject, freshIp, registerAgent, shardOf, testApp, T_CALL } from "../helpers";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const ORIGIN = "http://trust.test";

/** One app for the file, whose answers wait for their cache writes and purges. */
const h = testApp({ now: T_CALL, awaitBackground: true });

const page = (sid: string, headers: Record<string, string> = {}) => h.request(`/agents/${sid}`, { headers: { accept: BROWSER_ACCEPT, "cf-connecting-ip": freshIp(), ...headers } });
const html = async (sid: string, headers: Record<string, string> = {}) => {
  const res = await page(sid, headers);
  expect(res.status).toBe(200);
  return res.text();
};
const setProfile = (key: string, sid: string, body: unknown, headers: Record<string, string> = {}) =>
  h.request(`/agents/${sid}/public-profile`, { method: "PUT", headers: bearer(key, headers), body });

/** Requests counted so far in an address's page bucket (the limiter's one-minute window). */
const counted = (ip: string) =>
  runInDurableObject(env.RATE_LIMITER.getByName(`ip:page:${ip}`), async (_object, state) => state.storage.kv.get<{ count: number }>("w60")?.count ?? 0);

/** Three verified operators report on the agent: a history, reasons and dimensions away from 500. */
async function reported(sid: string) {
  const reporters = [await createOperator({ verified: true, name: "Reporter Hidden Corp" }), await createOperator({ verified: true }), await createOperator({ verified: true })];
  const ids: number[] = [];
  for (const [i, r] of reporters.entries()) {
    const res = await h.request("/transactions", {
      headers: bearer(r.key),
      body: { sid, transactionType: "task", outcome: i === 2 ? "failure" : "success", reliabilitySignal: 800, securitySignal: i === 2 ? 100 : 700 },
    });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { transaction_id: number }).transaction_id);
  }
  return { reporters, ids };
}

describe("GET /agents/{sid}: content negotiation", () => {
  it("answers a browser with the page, and every other client with the public score as JSON, never a 404 for an agent that exists", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const publicScore = async (headers: Record<string, string> = {}) => (await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp(), ...headers } })).json();

    for (const accept of [BROWSER_ACCEPT, "text/html", "application/xhtml+xml", "application/json;q=0.5, text/html"]) {
      const res = await page(sid, { accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("vary")).toBe("Accept");
      expect(await res.text()).toMatch(/^<!doctype html><html lang="en">/);
    }

    for (const accept of [undefined, "*/*", "application/json", "text/html;q=0.5, application/json", "text/html, application/json", "text/html;q=0", "text/*"]) {
      const res = await h.request(`/agents/${sid}`, { headers: { "cf-connecting-ip": freshIp(), ...(accept === undefined ? {} : { accept }) } });
      expect(res.status, String(accept)).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("cache-control")).toBe("public, max-age=60");
      expect(res.headers.get("vary")).toBe("Accept, API-Version");
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(await res.json()).toEqual(await publicScore());
    }
    // In the client's form, as the public score answers it; the page ignores API-Version.
    const formB = await h.request(`/agents/${sid}`, { headers: { "api-version": "B", "cf-connecting-ip": freshIp() } });
    expect(await formB.json()).toEqual(await publicScore({ "api-version": "B" }));
    expect((await h.request(`/agents/${sid}`, { headers: { "api-version": "X" } })).status).toBe(400);
    expect((await page(sid, { "api-version": "X" })).status).toBe(200);
    expect((await page(sid, { "api-version": "B" })).headers.get("content-type")).toBe("text/html; charset=utf-8");

    // Errors as the public score gives them, varying on Accept too.
    const unknown = await h.request(`/agents/${newSid()}`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("vary")).toBe("Accept, API-Version");
    expect(await unknown.json()).toEqual({ error: "Agent not found", request_id: expect.any(String) });
    const malformed = await h.request("/agents/SID-0xNOTHEX", { headers: { "cf-connecting-ip": freshIp() } });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: "Invalid SID format. Expected: SID-0x[16 hex chars]", request_id: expect.any(String) });
  });

  it("counts every JSON answer against the public score's limit, and caches each representation under its own key", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key, { name: "Negotiated Bot" });
    const ip = freshIp();
    const json = (headers: Record<string, string> = {}) => h.request(`/agents/${sid}`, { headers: { accept: "application/json", "cf-connecting-ip": ip, ...headers } });

    // The page first: its cached copy is never the JSON answer, nor one form's the other's.
    expect((await page(sid)).headers.get("content-type")).toBe("text/html; charset=utf-8");
    const a = await json();
    expect(a.headers.get("content-type")).toBe("application/json");
    expect(await a.json()).toMatchObject({ sid, agent_name: "Negotiated Bot" });
    const b = await json({ "api-version": "B" });
    expect(await b.json()).toMatchObject({ sid, score: expect.any(Number) });
    expect((await page(sid)).headers.get("content-type")).toBe("text/html; charset=utf-8");

    // Renamed behind the cache's back: the JSON answer stays a minute, like the page.
    await (await shardOf(sid)).prepare("UPDATE agents SET name = 'Renamed Bot' WHERE sid = ?").bind(sid).run();
    expect(await (await json()).json()).toMatchObject({ agent_name: "Negotiated Bot" });
    expect(await (await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).json()).toMatchObject({ agent_name: "Renamed Bot" });

    // 5 per hour per address, shared with GET /score/{sid}/public: three spent here, two left.
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(200);
    expect((await json()).status).toBe(200);
    const refused = await json();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("vary")).toBe("Accept, API-Version");
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(429);
    // Pages count in their own bucket.
    expect((await page(sid, { "cf-connecting-ip": ip })).status).toBe(200);
  });

  it("answers HEAD like GET without a body, OPTIONS as a preflight, and other methods with 405", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const head = await h.request(`/agents/${sid}`, { method: "HEAD", headers: { accept: "text/html", "cf-connecting-ip": freshIp() } });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await head.text()).toBe("");
    const preflight = await h.request(`/agents/${sid}`, { method: "OPTIONS", headers: { origin: "https://shop.example", "access-control-request-method": "GET" } });
    expect(preflight.status).toBe(204);
    const post = await h.request(`/agents/${sid}`, { method: "POST", headers: { accept: "text/html" }, body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toContain("GET");
  });
});

describe("the page without the owner's opt-in", () => {
  it("shows what the public score shows, the badge, and how to verify it: an attestation that jose verifies against the JWKS", async () => {
    const owner = await createOperator({ name: "Acme Agents" });
    const { sid } = await registerAgent(owner.key, { name: "Invoice Bot" });
    await reported(sid);
    const text = await html(sid);
    const pub = (await (await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as Record<string, unknown>;

    expect(text).toContain("<title>Invoice Bot: trust profile</title>");
    expect(text.match(/<h1[ >]/g)).toHaveLength(1);
    expect(text).toContain("<h1>Invoice Bot</h1>");
    expect(text).toContain(`<span class="composite">${pub.composite_score}<small>`);
    expect(text).toContain(`chip-${pub.recommendation}`);
    expect(text).toContain("<dd>Acme Agents</dd>");
    expect(text).toContain("Level 0, Unverified");
    expect(text).toMatch(/<img src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="trust: \d+ · (review|clear|caution)"/);

    // Verify this yourself: the attestation, the JWKS URL, the command.
    const jws = /<pre class="copy"><code>([\w-]+\.[\w-]+\.[\w-]+)<\/code><\/pre>/.exec(text)?.[1];
    expect(jws).toBeDefined();
    const jwks = (await (await h.request("/.well-known/jwks.json")).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(jws!, createLocalJWKSet(jwks), { issuer: ORIGIN, subject: sid, typ: "trust-attestation+jwt", currentDate: new Date(T_CALL) });
    expect(payload).toMatchObject({ composite_score: pub.composite_score, recommendation: pub.recommendation, operator_name: "Acme Agents", status: "active" });
    expect(text).toContain(`<a href="${ORIGIN}/.well-known/jwks.json">`);
    expect(text).toContain(`node examples/verify-attestation.mjs --url ${ORIGIN} --sid ${sid}`);
    expect(text).toContain(`&lt;a href=&quot;${ORIGIN}/agents/${sid}&quot;&gt;&lt;img src=&quot;${ORIGIN}/badge/${sid}.svg&quot;`);

    // Nothing the public score does not show.
    for (const hidden of ["Why this score", "Five dimensions", "Score history", "Open disputes", "Reliability", "<svg class=\"plot\"", "Fewer than 3 operators"]) {
      expect(text, hidden).not.toContain(hidden);
    }
  });

  it("for a suspended agent: 200 with a notice, its last figures, and no attestation", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key, { name: "Suspended Bot" });
    expect((await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
    const res = await page(sid);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('<div class="notice" role="note"><p><strong>Suspended.</strong>');
    expect(text).toContain("None: the service issues no attestation for a suspended agent.");
    expect(text).not.toMatch(/<code>eyJ/);
    expect(text).toContain("<h1>Suspended Bot</h1>");
  });

  it("without signing keys configured, still shows the page and says there is no attestation", async () => {
    const noKeys = testApp({ now: T_CALL, env: { ATTESTATION_KEYS: "" } });
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const res = await noKeys.request(`/agents/${sid}`, { headers: { accept: "text/html", "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("None: this deployment of the service has no signing keys configured.");
  });
});

describe("an unknown agent, errors, limits", () => {
  it("gives a 404 page (not JSON) for an unknown or malformed SID, uncached, the malformed one without the limiter", async () => {
    for (const sid of [newSid(), "SID-0xNOTHEX", "nope"]) {
      const ip = freshIp();
      const res = await page(sid, { "cf-connecting-ip": ip });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
      const text = await res.text();
      expect(text).toContain("<title>Agent not found</title>");
      expect(text).toContain("<h1>Agent not found</h1>");
      expect(await counted(ip)).toBe(sid.startsWith("SID-0xN") || sid === "nope" ? 0 : 1);
    }
  });

  it("limits uncached pages to 120 a minute per address, in a bucket of its own; cached pages are not counted", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const ip = freshIp();
    const first = await page(sid, { "cf-connecting-ip": ip });
    expect(first.status).toBe(200);
    // The rest of the minute's allowance, spent at once.
    await env.RATE_LIMITER.getByName(`ip:page:${ip}`).hit([LIMITS.publicPage], T_CALL, undefined, LIMITS.publicPage.limit - 1);
    expect(await counted(ip)).toBe(120);

    const cachedPage = await page(sid, { "cf-connecting-ip": ip });
    expect(cachedPage.status).toBe(200);
    const other = await registerAgent(key);
    const refused = await page(other.sid, { "cf-connecting-ip": ip });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(refused.headers.get("cache-control")).toBe("no-store");
    const text = await refused.text();
    expect(text).toContain("<h1>Too many requests. Please try again later.</h1>");
    expect(text).toContain("Try again in 30 seconds.");
    expect(await counted(ip)).toBe(120);
    // Badges and attestations count in their own bucket.
    expect((await h.request(`/badge/${other.sid}.svg`, { headers: { "cf-connecting-ip": ip } })).status).toBe(200);
  });
});

describe("caching", () => {
  it("keeps the page a minute at the edge with an ETag (304 on If-None-Match), and a hit reads nothing", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key, { name: "Cached Bot" });
    const ip = freshIp();
    const first = await page(sid, { "cf-connecting-ip": ip });
    expect(first.headers.get("cache-control")).toBe("public, max-age=60");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    const body = await first.text();

    // Renamed behind the cache's back: the cached page stays until it expires.
    await (await shardOf(sid)).prepare("UPDATE agents SET name = 'Renamed Bot' WHERE sid = ?").bind(sid).run();
    const again = await page(sid, { "cf-connecting-ip": ip });
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe(body);
    expect(await counted(ip)).toBe(1);

    const revalidated = await page(sid, { "cf-connecting-ip": ip, "if-none-match": etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("etag")).toBe(etag);
    expect(revalidated.headers.get("vary")).toBe("Accept");
    expect(await revalidated.text()).toBe("");
  });
});

describe("PUT /agents/{sid}/public-profile and the opted-in page", () => {
  it("lets the owner show reasons in plain words, the five dimensions, the history chart and open disputes, never a reporter; and take them back", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key, { name: "Open Bot" });
    const { ids } = await reported(sid);
    const before = await html(sid);
    expect(before).not.toContain("Five dimensions");

    const put = await setProfile(owner.key, sid, { public_profile: true });
    expect(put.status).toBe(200);
    expect(put.headers.get("cache-control")).toBe("no-store");
    expect(await put.json()).toEqual({ sid, public_profile: true, page_url: `${ORIGIN}/agents/${sid}` });

    const disputed = await h.request(`/transactions/${ids[2]}/dispute`, {
      headers: bearer(owner.key),
      body: { reason: "The task <b>finished</b> on time", statement: "Our logs show it done in 41 s & on time." },
    });
    expect(disputed.status).toBe(201);

    // The opt-in dropped the cached page: the profile shows at once.
    const text = await html(sid);
    const full = (await (await h.request(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as Record<string, unknown> & { reasons: string[] };
    expect(text).toContain('<h2 id="reasons">Why this score</h2>');
    expect(full.reasons.length).toBeGreaterThan(0);
    expect((text.match(/<li>[^<]+<\/li>/g) ?? []).length).toBeGreaterThanOrEqual(full.reasons.length);
    expect(text).not.toMatch(/LOW_|FEW_INDEPENDENT|INSUFFICIENT_EVIDENCE|IDENTITY_UNVERIFIED/);
    for (const dimension of ["reliability", "quality", "financial", "security", "stability"]) {
      const label = dimension[0].toUpperCase() + dimension.slice(1);
      expect(text).toMatch(new RegExp(`<th scope="row">${label}<br/>.*?</th><td class="num">${full[dimension]}</td>`));
    }
    // The chart, with its text alternative: a title, a description and the data as a table.
    expect(text).toContain('<svg class="plot" viewBox="0 0 1000 1000" preserveAspectRatio="none" role="img" aria-labelledby="history-title history-desc">');
    expect(text.match(/<path class="point"/g)).toHaveLength(5);
    expect(text).toContain('<title id="history-title">Composite score over time</title>');
    expect(text).toMatch(/<desc id="history-desc">The composite score from [^<]+, 3 recorded changes: it started at 500 and is now \d+;/);
    expect(text.match(/<tr><td><time datetime=/g)).toHaveLength(5); // registered, three reports, now
    expect(text).toContain("<td>A report: failure</td>");
    // The dispute: the owner's side, escaped; never who reported.
    expect(text).toContain(`Report ${ids[2]}, disputed by the owner since`);
    expect(text).toContain("The task &lt;b&gt;finished&lt;/b&gt; on time");
    expect(text).toContain("Our logs show it done in 41 s &amp; on time.");
    expect(text).not.toContain("Reporter Hidden Corp");
    expect(text).not.toContain("reporter_operator");

    const off = await setProfile(owner.key, sid, { public_profile: false });
    expect(await off.json()).toMatchObject({ public_profile: false });
    const after = await html(sid);
    expect(after).not.toContain("Five dimensions");
    expect(after).not.toContain("41 s");
  });

  it("survives the agent's object being rebuilt from its shard", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    await setProfile(owner.key, sid, { public_profile: true });
    await emptyAgentObject(sid);
    // Any change rewrites the agent's row from the rebuilt record: the flag must come back with it.
    expect((await h.request(`/agents/${sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, modelName: "claude-opus" } })).status).toBe(200);
    const row = await (await shardOf(sid)).prepare("SELECT public_profile FROM agents WHERE sid = ?").bind(sid).first<{ public_profile: number }>();
    expect(row?.public_profile).toBe(1);
    expect(await html(sid)).toContain("Five dimensions");
  });

  it("is the owner's alone: key, scope, ownership, claim, and input are checked, in both forms", async () => {
    const owner = await createOperator();
    const stranger = await createOperator();
    const { sid } = await registerAgent(owner.key);

    expect((await h.request(`/agents/${sid}/public-profile`, { method: "PUT", body: { public_profile: true } })).status).toBe(401);
    const notOwner = await setProfile(stranger.key, sid, { public_profile: true });
    expect(notOwner.status).toBe(403);
    expect(await notOwner.json()).toEqual({ error: "Forbidden: you do not own this agent", request_id: expect.any(String) });
    const readOnly = ((await (await call("/keys", { headers: bearer(owner.key), body: { scopes: ["agents:read"] } })).json()) as { key: { api_key: string } }).key.api_key;
    const scope = await setProfile(readOnly, sid, { public_profile: true }, { "api-version": "B" });
    expect(scope.status).toBe(403);
    expect(((await scope.json()) as { error: { code: string } }).error.code).toBe("insufficient_scope");

    const missing = await setProfile(owner.key, sid, {});
    expect(await missing.json()).toEqual({ error: "Missing required fields: public_profile", request_id: expect.any(String) });
    for (const bad of ["yes", 1, null]) {
      const res = await setProfile(owner.key, sid, { public_profile: bad });
      expect(res.status, String(bad)).toBe(400);
    }
    expect(((await (await setProfile(owner.key, sid, { public_profile: "true" })).json()) as { error: string }).error).toBe("public_profile must be true or false");
    expect((await setProfile(owner.key, "SID-0xNOTHEX", { public_profile: true })).status).toBe(400);
    expect((await setProfile(owner.key, newSid(), { public_profile: true })).status).toBe(404);

    // A self-registered agent nobody claimed has no owner to opt in.
    const self = (await (await call("/register/self", { headers: { "cf-connecting-ip": freshIp() }, body: { name: "Loose", ...agentConfig } })).json()) as { sid: string };
    expect((await setProfile(owner.key, self.sid, { public_profile: true })).status).toBe(403);

    // The configuration route takes no such field: a body that names it opts nothing in.
    await h.request(`/agents/${sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, public_profile: true } });
    expect(await html(sid)).not.toContain("Five dimensions");
  });
});

describe("what an attacker can put in the page", () => {
  it("renders an agent named <script>alert(1)</script> as text, in the title and the heading", async () => {
    const owner = await createOperator({ name: '"><img src=x onerror=alert(2)>' });
    const { sid } = await registerAgent(owner.key, { name: "<script>alert(1)</script>" });
    await setProfile(owner.key, sid, { public_profile: true });
    const text = await html(sid);
    expect(text).toContain("<title>&lt;script&gt;alert(1)&lt;/script&gt;: trust profile</title>");
    expect(text).toContain("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>");
    expect(text).toContain("<dd>&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</dd>");
    expect(text).not.toContain("<script");
    expect(text).not.toContain("<img src=x");
  });

  it("loads nothing and links nowhere but the service: no script, no style attribute, every URL on its own origin, a CSP that allows only its own style sheet", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    await reported(sid);
    await setProfile(owner.key, sid, { public_profile: true });
    const res = await page(sid);
    const text = await res.text();
    const urls = text.match(/(?:https?:)?\/\/[^\s"'<>&)]+/g) ?? [];
    expect(urls.length).toBeGreaterThan(3);
    expect(urls.filter((u) => u !== ORIGIN && !u.startsWith(`${ORIGIN}/`))).toEqual([]);
    expect(text).not.toMatch(/<script|<iframe|<object|<embed|\sstyle=|\son[a-z]+=/i);
    expect(text.match(/<link [^>]*>/g)).toEqual(['<link rel="icon" href="data:,"/>']);
    for (const src of text.match(/\ssrc="[^"]*"/g) ?? []) expect(src).toMatch(/^ src="data:image\/svg\+xml;base64,/);

    const style = /<style>([^<]*)<\/style>/.exec(text)![1];
    const digest = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style)))));
    expect(res.headers.get("content-security-policy")).toBe(
      `default-src 'none'; style-src 'sha256-${digest}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  });
});
