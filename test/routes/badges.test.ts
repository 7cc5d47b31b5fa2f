import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { forgetSnapshot } from "../../src/db/snapshot";
import { newSid } from "../../src/domain/identifiers";
import { createApp } from "../../src/app";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../src/http/context";
import { badgeFromCache, purgeBadge } from "../../src/http/badge-cache";
import { bearer, call, createOperator, freshIp, publishCredibility, registerAgent, settled, testApp, shardOf, T_CALL } from "../helpers";

const CACHE_CONTROL = "public, max-age=300, s-maxage=300";

/** The cache write runs in waitUntil: let it land, then the badge must be in the cache. */
async function cached(sid: string, format: "svg" | "json") {
  await settled();
  expect(await caches.default.match(`https://badge.cache/${sid}.${format}`), `${sid}.${format} cached`).toBeDefined();
}

/** Requests counted so far in the per-IP badge bucket (the limiter's one-minute window). */
const counted = (ip: string) =>
  runInDurableObject(env.RATE_LIMITER.getByName(`ip:badge:${ip}`), async (_object, state) => {
    return state.storage.kv.get<{ count: number }>("w60")?.count ?? 0;
  });

describe("GET /badge/{sid}.svg", () => {
  afterEach(() => forgetSnapshot());

  it("answers 200 with an SVG in the flat style, the cache headers, the score and recommendation", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const res = await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("cache-control")).toBe(CACHE_CONTROL);
    const svg = await res.text();
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain("<title>trust: 500 · review</title>");
    expect(svg).toContain('fill="#d8b800"'); // yellow: review
  });

  it("gives a grey unknown badge with 404 for an unknown or malformed SID", async () => {
    for (const sid of [newSid(), "SID-0xNOTHEX", "nope"]) {
      const res = await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": freshIp() } });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("image/svg+xml");
      const svg = await res.text();
      expect(svg).toContain("<title>trust: unknown</title>");
      expect(svg).toContain('fill="#939393"'); // lightgrey
    }
  });

  it("serves the JSON twin in the shields.io endpoint format", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const res = await call(`/badge/${sid}.json`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toBe(CACHE_CONTROL);
    expect(await res.json()).toEqual({ schemaVersion: 1, label: "trust", message: "500 · review", color: "yellow" });

    const unknown = await call(`/badge/${newSid()}.json`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ schemaVersion: 1, label: "trust", message: "unknown", color: "lightgrey" });
  });

  it("serves a repeat from the edge cache, without D1 or the limiter, until purgeBadge", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const ip = freshIp();
    const first = await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": ip } });
    expect(await first.text()).toContain("500 · review");
    await call(`/badge/${sid}.json`, { headers: { "cf-connecting-ip": ip } });
    await cached(sid, "svg");
    await cached(sid, "json");
    expect(await counted(ip)).toBe(2);

    // Change the score behind the cache's back: the row of a twin that two credible critics put in
    // caution (their failures on it), written over this agent's row on its shard.
    const critics = [await createOperator({ verified: true }), await createOperator({ verified: true })];
    await publishCredibility({ [critics[0].id]: 1, [critics[1].id]: 1 }, T_CALL);
    const twin = await registerAgent(key);
    let twinScore = { recommendation: "review" };
    for (const critic of critics) {
      const res = await call("/transactions", { headers: bearer(critic.key), body: { sid: twin.sid, transactionType: "t", outcome: "failure" } });
      twinScore = ((await res.json()) as { updated_scores: typeof twinScore }).updated_scores;
    }
    expect(twinScore.recommendation).toBe("caution");
    const shard = await shardOf(sid);
    const { evidence } = (await (await shardOf(twin.sid)).prepare("SELECT evidence FROM agents WHERE sid = ?").bind(twin.sid).first<{ evidence: string }>())!;
    await shard.prepare("UPDATE agents SET evidence = ? WHERE sid = ?").bind(evidence, sid).run();

    // The host name the client used does not matter: the cache key is synthetic.
    const again = await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": ip, host: "other.example" } });
    expect(again.status).toBe(200);
    expect(again.headers.get("cache-control")).toBe(CACHE_CONTROL);
    expect(await again.text()).toContain("500 · review");
    const againJson = await call(`/badge/${sid}.json`, { headers: { "cf-connecting-ip": ip } });
    expect(((await againJson.json()) as { message: string }).message).toBe("500 · review");
    expect(await counted(ip)).toBe(2); // hits are not counted

    await purgeBadge(sid);
    const fresh = await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": ip } });
    const svg = await fresh.text();
    expect(svg).toMatch(/<title>trust: \d+ · caution<\/title>/);
    expect(svg).toContain('fill="#dd4343"'); // red: caution
    const freshJson = await call(`/badge/${sid}.json`, { headers: { "cf-connecting-ip": ip } });
    expect(await freshJson.json()).toMatchObject({ message: expect.stringMatching(/^\d+ · caution$/), color: "red" });
    expect(await counted(ip)).toBe(4);
  });

  it("is purged by a report that tells score.changed (25 points from the last one, or a new recommendation), and kept through smaller moves", async () => {
    const { key } = await createOperator();
    const reporters = [await createOperator({ verified: true }), await createOperator({ verified: true }), await createOperator({ verified: true })];
    await publishCredibility(Object.fromEntries(reporters.map((r) => [r.id, 1])), T_CALL);
    const { sid } = await registerAgent(key);
    const ip = freshIp();
    const message = async () => ((await (await call(`/badge/${sid}.json`, { headers: { "cf-connecting-ip": ip } })).json()) as { message: string }).message;
    expect(await message()).toBe("500 · review");
    await cached(sid, "json");
    let shown = 500;
    let shownRecommendation = "review";
    let purges = 0;
    let kept = 0;
    for (let i = 0; i < 18; i++) {
      // A rising quality: each reporter's vote moves 0.35 of the way at each of its reports, by a
      // step large or small.
      const res = await call("/transactions", { headers: bearer(reporters[i % 3].key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 400 + 30 * i } });
      const { composite_score: composite, recommendation } = ((await res.json()) as { updated_scores: { composite_score: number; recommendation: string } }).updated_scores;
      const crossing = Math.abs(composite - shown) >= 25 || recommendation !== shownRecommendation;
      // The purge runs in waitUntil: let it finish before reading the badge again.
      await settled();
      const now = await message();
      if (crossing) {
        expect(now, `report ${i + 1}`).toBe(`${composite} · ${recommendation}`);
        shown = composite;
        shownRecommendation = recommendation;
        purges++;
        await cached(sid, "json");
      } else {
        expect(now, `report ${i + 1}`).toMatch(new RegExp(`^${shown} · `));
        if (composite !== shown) kept++;
      }
    }
    expect(purges).toBeGreaterThan(0);
    expect(kept).toBeGreaterThan(0);
  });

  it("serves a badge another isolate put in the edge cache, as is", async () => {
    const sid = newSid(); // never requested here, so not in this isolate's memo
    const body = '<svg xmlns="http://www.w3.org/2000/svg"><title>trust: 812 · clear</title></svg>';
    await caches.default.put(
      `https://badge.cache/${sid}.svg`,
      new Response(body, { headers: { "Content-Type": "image/svg+xml", "Cache-Control": CACHE_CONTROL } }),
    );
    const ip = freshIp();
    const res = await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": ip } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe(CACHE_CONTROL);
    expect(await res.text()).toBe(body);
    expect(await counted(ip)).toBe(0);
  });

  it("offers a fast path that answers cached badges before any other middleware", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": freshIp() } }); // now cached
    const app = new OpenAPIHono<AppEnv>();
    app.use("/badge/*", badgeFromCache);
    app.all("*", (c) => c.text("downstream", 418));
    const hit = await app.request(`/badge/${sid}.svg`, {}, env);
    expect(hit.status).toBe(200);
    expect(await hit.text()).toContain("500 · review");
    const miss = await app.request(`/badge/${newSid()}.svg`, {}, env);
    expect(miss.status).toBe(418);
    const malformed = await app.request("/badge/nope.svg", {}, env);
    expect(malformed.status).toBe(418);
  });

  it("limits uncached requests to 120 per minute per IP", async () => {
    // A fixed clock: with the real one, the 121 requests could straddle a minute boundary.
    const h = testApp({ now: Date.parse("2026-11-21T10:00:10Z") });
    const get = (ip: string) => h.request(`/badge/${newSid()}.svg`, { headers: { "cf-connecting-ip": ip } });
    const ip = freshIp();
    for (let i = 0; i < 120; i++) expect((await get(ip)).status).toBe(404);
    const refused = await get(ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBe(50);
    expect((await get(freshIp())).status).toBe(404);
  });

  it("routes the batch route and the dispute route beside it apart", async () => {
    const app = createApp();
    const batch = await app.request("/transactions/batch", { method: "POST", body: "{}" }, env);
    const dispute = await app.request("/transactions/4294967298/dispute", { method: "POST", body: "{}" }, env);
    // Both need a key: each reached its own route (a 404 would mean neither matched).
    expect([batch.status, dispute.status]).toEqual([401, 401]);
    expect((await app.request("/transactions/batch", { method: "GET" }, env)).status).toBe(405);
  });

});
