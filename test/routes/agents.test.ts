import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { reportQueries, ROW_READ } from "../../src/db/agents";
import { BY_SID, operatorAgentsQuery } from "../../src/db/directory";
import { keyQuery } from "../../src/db/operators";
import { ADMIN, agentConfig, bearer, call, createOperator, freshIp, registerAgent, shardOf } from "../helpers";

const SID_ERROR = { error: "Invalid SID format. Expected: SID-0x[16 hex chars]", request_id: expect.any(String) };

describe("POST /register", () => {
  it("registers with 201 and the Form A fields; the service picks the sid", async () => {
    const { key } = await createOperator();
    const res = await call("/register", {
      headers: bearer(key),
      body: { ...agentConfig, name: "Helper", description: "helps", sid: "SID-0x0000000000000000", composite_score: 999, status: "x", identity_level: 2 },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      sid: expect.stringMatching(/^SID-0x[0-9a-f]{16}$/),
      name: "Helper",
      composite_score: 500,
      confidence: "low",
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      message: expect.any(String),
    });
    expect(body.sid).not.toBe("SID-0x0000000000000000");
    const score = (await (await call(`/score/${body.sid}`, { headers: bearer(key) })).json()) as Record<string, unknown>;
    expect(score).toMatchObject({ composite_score: 500, identity_level: 0, config_fingerprint: body.fingerprint });
  });

  it("lists only the missing required fields, in the spec's order", async () => {
    const { key } = await createOperator();
    const cases: [Record<string, unknown>, string][] = [
      [{}, "Missing required fields: name, modelProvider, modelName"],
      [{ name: "A" }, "Missing required fields: modelProvider, modelName"],
      [{ modelProvider: "x" }, "Missing required fields: name, modelName"],
      [{ name: "A", modelProvider: "x" }, "Missing required fields: modelName"],
      [{ name: "", modelProvider: "x", modelName: "y" }, "Missing required fields: name"],
    ];
    for (const [body, error] of cases) {
      const res = await call("/register", { headers: bearer(key), body });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error, request_id: expect.any(String) });
    }
  });

  it("enforces the size limits with a 400 and stores nothing", async () => {
    const { key, id } = await createOperator();
    const bad = [
      { name: "x".repeat(201) },
      { description: "d".repeat(2001) },
      { tools: Array.from({ length: 101 }, (_, i) => `t${i}`) },
      { tools: ["x".repeat(201)] },
      { tools: "search" },
      { memoryConfig: { blob: "m".repeat(9000) } },
      { memoryConfig: [1, 2] },
    ];
    for (const overrides of bad) {
      const res = await call("/register", { headers: bearer(key), body: { name: "A", ...agentConfig, ...overrides } });
      expect(res.status, JSON.stringify(overrides).slice(0, 60)).toBe(400);
    }
    const count = await env.DB.prepare("SELECT count(*) AS n FROM agent_directory WHERE operator_id = ?").bind(id).first<{ n: number }>();
    expect(count?.n).toBe(0);
  });

  it("records the initial configuration with change_type null", async () => {
    const { key } = await createOperator();
    const { sid, fingerprint } = await registerAgent(key);
    const report = (await (await call(`/report/${sid}`, { headers: bearer(key) })).json()) as { config_history: unknown[] };
    expect(report.config_history).toEqual([
      { fingerprint, model_provider: "anthropic", model_name: "claude-sonnet", change_type: null, timestamp: expect.any(String) },
    ]);
  });
});

describe("GET /score/{sid}", () => {
  it("returns every Form A field with the operator", async () => {
    const { key } = await createOperator({ name: "Scorer Inc" });
    const { sid } = await registerAgent(key, { name: "Scored" });
    const res = await call(`/score/${sid}`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      sid,
      agent_name: "Scored",
      composite_score: 500,
      reliability: 500,
      quality: 500,
      financial: 500,
      security: 500,
      stability: 500,
      confidence: "low",
      recommendation: "review",
      reasons: expect.arrayContaining(["INSUFFICIENT_EVIDENCE", "IDENTITY_UNVERIFIED"]),
      operator: { name: "Scorer Inc", score: 500, verified: false },
      config_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      identity_level: 0,
      identity_label: "Unverified",
      identity_key: null,
      status: "active",
      last_updated: expect.any(String),
      model: { version: 4, snapshot: null },
    });
  });

  it("answers 400 for a malformed sid and 404 for an unknown one", async () => {
    const { key } = await createOperator();
    for (const bad of ["SID-0x123", "SID-0xZZZZZZZZZZZZZZZZ", "sid-0x0123456789abcdef", "SID-0x0123456789ABCDEF"]) {
      const res = await call(`/score/${bad}`, { headers: bearer(key) });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(SID_ERROR);
    }
    const res = await call("/score/SID-0x0123456789abcdef", { headers: bearer(key) });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Agent not found", request_id: expect.any(String) });
  });
});

