// Input that must never be silently mangled: refused with a clear 400, or stored exactly.
import { describe, expect, it } from "vitest";
import { ADMIN, agentConfig, bearer, call, createOperator, freshIp, registerAgent } from "../helpers";

describe("e-mail addresses", () => {
  it.each(["a\u0000b@example.com", "ops@exa\u0007mple.com", "ops@example.com\u0000", "o\u001bps@example.com", "ops\u0085@example.com"])(
    "refuses %j with 400",
    async (email) => {
      const res = await call("/apply", { body: { name: "Ctl", email }, headers: { "cf-connecting-ip": freshIp() } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: "Invalid email format", request_id: expect.any(String) });
    },
  );
});

describe("__proto__ keys", () => {
  it("refuses a __proto__ key anywhere in memoryConfig or metadata instead of dropping it", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const bodies = [
      `{"name":"P","modelProvider":"p","modelName":"m","memoryConfig":{"__proto__":{"size":1}}}`,
      `{"name":"P","modelProvider":"p","modelName":"m","memoryConfig":{"a":[{"__proto__":1}]}}`,
    ];
    for (const body of bodies) {
      const res = await call("/register", { headers: bearer(key), body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/^memoryConfig must not contain the key "__proto__"/);
    }
    const config = await call(`/agents/${sid}/config`, {
      headers: bearer(key),
      body: `{"modelProvider":"anthropic","modelName":"claude-sonnet","memoryConfig":{"type":"vector","__proto__":{"size":99}}}`,
    });
    expect(config.status).toBe(400);
    const tx = await call("/transactions", { headers: bearer(key), body: `{"sid":"${sid}","transactionType":"t","outcome":"success","metadata":{"__proto__":{"x":1}}}` });
    expect(tx.status).toBe(400);
    expect(((await tx.json()) as { error: string }).error).toMatch(/^metadata must not contain the key "__proto__"/);
  });

  it("keeps other unusual keys exactly, so a change inside them is detected", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key, { memoryConfig: { constructor: { size: 1 } } });
    const same = await call(`/agents/${sid}/config`, { headers: bearer(key), body: { ...agentConfig, memoryConfig: { constructor: { size: 1 } } } });
    expect(((await same.json()) as { change_detected: boolean }).change_detected).toBe(false);
    const changed = await call(`/agents/${sid}/config`, { headers: bearer(key), body: { ...agentConfig, memoryConfig: { constructor: { size: 2 } } } });
    expect(((await changed.json()) as { change_type: string }).change_type).toBe("memory_change");
  });
});

describe("numeric path ids", () => {
  it("are plain decimal: 0x10, 1e1, 010, +7 and 7.0 are 400", async () => {
    const { key, id } = await createOperator();
    for (const bad of ["0x10", "1e1", "010", "+7", "7.0", "0", "-1", "%207"]) {
      const admin = await call(`/admin/operators/${bad}`, { headers: ADMIN, body: { verified: true } });
      expect(admin.status, bad).toBe(400);
      expect(((await admin.json()) as { error: string }).error).toBe("id must be a positive decimal integer");
      expect((await call(`/keys/${bad}`, { method: "DELETE", headers: bearer(key) })).status, bad).toBe(400);
      expect((await call(`/admin/applications/${bad}/approve`, { method: "POST", headers: ADMIN })).status, bad).toBe(400);
    }
    expect((await call(`/admin/operators/${id}`, { headers: ADMIN, body: {} })).status).toBe(200);
  });
});

describe("IPv6 clients", () => {
  it("count per /64 for public limits: a fresh address in the same /64 is the same client", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    for (let i = 1; i <= 5; i++) {
      const res = await call("/apply", { body: { name: "" }, headers: { "cf-connecting-ip": `${prefix}::${i.toString(16)}` } });
      expect(res.status).toBe(400);
    }
    const sixth = await call("/apply", { body: { name: "" }, headers: { "cf-connecting-ip": `${prefix}:ffff:ffff:ffff:ffff` } });
    expect(sixth.status).toBe(429);
    const written = await call("/apply", { body: { name: "" }, headers: { "cf-connecting-ip": `${prefix.toUpperCase()}:0:0:0:9` } });
    expect(written.status).toBe(429);
    const neighbour = `${prefix.slice(0, prefix.lastIndexOf(":"))}:${(parseInt(prefix.slice(prefix.lastIndexOf(":") + 1), 16) ^ 1).toString(16)}`;
    const otherNetwork = await call("/apply", { body: { name: "" }, headers: { "cf-connecting-ip": `${neighbour}::1` } });
    expect(otherNetwork.status).toBe(400);
  });

  it("count an IPv4-mapped address as its IPv4 address", async () => {
    const v4 = freshIp();
    for (let i = 0; i < 5; i++) await call("/apply", { body: { name: "" }, headers: { "cf-connecting-ip": v4 } });
    expect((await call("/apply", { body: { name: "" }, headers: { "cf-connecting-ip": `::ffff:${v4}` } })).status).toBe(429);
  });
});

describe("badges and API-Version", () => {
  it("ignore the header entirely, cached or not", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    for (let i = 0; i < 2; i++) {
      for (const version of ["C", "B", "A"]) {
        const res = await call(`/badge/${sid}.json`, { headers: { "api-version": version, "cf-connecting-ip": freshIp() } });
        expect(res.status, `${version} ${i ? "cached" : "uncached"}`).toBe(200);
        expect(((await res.json()) as { message: string }).message).toBe("500 · review");
      }
    }
  });
});

describe("Form B dimensions", () => {
  it("are on the 0.0-1.0 scale in updated_scores of /transactions and /config", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const tx = await call("/transactions", { headers: bearer(key, { "api-version": "B" }), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 1000 } });
    const txBody = (await tx.json()) as { updated_scores: { composite_score: number; dimensions: Record<string, number> } };
    expect(txBody.updated_scores.dimensions.reliability).toBe(0.5);
    expect(txBody.updated_scores.dimensions.quality).toBeGreaterThan(0.5);
    expect(txBody.updated_scores.dimensions.quality).toBeLessThan(1);
    expect(txBody.updated_scores.composite_score).toBeGreaterThan(500);
    const config = await call(`/agents/${sid}/config`, { headers: bearer(key, { "api-version": "B" }), body: { ...agentConfig, modelName: "other" } });
    const configBody = (await config.json()) as { updated_scores: { dimensions: Record<string, number> } };
    for (const v of Object.values(configBody.updated_scores.dimensions)) expect(v).toBeLessThanOrEqual(1);
    const a = await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "success" } });
    expect(((await a.json()) as { updated_scores: { dimensions: { reliability: number } } }).updated_scores.dimensions.reliability).toBe(500);
  });
});
