import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, agentConfig, bearer, call, createOperator, freshIp, registerAgent, testApp } from "../helpers";

const B = { "api-version": "B" };

describe("API-Version", () => {
  it("A or no header gives Form A; any other value gives 400", async () => {
    const { key } = await createOperator();
    expect((await call("/me", { headers: bearer(key, { "api-version": "A" }) })).status).toBe(200);
    const bad = await call("/me", { headers: bearer(key, { "api-version": "2" }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Invalid API-Version header. Expected: A or B", request_id: expect.any(String) });
  });
});

describe("Form B registration", () => {
  it("takes name, description, model and capabilities and answers the Form B shape", async () => {
    const { key } = await createOperator();
    const res = await call("/register", {
      headers: bearer(key, B),
      body: { name: "B Agent", description: "form b", model: "gpt-5", capabilities: ["browse", "code"] },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { sid: string };
    expect(body).toEqual({ sid: expect.stringMatching(/^SID-0x[0-9a-f]{16}$/), name: "B Agent", created_at: expect.any(String), status: "active", initial_score: 500 });
    const report = (await (await call(`/report/${body.sid}`, { headers: bearer(key) })).json()) as { config_history: { model_provider: string; model_name: string }[] };
    expect(report.config_history[0]).toMatchObject({ model_provider: "unspecified", model_name: "gpt-5" });
  });

  it("lists a missing name in the Form B envelope", async () => {
    const { key } = await createOperator();
    const res = await call("/register", { headers: bearer(key, B), body: { model: "x" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: "invalid_request", message: "Missing required fields: name" }, request_id: expect.any(String) });
  });
});

describe("one agent, two renderings, same numbers", () => {
  it("score, public score and report agree between the forms", async () => {
    const owner = await createOperator({ name: "Both Forms" });
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    await call("/transactions", { headers: bearer(reporter.key, B), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 910, securitySignal: 120 } });
    await call("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "partial", reliabilitySignal: 700 } });
    await call(`/agents/${sid}/config`, { headers: bearer(owner.key, B), body: { ...agentConfig, systemPromptHash: "b".repeat(64) } });

    const a = (await (await call(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as Record<string, number | string>;
    const b = (await (await call(`/score/${sid}`, { headers: bearer(owner.key, B) })).json()) as {
      score: number;
      confidence: string;
      recommendation: string;
      dimensions: Record<string, number>;
      updated_at: string;
      model: unknown;
    };
    expect(Object.keys(b).sort()).toEqual(["confidence", "dimensions", "identity_level", "model", "reasons", "recommendation", "score", "sid", "status", "updated_at"]);
    expect(b.model).toEqual(a.model);
    expect(b.score).toBe(a.composite_score);
    expect(b.confidence).toBe(a.confidence);
    expect(b.recommendation).toBe(a.recommendation);
    expect(b.updated_at).toBe(a.last_updated);
    for (const d of ["reliability", "quality", "financial", "security", "stability"]) {
      expect(b.dimensions[d]).toBe(Number(((a[d] as number) / 1000).toFixed(3)));
    }

    const pubA = (await (await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as Record<string, unknown>;
    const pubB = (await (await call(`/score/${sid}/public`, { headers: { ...B, "cf-connecting-ip": freshIp() } })).json()) as Record<string, unknown>;
    expect(pubB).toEqual({
      sid,
      score: pubA.composite_score,
      confidence: pubA.confidence,
      recommendation: pubA.recommendation,
      identity_level: pubA.identity_level,
      status: pubA.status,
      updated_at: a.last_updated,
    });

    const repA = (await (await call(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as {
      current_score: { composite: number };
      score_history: { composite: number; event_type: string; timestamp: string }[];
    };
    const repB = (await (await call(`/report/${sid}`, { headers: bearer(owner.key, B) })).json()) as Record<string, unknown> & {
      score_history: { score: number; reason: string; timestamp: string }[];
    };
    expect(repB).toMatchObject({
      sid,
      name: "Agent",
      score: repA.current_score.composite,
      operator: { score: expect.any(Number), history: "less than a day", agents_operated: 1 },
      config: { model: "claude-sonnet", version: "2", last_change: expect.any(String) },
      created_at: expect.any(String),
      updated_at: a.last_updated,
    });
    expect(repB.score_history).toEqual(
      repA.score_history.map((e) => ({
        score: e.composite,
        timestamp: e.timestamp,
        reason: e.event_type.startsWith("config_change:") ? "config_change_decay" : "transaction_update",
      })),
    );
    expect(repB.score_history.map((e) => e.reason)).toEqual(["config_change_decay", "transaction_update", "transaction_update"]);
  });
});

describe("Form B errors", () => {
  it("uses the spec's codes", async () => {
    const { key } = await createOperator();
    const cases: [Promise<Response>, number, string][] = [
      [call("/me", { headers: B }), 401, "missing_api_key"],
      [call("/me", { headers: { ...B, authorization: "Bearer nope_123" } }), 401, "invalid_api_key"],
      [call("/me", { headers: bearer("sk_svc_" + "f".repeat(64), B) }), 401, "invalid_api_key"],
      [call("/score/SID-0x0123456789abcdef", { headers: bearer(key, B) }), 404, "not_found"],
      [call("/score/nope", { headers: bearer(key, B) }), 400, "invalid_request"],
      [call("/transactions", { headers: bearer(key, B), body: "{" }), 400, "invalid_request"],
      [call("/apply", { headers: { ...B, "cf-connecting-ip": freshIp() }, body: { name: "x".repeat(10), email: "x", reason: "r".repeat(70_000) } }), 413, "payload_too_large"],
      [call("/nothing-here", { headers: B }), 404, "not_found"],
    ];
    for (const [pending, status, code] of cases) {
      const res = await pending;
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe(code);
      expect(typeof body.error.message).toBe("string");
    }
  });

  it("keeps Form A payloads on routes only Form A has", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const res = await call("/transactions", { headers: bearer(key, B), body: { sid, transactionType: "t", outcome: "success" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ success: true, transaction_id: expect.any(Number), updated_scores: expect.any(Object) });
    const me = await call("/me", { headers: bearer(key, B) });
    expect(await me.json()).toMatchObject({ operator: expect.any(Object), agents: expect.any(Array) });
  });
});

describe("POST /waitlist", () => {
  it("adds an address once and answers the same way twice", async () => {
    const ip = freshIp();
    const first = await call("/waitlist", { body: { email: "early@example.com", role: "developer" }, headers: { "cf-connecting-ip": ip } });
    expect(first.status).toBe(201);
    const body = await first.json();
    expect(body).toEqual({ success: true, message: expect.any(String) });
    const second = await call("/waitlist", { body: { email: "EARLY@example.com" }, headers: { "cf-connecting-ip": ip } });
    expect(second.status).toBe(201);
    expect(await second.json()).toEqual(body);
    const rows = await env.DB.prepare("SELECT email, role FROM waitlist WHERE email = 'early@example.com'").all();
    expect(rows.results).toEqual([{ email: "early@example.com", role: "developer" }]);
  });

  it("validates email and role in both forms", async () => {
    const missing = await call("/waitlist", { body: {}, headers: { "cf-connecting-ip": freshIp() } });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "Invalid email format", request_id: expect.any(String) });
    const role = await call("/waitlist", { body: { email: "r@example.com", role: "ceo" }, headers: { ...B, "cf-connecting-ip": freshIp() } });
    expect(role.status).toBe(400);
    expect(await role.json()).toEqual({ error: { code: "invalid_request", message: "role must be one of: operator, platform, developer, other" }, request_id: expect.any(String) });
  });

  it("allows 5 per minute per IP", async () => {
    // A fixed clock, so the six requests cannot straddle a minute boundary.
    const h = testApp({ now: Date.parse("2026-11-21T10:00:10Z") });
    const join = (ip: string, email: string, headers: Record<string, string> = {}) =>
      h.request("/waitlist", { headers: { "cf-connecting-ip": ip, ...headers }, body: { email } });
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await join(ip, `w${i}@example.com`)).status).toBe(201);
    const sixth = await join(ip, "w6@example.com", B);
    expect(sixth.status).toBe(429);
    expect(((await sixth.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    expect(sixth.headers.get("retry-after")).toBe("50");
  });
});

describe("admin sets the tier", () => {
  it("changes X-RateLimit-Limit", async () => {
    const { key, id } = await createOperator();
    expect((await call("/me", { headers: bearer(key) })).headers.get("x-ratelimit-limit")).toBe("60");
    await call(`/admin/operators/${id}`, { headers: ADMIN, body: { tier: "enterprise" } });
    expect((await call("/me", { headers: bearer(key) })).headers.get("x-ratelimit-limit")).toBe("1000");
  });
});