describe("GET /score/{sid}/public", () => {
  it("returns exactly the reduced Form A field set without a key", async () => {
    const { key } = await createOperator({ name: "Public Op" });
    const { sid } = await registerAgent(key, { name: "Shown" });
    const res = await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      sid,
      agent_name: "Shown",
      composite_score: 500,
      confidence: "low",
      recommendation: "review",
      identity_level: 0,
      operator_name: "Public Op",
      status: "active",
    });
  });

  it("limits 5 per hour per IP", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(200);
    const sixth = await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } });
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get("retry-after")).toBeTruthy();
  });
});

describe("self-registration and claim", () => {
  it("creates an unowned agent with a one-time claim token; owner routes answer 403 until claimed", async () => {
    const res = await call("/register/self", { body: { name: "Wild", ...agentConfig }, headers: { "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { sid: string; claim_token: string; composite_score: number };
    expect(body.claim_token).toMatch(/^[0-9a-f]{64}$/);
    expect(body.composite_score).toBe(500);

    const { key } = await createOperator({ name: "Claimer" });
    const before = await call(`/agents/${body.sid}/config`, { headers: bearer(key), body: agentConfig });
    expect(before.status).toBe(403);
    expect(await before.json()).toEqual({ error: "Forbidden: you do not own this agent", request_id: expect.any(String) });

    const wrong = await call(`/agents/${body.sid}/claim`, { headers: bearer(key), body: { claim_token: "0".repeat(64) } });
    expect(wrong.status).toBe(400);
    const claimed = await call(`/agents/${body.sid}/claim`, { headers: bearer(key), body: { claim_token: body.claim_token } });
    expect(claimed.status).toBe(200);
    const again = await call(`/agents/${body.sid}/claim`, { headers: bearer(key), body: { claim_token: body.claim_token } });
    expect(again.status).toBe(409);

    const after = await call(`/agents/${body.sid}/config`, { headers: bearer(key), body: agentConfig });
    expect(after.status).toBe(200);
    const me = (await (await call("/me", { headers: bearer(key) })).json()) as { agents: { sid: string }[] };
    expect(me.agents.map((a) => a.sid)).toEqual([body.sid]);
    const score = (await (await call(`/score/${body.sid}`, { headers: bearer(key) })).json()) as { operator: unknown };
    expect(score.operator).toEqual({ name: "Claimer", score: 500, verified: false });
  });

  it("shows an unclaimed agent with a null operator", async () => {
    const res = await call("/register/self", { body: { name: "Loose", ...agentConfig }, headers: { "cf-connecting-ip": freshIp() } });
    const { sid } = (await res.json()) as { sid: string };
    const { key } = await createOperator();
    const score = (await (await call(`/score/${sid}`, { headers: bearer(key) })).json()) as { operator: unknown };
    expect(score.operator).toBeNull();
    const pub = (await (await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as { operator_name: unknown };
    expect(pub.operator_name).toBeNull();
  });

  it("limits self-registration to 5 per hour per IP", async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await call("/register/self", { body: {}, headers: { "cf-connecting-ip": ip } });
    expect((await call("/register/self", { body: { name: "x", ...agentConfig }, headers: { "cf-connecting-ip": ip } })).status).toBe(429);
  });
});

describe("ownership", () => {
  it("another operator never sees owner-only data nor another's agents", async () => {
    const alice = await createOperator({ name: "Alice" });
    const bob = await createOperator({ name: "Bob" });
    const { sid } = await registerAgent(alice.key, { name: "Alice's" });
    const bobMe = (await (await call("/me", { headers: bearer(bob.key) })).json()) as { agents: unknown[] };
    expect(bobMe.agents).toEqual([]);
    const aliceMe = (await (await call("/me", { headers: bearer(alice.key) })).json()) as { agents: Record<string, unknown>[] };
    expect(aliceMe.agents).toEqual([
      {
        sid,
        name: "Alice's",
        description: null,
        composite_score: 500,
        confidence: "low",
        recommendation: "review",
        status: "active",
        identity_level: 0,
        created_at: expect.any(String),
      },
    ]);
  });
});

describe("GET /report/{sid}", () => {
  it("returns every Form A field", async () => {
    const { key } = await createOperator({ name: "Reporter" });
    const { sid } = await registerAgent(key, { name: "Reported", description: "desc" });
    const res = await call(`/report/${sid}`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      sid,
      agent_name: "Reported",
      description: "desc",
      status: "active",
      current_score: { composite: 500, reliability: 500, quality: 500, financial: 500, security: 500, stability: 500, confidence: "low", recommendation: "review" },
      operator: { name: "Reporter", score: 500, verified: false },
      score_history: [],
      transaction_summary: { total: 0, outcomes: {} },
      last_updated: expect.any(String),
    });
    expect(body.config_history).toHaveLength(1);
  });

  it("shows suspended status set by an admin", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    expect((await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
    const report = (await (await call(`/report/${sid}`, { headers: bearer(key) })).json()) as { status: string };
    expect(report.status).toBe("suspended");
  });
});

describe("reads are indexed and bounded", () => {
  /** SQLite's plan for a query the service really runs (its own SQL text and parameters). */
  const plan = async (d1: D1Database, query: { sql: string; params: unknown[] }) => {
    const rows = await d1.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).bind(...query.params).all<{ detail: string }>();
    return rows.results.map((r) => r.detail).join(" | ");
  };
  const sid = "SID-0x0123456789abcdef";

  it("score, report, history and /me read by index, and history reads are bounded by LIMIT", async () => {
    const shard = env.SHARD_0;
    expect(await plan(shard, { sql: ROW_READ, params: [sid] })).toMatch(/SEARCH agents USING INDEX sqlite_autoindex_agents_1 \(sid=\?\)/);
    const [agent, events, configs] = reportQueries(sid);
    expect(await plan(shard, agent)).toMatch(/SEARCH agents USING INDEX sqlite_autoindex_agents_1 \(sid=\?\)/);
    expect(await plan(shard, events)).toMatch(/SEARCH entries USING PRIMARY KEY \(sid=\?\)/);
    expect(await plan(shard, events)).not.toMatch(/TEMP B-TREE/);
    expect(await plan(shard, configs)).toMatch(/SEARCH config_history USING INDEX config_history_sid \(sid=\?\)/);
    expect(await plan(shard, configs)).not.toMatch(/TEMP B-TREE/);
    expect(await plan(env.DB, { sql: BY_SID, params: [sid] })).toMatch(/SEARCH agent_directory USING INDEX agent_directory_sid \(sid=\?\)/);
    const page = operatorAgentsQuery(env.DB, 1, 0, 51).toSQL();
    expect(await plan(env.DB, page)).toMatch(/SEARCH agent_directory USING (COVERING )?INDEX agent_directory_operator \(operator_id=\? AND num>\?\)/);
    expect(await plan(env.DB, page)).not.toMatch(/TEMP B-TREE/);
    expect(await plan(env.DB, keyQuery(env.DB, "x").toSQL())).toMatch(/SEARCH api_keys USING INDEX api_keys_hash/);
  });

  it("the report returns at most 50 events and 20 configurations, newest first, whatever the history size", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const shard = await shardOf(sid);
    const inserts = [];
    // 80 reports after the registration's entry 1, each with the score that followed it.
    for (let i = 0; i < 80; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
      const score = { composite: 400 + i, reliability: 500, quality: 500, financial: 500, security: 500, stability: 500 };
      const body = JSON.stringify({ v: 1, sid, n: i + 2, kind: "report", at, outcome: "success", receipt: false, score });
      inserts.push(shard.prepare("INSERT INTO entries (sid, n, kind, at, operator, status, body, hash) VALUES (?, ?, 'report', ?, 1, 'active', ?, '')").bind(sid, i + 2, Date.parse(at), body));
    }
    for (let i = 0; i < 30; i++) {
      inserts.push(
        shard.prepare(
          "INSERT INTO config_history (sid, fingerprint, model_provider, model_name, change_type, created_at) VALUES (?, ?, 'p', ?, 'model_swap', ?)",
        ).bind(sid, `f${i}`, `m${i}`, new Date(Date.UTC(2026, 0, 2, 0, i)).toISOString()),
      );
    }
    await shard.batch(inserts);
    const report = (await (await call(`/report/${sid}`, { headers: bearer(key) })).json()) as {
      score_history: { composite: number }[];
      config_history: { model_name: string }[];
    };
    expect(report.score_history).toHaveLength(50);
    expect(report.score_history[0].composite).toBe(479);
    expect(report.score_history[49].composite).toBe(430);
    expect(report.config_history).toHaveLength(20);
    expect(report.config_history[0].model_name).toBe("m29");
  });
});
