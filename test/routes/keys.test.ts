import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/domain/scopes";
import { ADMIN, agentConfig, bearer, call, createOperator, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:00:30Z");

/** The shared test app at T0, with the operator key as Bearer. */
function clocked() {
  const h = testApp({ now: T0 });
  const request = (path: string, key: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    h.request(path, { ...init, headers: { ...bearer(key), ...init.headers } });
  return { clock: h.clock, request };
}

type Issued = { key: { id: number; api_key: string; prefix: string; scopes: string[]; status: string; expires_at: string | null } };

describe("key rotation", () => {
  it("keeps the old key valid for 24 hours, then 401 in both forms", async () => {
    const h = clocked();
    const { key: oldKey } = await createOperator();
    const res = await h.request("/keys/rotate", oldKey, { method: "POST" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Issued & { previous_key: { status: string; expires_at: string } };
    const newKey = body.key.api_key;
    expect(newKey).toMatch(/^sk_svc_[0-9a-f]{64}$/);
    expect(body.key.scopes).toEqual([...SCOPES]);
    expect(body.previous_key).toMatchObject({ status: "expiring", expires_at: new Date(T0 + 86_400_000).toISOString() });

    h.clock.now = T0 + 86_400_000 - 1;
    expect((await h.request("/me", oldKey)).status).toBe(200);
    expect((await h.request("/me", newKey)).status).toBe(200);

    h.clock.now = T0 + 86_400_000;
    const a = await h.request("/me", oldKey);
    expect(a.status).toBe(401);
    expect(await a.json()).toEqual({ error: "Invalid API key", request_id: expect.any(String) });
    const b = await h.request("/me", oldKey, { headers: { "api-version": "B" } });
    expect(b.status).toBe(401);
    expect(((await b.json()) as { error: { code: string } }).error.code).toBe("revoked_api_key");
    expect((await h.request("/me", newKey)).status).toBe(200);
  });

  it("a key in its grace cannot rotate again, so its grace is never extended", async () => {
    const h = clocked();
    const { key } = await createOperator();
    const first = (await (await h.request("/keys/rotate", key, { method: "POST" })).json()) as Issued;
    h.clock.now = T0 + 3_600_000;
    const again = await h.request("/keys/rotate", key, { method: "POST" });
    expect(again.status).toBe(403);
    const listed = (await (await h.request("/keys", first.key.api_key)).json()) as { keys: { prefix: string; expires_at: string | null }[] };
    expect(listed.keys.find((k) => k.prefix === key.slice(7, 15))?.expires_at).toBe(new Date(T0 + 86_400_000).toISOString());
  });
});

describe("scopes and revocation", () => {
  it("creates narrower keys, lists by prefix, revokes at once", async () => {
    const { key } = await createOperator();
    const readOnly = (await (await call("/keys", { headers: bearer(key), body: { scopes: ["agents:read"] } })).json()) as Issued;
    expect(readOnly.key.scopes).toEqual(["agents:read"]);
    const rk = readOnly.key.api_key;

    expect((await call("/me", { headers: bearer(rk) })).status).toBe(200);
    expect((await call("/score/SID-0x0123456789abcdef", { headers: bearer(rk) })).status).toBe(404);

    // A key cannot mint a key with more than it has.
    const escalate = await call("/keys", { headers: bearer(rk), body: { scopes: ["agents:write"] } });
    expect(escalate.status).toBe(403);
    const badScope = await call("/keys", { headers: bearer(key), body: { scopes: ["admin"] } });
    expect(badScope.status).toBe(400);

    const listed = (await (await call("/keys", { headers: bearer(key) })).json()) as { keys: { id: number; prefix: string; status: string }[] };
    expect(listed.keys.map((k) => k.prefix)).toEqual([key.slice(7, 15), rk.slice(7, 15)]);
    expect(JSON.stringify(listed)).not.toContain(rk);

    const revoked = await call(`/keys/${readOnly.key.id}`, { method: "DELETE", headers: bearer(key) });
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { key: { status: string } }).key.status).toBe("revoked");
    const after = await call("/me", { headers: bearer(rk) });
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ error: "Invalid API key", request_id: expect.any(String) });
  });

  it("refuses to revoke the operator's last valid key, and another operator's key", async () => {
    const { key } = await createOperator();
    const other = await createOperator();
    const mine = (await (await call("/keys", { headers: bearer(key) })).json()) as { keys: { id: number }[] };
    const last = await call(`/keys/${mine.keys[0].id}`, { method: "DELETE", headers: bearer(key) });
    expect(last.status).toBe(409);
    expect((await call("/me", { headers: bearer(key) })).status).toBe(200);
    const foreign = await call(`/keys/${mine.keys[0].id}`, { method: "DELETE", headers: bearer(other.key) });
    expect(foreign.status).toBe(404);
  });
});

