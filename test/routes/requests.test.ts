// Request plumbing: request ids, odd requests that must never give a 5xx, public reads made for web
// pages, 405s, health, pagination.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, bearer, call, createOperator, freshIp, registerAgent, settled, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:00:30Z");

/** What a client sending a GET with a body (curl -X GET -d ...) hands the Worker: workerd allows it. */
class GetWithBody extends Request {
  constructor(url: string, init: RequestInit & { as: "GET" | "HEAD" }) {
    super(url, { ...init, method: "POST" });
    Object.defineProperty(this, "method", { value: init.as });
  }
}

describe("request ids", () => {
  it("answers X-Request-Id on every response and request_id in every error body", async () => {
    const { key } = await createOperator();
    const ok = await call("/me", { headers: bearer(key) });
    expect(ok.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    for (const res of [await call("/nope"), await call("/me"), await call("/apply", { method: "PUT" })]) {
      const id = res.headers.get("x-request-id");
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(((await res.json()) as { request_id: string }).request_id).toBe(id);
    }
    const b = await call("/me", { headers: { "api-version": "B" } });
    expect(((await b.json()) as { request_id: string }).request_id).toBe(b.headers.get("x-request-id"));
  });

  it("keeps a sane client id and replaces anything else", async () => {
    expect((await call("/health", { headers: { "x-request-id": "client-trace_42=" } })).headers.get("x-request-id")).toBe("client-trace_42=");
    for (const insane of ["has space", "a".repeat(300), "<script>"]) {
      const res = await call("/health", { headers: { "x-request-id": insane } });
      expect(res.headers.get("x-request-id")).not.toBe(insane);
    }
  });

  it("carries the id on cached badges too", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": freshIp() } });
    const cached = await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(cached.status).toBe(200);
    expect(cached.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("odd requests never give a 5xx", () => {
  it("serves a GET or HEAD that carries a body as if it had none, anonymous or keyed", async () => {
    const { key } = await createOperator();
    const h = testApp({ now: T0 });
    for (const as of ["GET", "HEAD"] as const) {
      const health = await h.app.fetch(new GetWithBody("http://trust.test/health", { as, body: "{}" }), h.env);
      expect(health.status).toBe(200);
      const me = await h.app.fetch(new GetWithBody("http://trust.test/me", { as, body: '{"x":1}', headers: bearer(key) }), h.env);
      expect(me.status).toBe(200);
      const publicRead = await h.app.fetch(
        new GetWithBody("http://trust.test/score/SID-0x0123456789abcdef/public", { as, body: "junk", headers: { "cf-connecting-ip": freshIp() } }),
        h.env,
      );
      expect(publicRead.status).toBe(404);
    }
  });

  it("reads a streamed body without Content-Length, and answers 413 past 64 KiB in both forms", async () => {
    const streamed = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      let offset = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.length) return controller.close();
          controller.enqueue(bytes.slice(offset, (offset += 8192)));
        },
      });
    };
    const h = testApp({ now: T0 });
    const post = (body: string, headers: Record<string, string> = {}) =>
      h.app.fetch(new Request("http://trust.test/apply", { method: "POST", body: streamed(body), headers: { "cf-connecting-ip": freshIp(), ...headers } }), h.env);
    const email = `streamed-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const fine = await post(JSON.stringify({ name: "Streamed", email, padding: "p".repeat(60 * 1024) }));
    expect(fine.status).toBe(201);
    const big = JSON.stringify({ name: "Big", email: "big-stream@example.com", reason: "r".repeat(65 * 1024) });
    const a = await post(big);
    expect(a.status).toBe(413);
    expect(await a.json()).toEqual({ error: "Request body too large", request_id: expect.any(String) });
    const b = await post(big, { "api-version": "B" });
    expect(b.status).toBe(413);
    expect(await b.json()).toEqual({ error: { code: "payload_too_large", message: "Request body too large" }, request_id: expect.any(String) });
  });

  it("answers 400 for a body stream that breaks off mid-read", async () => {
    let sent = false;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error("connection reset"));
        sent = true;
        controller.enqueue(new TextEncoder().encode('{"name":"Half'));
      },
    });
    const h = testApp({ now: T0 });
    const req = new Request("http://trust.test/apply", { method: "POST", body: broken, headers: { "cf-connecting-ip": freshIp() } });
    const res = await h.app.fetch(req, h.env);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "Request body could not be read", request_id: expect.any(String) });
  });
});

describe("methods", () => {
  it("answers 405 with Allow for an undefined method on a known path, 404 on an unknown path", async () => {
    const put = await call("/apply", { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("POST");
    const del = await call("/score/SID-0x0123456789abcdef", { method: "DELETE" });
    expect(del.status).toBe(405);
    expect(del.headers.get("allow")).toBe("GET, HEAD");
    const keys = await call("/keys", { method: "PATCH" });
    expect(keys.headers.get("allow")).toBe("POST, GET, HEAD");
    const b = await call("/apply", { method: "PUT", headers: { "api-version": "B" } });
    expect(((await b.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
    expect((await call("/nowhere", { method: "PUT" })).status).toBe(404);
  });
});

describe("GET /health", () => {
  it("checks the database and names the running version", async () => {
    const res = await call("/health");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; version: string; checks: Record<string, string> };
    expect(body.status).toBe("ok");
    expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(body.checks).toEqual({ db: "ok", shard_0: "ok", shard_1: "ok" });
  });

  it("checks the databases at most once every few seconds, however often it is asked", async () => {
    let queries = 0;
    const counted = { prepare: (sql: string) => (queries++, env.DB.prepare(sql)), withSession: () => env.DB.withSession() };
    const h = testApp({ env: { DB: counted } });
    for (let i = 0; i < 5; i++) expect((await h.request("/health")).status).toBe(200);
    expect(queries).toBe(1);
  });

  it("answers 503 when a database fails, naming it", async () => {
    const down = { prepare: () => ({ first: () => Promise.reject(new Error("D1 down")) }), withSession: () => ({ getBookmark: () => null }) };
    const control = await testApp({ env: { DB: down } }).request("/health");
    expect(control.status).toBe(503);
    expect(((await control.json()) as { checks: Record<string, string> }).checks).toEqual({ db: "failing", shard_0: "ok", shard_1: "ok" });
    const shard = await testApp({ env: { SHARD_1: down } }).request("/health");
    expect(shard.status).toBe(503);
    expect(((await shard.json()) as { checks: Record<string, string> }).checks).toEqual({ db: "ok", shard_0: "ok", shard_1: "failing" });
  });
});

describe("public reads for web pages", () => {
  it("the public score: CORS for any origin, ETag and 304, a cache policy; a preflight is free", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const ip = freshIp();
    const preflights = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(`/score/${sid}/public`, {
          method: "OPTIONS",
          headers: { "cf-connecting-ip": ip, origin: "https://page.example", "access-control-request-method": "GET", "access-control-request-headers": "api-version" },
        }),
      ),
    );
    for (const p of preflights) {
      expect(p.status).toBe(204);
      expect(p.headers.get("access-control-allow-origin")).toBe("*");
      expect(p.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("api-version");
    }
    const first = await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip, origin: "https://page.example" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    expect(first.headers.get("cache-control")).toMatch(/max-age=\d+/);
    expect(first.headers.get("vary")).toContain("API-Version");
    const tag = first.headers.get("etag");
    expect(tag).toMatch(/^"[0-9a-f]+"$/);
    const again = await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip, "if-none-match": tag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(tag);
  });

  it("the public score: a revalidation answered 304 does not use up the 5 an hour; one that gets a body does", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const ip = freshIp();
    const read = (headers: Record<string, string> = {}) => call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip, ...headers } });
    const first = await read();
    const tag = first.headers.get("etag")!;
    for (let i = 0; i < 10; i++) expect((await read({ "if-none-match": tag })).status).toBe(304);
    for (let i = 0; i < 4; i++) expect((await read()).status).toBe(200);
    const sixth = await read();
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get("retry-after")).toMatch(/^\d+$/);
    // Still free once the hour's bodies are used up, while the page has not changed.
    expect((await read({ "if-none-match": tag })).status).toBe(304);
    // A stale or made-up tag gets the body, so it counts like any read.
    const other = freshIp();
    for (let i = 0; i < 5; i++) expect((await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": other, "if-none-match": '"0000"' } })).status).toBe(200);
    const refused = await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": other, "if-none-match": '"0000"' } });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "Too many requests. Please try again later.", request_id: expect.any(String) });
  });

  it("the public score: revalidations are bounded by their own per-IP limit, 60 a minute", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const ip = freshIp();
    const tag = (await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).headers.get("etag")!;
    for (let i = 0; i < 60; i++) expect((await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip, "if-none-match": tag } })).status).toBe(304);
    const over = await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip, "if-none-match": tag, "api-version": "B" } });
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ error: { code: "rate_limited", message: "Too many requests. Please try again later." }, request_id: expect.any(String) });
  });

  it("badges: CORS, ETag and 304", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const first = await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(first.headers.get("access-control-allow-origin")).toBe("*");
    const tag = first.headers.get("etag");
    expect(tag).toBeTruthy();
    const again = await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": freshIp(), "if-none-match": tag! } });
    expect(again.status).toBe(304);
    // The cached copy keeps its validator: a hit is not hashed again, and its tag is the body's SHA-1.
    const body = await (await call(`/badge/${sid}.svg`, { headers: { "cf-connecting-ip": freshIp() } })).text();
    const sha1 = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(body))), (b) => b.toString(16).padStart(2, "0")).join("");
    expect(tag).toBe(`"${sha1}"`);
    await settled();
    const stored = await caches.default.match(`https://badge.cache/${sid}.svg`);
    expect(stored?.headers.get("etag")).toBe(tag);
  });

  it("keyed routes: no CORS headers, Cache-Control no-store", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const res = await call(`/score/${sid}`, { headers: bearer(key, { origin: "https://page.example" }) });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
    const preflight = await call(`/score/${sid}`, { method: "OPTIONS", headers: { origin: "https://page.example", "access-control-request-method": "GET" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("pagination", () => {
  it("pages GET /keys with limit and an opaque cursor, next_cursor null on the last page", async () => {
    const { key } = await createOperator();
    for (let i = 0; i < 2; i++) await call("/keys", { headers: bearer(key), body: { scopes: ["agents:read"] } });
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await call(`/keys?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { headers: bearer(key) });
      const body = (await res.json()) as { keys: { id: number }[]; next_cursor: string | null };
      seen.push(...body.keys.map((k) => k.id));
      cursor = body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  });

  it("pages the agents of GET /me and the admin's applications", async () => {
    const { key } = await createOperator();
    const sids = [];
    for (let i = 0; i < 3; i++) sids.push((await registerAgent(key)).sid);
    const first = (await (await call("/me?limit=2", { headers: bearer(key) })).json()) as { agents: { sid: string }[]; next_cursor: string };
    expect(first.agents).toHaveLength(2);
    const second = (await (await call(`/me?limit=2&cursor=${first.next_cursor}`, { headers: bearer(key) })).json()) as {
      agents: { sid: string }[];
      next_cursor: string | null;
    };
    expect(second.next_cursor).toBeNull();
    expect([...first.agents, ...second.agents].map((a) => a.sid).sort()).toEqual([...sids].sort());

    const apps = (await (await call("/admin/applications?limit=1", { headers: ADMIN })).json()) as { applications: unknown[]; next_cursor: string };
    expect(apps.applications).toHaveLength(1);
    expect(apps.next_cursor).toEqual(expect.any(String));
  });

  it("refuses a bad limit or cursor with 400", async () => {
    const { key } = await createOperator();
    for (const query of ["limit=0", "limit=201", "limit=abc", "limit=1.5", "cursor=%2F%2F", "cursor=bm9wZQ", "cursor=" + "a".repeat(600)]) {
      const res = await call(`/keys?${query}`, { headers: bearer(key) });
      expect(res.status, query).toBe(400);
    }
    expect((await call("/keys?limit=200", { headers: bearer(key) })).status).toBe(200);
  });
});