describe("tier limits", () => {
  it("100 parallel requests on a 60/min operator get exactly 60 successes and headers count down", async () => {
    const h = clocked();
    const { key } = await createOperator();
    const responses = await Promise.all(Array.from({ length: 100 }, () => h.request("/me", key)));
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(60);
    expect(limited).toHaveLength(40);
    const remaining = ok.map((r) => Number(r.headers.get("x-ratelimit-remaining"))).sort((x, y) => y - x);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    const reset = Math.ceil((Math.floor(T0 / 60_000) * 60_000 + 60_000) / 1000);
    for (const r of responses) {
      expect(r.headers.get("x-ratelimit-limit")).toBe("60");
      expect(r.headers.get("x-ratelimit-reset")).toBe(String(reset));
    }
    for (const r of limited) {
      expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(Number(r.headers.get("retry-after"))).toBe(reset - Math.floor(T0 / 1000));
      expect(await r.json()).toEqual({ error: "Too many requests. Please try again later.", request_id: expect.any(String) });
    }
    h.clock.now = T0 + 60_000;
    expect((await h.request("/me", key)).status).toBe(200);
  });

  it("enforces the daily limit and custom limits set by an admin", async () => {
    const h = clocked();
    const { key, id } = await createOperator();
    await call(`/admin/operators/${id}`, { headers: ADMIN, body: { rate_limit_per_minute: 1000, rate_limit_per_day: 3 } });
    for (let i = 0; i < 3; i++) expect((await h.request("/me", key)).status).toBe(200);
    h.clock.now = T0 + 120_000;
    const refused = await h.request("/me", key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("1000");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(60);
    // Writes are refused before they run.
    const write = await h.request("/register", key, { body: { name: "late", ...agentConfig } });
    expect(write.status).toBe(429);
    expect(write.headers.get("x-ratelimit-remaining")).toBe("0");
    const agents = await env.DB.prepare("SELECT count(*) AS n FROM agent_directory WHERE operator_id = ?").bind(id).first<{ n: number }>();
    expect(agents?.n).toBe(0);
  });
});

describe("tier limit leases", () => {
  it("never serve more than the limit, and remaining only counts down", async () => {
    const h = clocked();
    const { key, id } = await createOperator();
    await call(`/admin/operators/${id}`, { headers: ADMIN, body: { rate_limit_per_minute: 300 } });
    const served: number[] = [];
    let refused = 0;
    for (let i = 0; i < 340; i++) {
      const res = await h.request("/me", key);
      if (res.status === 200) served.push(Number(res.headers.get("x-ratelimit-remaining")));
      else if (res.status === 429) refused++;
    }
    expect(served.length).toBeLessThanOrEqual(300);
    expect(served.length + refused).toBe(340);
    // Conservative at most by the units of leases that ended unused.
    expect(served.length).toBeGreaterThan(250);
    for (let i = 1; i < served.length; i++) expect(served[i]).toBeLessThan(served[i - 1]);
    const counted = await runInDurableObject(env.RATE_LIMITER.getByName(`operator:${id}`), (_limiter, state) => state.storage.kv.get<{ count: number }>("w60"));
    expect(counted?.count).toBe(300);
  });

  it("a revocation takes effect at once in the isolate that holds a lease", async () => {
    const h = clocked();
    const { key, id } = await createOperator();
    await call(`/admin/operators/${id}`, { headers: ADMIN, body: { rate_limit_per_minute: 10_000, rate_limit_per_day: 100_000 } });
    const second = ((await (await h.request("/keys", key, { body: { scopes: ["agents:read"] } })).json()) as Issued).key;
    for (let i = 0; i < 5; i++) expect((await h.request("/me", second.api_key)).status).toBe(200);
    expect((await h.request(`/keys/${second.id}`, key, { method: "DELETE" })).status).toBe(200);
    expect((await h.request("/me", second.api_key)).status).toBe(401);
  });
});
