// The MCP server at /mcp, through the app: each tool answers as the REST route it mirrors, counts
// against that route's limit, and shares its validation texts, scopes and idempotency.
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { forgetSnapshot } from "../../src/db/snapshot";
import { ADMIN, bearer, call, createOperator, freshIp, publishCredibility, registerAgent, reportRows, shardOf, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:20:30Z");
const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

type App = ReturnType<typeof testApp>;
type Json = Record<string, any>;
interface ToolResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent: Json;
}

let rpcId = 0;
async function rpc(h: App, method: string, params: Json, headers: Record<string, string> = {}) {
  const res = await h.request("/mcp", { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: { jsonrpc: "2.0", id: ++rpcId, method, params } });
  return { res, body: (await res.json()) as Json };
}

async function tool(h: App, name: string, args: Json, headers: Record<string, string> = {}): Promise<ToolResult> {
  const { res, body } = await rpc(h, "tools/call", { name, arguments: args }, headers);
  expect(res.status).toBe(200);
  expect(body.error).toBeUndefined();
  return body.result as ToolResult;
}

async function agentOf(options: { verified?: boolean } = {}) {
  const owner = await createOperator(options);
  const { sid } = await registerAgent(owner.key);
  return { owner, sid };
}

describe("the MCP endpoint", () => {
  it("initializes statelessly and lists five tools, each with a JSON Schema and a description", async () => {
    const h = testApp({ now: T0 });
    const init = await rpc(h, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } });
    expect(init.res.status).toBe(200);
    expect(init.res.headers.get("mcp-session-id")).toBeNull();
    expect(init.res.headers.get("cache-control")).toBe("no-store");
    expect(init.res.headers.get("access-control-allow-origin")).toBeNull();
    expect(init.body.result).toMatchObject({ serverInfo: { name: "agent-trust-service" }, capabilities: { tools: {} } });
    expect(init.body.result.instructions).toContain("check_agent");

    const { body } = await rpc(h, "tools/list", {});
    const tools = body.result.tools as Json[];
    expect(tools.map((t) => t.name)).toEqual(["check_agent", "get_score", "get_report", "report_transaction", "verify_attestation"]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect(t.description.length).toBeGreaterThan(100);
    }
    const report = tools.find((t) => t.name === "report_transaction")!;
    expect(report.inputSchema.required).toEqual(["sid", "transactionType", "outcome"]);
    expect(report.inputSchema.properties.outcome.enum).toEqual(["success", "partial", "failure", "timeout", "error"]);
    expect(report.inputSchema.properties.qualitySignal.anyOf[0]).toMatchObject({ type: "number", minimum: 0, maximum: 1000 });
    expect(report.inputSchema.properties.idempotency_key).toMatchObject({ type: "string", minLength: 1, maxLength: 255 });
    expect(report.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it("is in both OpenAPI documents, as a public operation that takes an optional key", async () => {
    for (const path of ["/openapi.json", "/openapi-b.json"]) {
      const doc = (await (await call(path)).json()) as Json;
      const operation = doc.paths["/mcp"].post;
      expect(Object.keys(operation).sort()).toEqual(["description", "operationId", "parameters", "requestBody", "responses", "security", "summary", "tags"]);
      expect(operation.security).toEqual([{}, { bearerAuth: [] }]);
      expect(Object.keys(operation.responses)).toEqual(["200", "202", "400", "403", "406", "413", "415"]);
      expect(doc.paths["/agents/{sid}/a2a-extension"].get.operationId).toBe("getA2AExtension");
    }
  });

  it("answers GET with 405 (no SSE stream: stateless), an unknown tool with a JSON-RPC error, bad JSON with a parse error", async () => {
    const h = testApp({ now: T0 });
    const get = await h.request("/mcp", { headers: MCP_HEADERS });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const unknown = await rpc(h, "tools/call", { name: "delete_everything", arguments: {} });
    expect(unknown.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("Unknown tool: delete_everything") });
    const malformed = await h.request("/mcp", { method: "POST", headers: MCP_HEADERS, body: "{not json" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    const noAccept = await h.request("/mcp", { method: "POST", headers: { "mcp-protocol-version": "2025-06-18" }, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
    expect(noAccept.status).toBe(406);
    const empty = await h.request("/mcp", { method: "POST", headers: MCP_HEADERS });
    expect(empty.status).toBe(415);
    expect(await empty.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
  });

  it("refuses a batch of more than 10 messages before running any of it", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const ip = freshIp();
    const batch = Array.from({ length: 11 }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "check_agent", arguments: { sid } } }));
    const res = await h.request("/mcp", { method: "POST", headers: { ...MCP_HEADERS, "cf-connecting-ip": ip }, body: batch });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: a batch holds at most 10 messages" } });
    // Nothing ran: the address still has its five public checks.
    for (let i = 0; i < 5; i++) expect((await tool(h, "check_agent", { sid }, { "cf-connecting-ip": ip })).isError).toBeUndefined();
  });
});

describe("who may call it", () => {
  const call = (h: App, args: Json, headers: Record<string, string>, body?: string) =>
    h.request("/mcp", { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: body ?? JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name: "check_agent", arguments: args } }) });

  it("serves only Content-Type application/json (any case, any parameters): a page's text/plain request is 415 and runs nothing", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const ip = freshIp();
    // What a page can send cross-origin without a preflight (a CORS "simple" request), and no type at all.
    for (const type of ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "application/json-patch+json", ""]) {
      const res = await call(h, { sid }, { "content-type": type, "cf-connecting-ip": ip });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Unsupported Media Type: Content-Type must be application/json" } });
    }
    for (const type of ["application/json", "Application/JSON; charset=utf-8", "APPLICATION/JSON ;charset=UTF-8"]) {
      const res = await call(h, { sid }, { "content-type": type, "cf-connecting-ip": ip });
      expect(res.status, type).toBe(200);
      expect(((await res.json()) as Json).result.isError, type).toBeUndefined();
    }
    // The three above were the address's first public reads: two are left.
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(200);
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(200);
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(429);
  });

  it("refuses an Origin that is not the service's own nor on MCP_ALLOWED_ORIGINS (403, nothing run); no Origin passes", async () => {
    const h = testApp({ now: T0, env: { MCP_ALLOWED_ORIGINS: " https://console.example , not an origin,https://ops.example:8443" } });
    const { sid } = await agentOf();
    const ip = freshIp();
    for (const origin of ["https://evil.example", "null", "http://trust.test.evil.example", "https://console.example.evil", "http://console.example", "https://ops.example"]) {
      const res = await call(h, { sid }, { origin, "cf-connecting-ip": ip });
      expect(res.status, origin).toBe(403);
      expect(await res.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Forbidden: this Origin may not call /mcp" } });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
    for (const origin of ["http://trust.test", "https://console.example", "https://ops.example:8443", undefined]) {
      const res = await call(h, { sid }, { ...(origin ? { origin } : {}), "cf-connecting-ip": ip });
      expect(res.status, origin).toBe(200);
      expect(res.headers.get("access-control-allow-origin"), origin).toBeNull();
    }
    // The four allowed calls spent four of the five public reads; the refused ones none.
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(200);
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(429);
  });

  it("answers a preflight without Access-Control-Allow-Origin", async () => {
    const h = testApp({ now: T0 });
    const res = await h.request("/mcp", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type, authorization" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-allow-headers")).toBeNull();
    expect(res.headers.get("access-control-allow-methods")).toBeNull();
  });
});

describe("malformed requests", () => {
  const send = (h: App, body: unknown) => h.request("/mcp", { method: "POST", headers: MCP_HEADERS, body });

  it("answer JSON-RPC -32602 with one line, never an internal error with the validator's dump", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const cases: [Json | undefined, string][] = [
      [{ name: "check_agent", arguments: [sid] }, "Invalid params: params.arguments: "],
      [{ name: "check_agent", arguments: "sid" }, "Invalid params: params.arguments: "],
      [{ name: "check_agent", arguments: null }, "Invalid params: params.arguments: "],
      [{ name: 7, arguments: { sid } }, "Invalid params: params.name: "],
      [{ arguments: { sid } }, "Invalid params: params.name: "],
      [undefined, "Invalid params: params: "],
    ];
    for (const [params, start] of cases) {
      const res = await send(h, { jsonrpc: "2.0", id: 41, method: "tools/call", ...(params === undefined ? {} : { params }) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Json;
      expect(body, JSON.stringify(params)).toEqual({ jsonrpc: "2.0", id: 41, error: { code: -32602, message: expect.stringMatching(/^Invalid params: /) } });
      expect(body.error.message.startsWith(start), body.error.message).toBe(true);
      expect(body.error.message).not.toMatch(/\n|\[|\{/);
      expect(body.error.message.length).toBeLessThan(120);
    }
    const list = (await (await send(h, { jsonrpc: "2.0", id: 42, method: "tools/list", params: { cursor: 5 } })).json()) as Json;
    expect(list).toEqual({ jsonrpc: "2.0", id: 42, error: { code: -32602, message: expect.stringMatching(/^Invalid params: params.cursor: [^\n]+$/) } });
  });

  it("in a batch, are answered beside the well-formed messages, which still run", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const res = await send(h, [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "check_agent", arguments: [sid] } },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "check_agent", arguments: { sid } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ]);
    expect(res.status).toBe(200);
    const answers = (await res.json()) as Json[];
    expect(answers).toHaveLength(2);
    expect(answers.find((a) => a.id === 1)).toMatchObject({ error: { code: -32602 } });
    expect(answers.find((a) => a.id === 2)?.result.structuredContent).toMatchObject({ sid, view: "public" });
  });
});

describe("check_agent", () => {
  it("without a key: the public score and an attestation that verifies against the JWKS", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const ip = freshIp();
    const result = await tool(h, "check_agent", { sid }, { "cf-connecting-ip": ip });
    expect(result.isError).toBeUndefined();
    const pub = (await (await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as Json;
    expect(result.structuredContent).toEqual({ sid, view: "public", status: "active", score: pub, attestation: expect.any(String), attestation_error: null });
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    const jwks = (await (await h.request("/.well-known/jwks.json")).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(result.structuredContent.attestation, createLocalJWKSet(jwks), { issuer: "http://trust.test", subject: sid, currentDate: new Date(T0) });
    expect(payload.recommendation).toBe(pub.recommendation);
  });

  it("without a key counts against the public score's limit: five per hour per address, shared with GET /score/{sid}/public", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const ip = freshIp();
    for (let i = 0; i < 3; i++) expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await tool(h, "check_agent", { sid }, { "cf-connecting-ip": ip })).isError).toBeUndefined();
    const sixth = await tool(h, "check_agent", { sid }, { "cf-connecting-ip": ip });
    expect(sixth.isError).toBe(true);
    expect(sixth.content[0].text).toBe("Too many requests. Please try again later.");
    expect(sixth.structuredContent).toEqual({ status: 429, error: "Too many requests. Please try again later.", request_id: expect.any(String), retry_after: expect.any(Number) });
    expect(sixth.structuredContent.retry_after).toBeGreaterThan(0);
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } })).status).toBe(429);
    // Another address is another bucket.
    expect((await tool(h, "check_agent", { sid }, { "cf-connecting-ip": freshIp() })).isError).toBeUndefined();
  });

  it("with a key: the full score with reasons, counted against the operator's tier, not the address", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const reader = await createOperator();
    await call(`/admin/operators/${reader.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 3 } });
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": ip } });
    const result = await tool(h, "check_agent", { sid }, bearer(reader.key, { "cf-connecting-ip": ip }));
    expect(result.isError).toBeUndefined();
    const full = await (await h.request(`/score/${sid}`, { headers: bearer(reader.key) })).json();
    expect(result.structuredContent).toMatchObject({ view: "full", score: full, attestation: expect.any(String) });
    expect(result.structuredContent.score.reasons).toEqual(expect.any(Array));
    // Two calls made (one tool, one REST): the third is the last of the minute.
    expect((await tool(h, "get_score", { sid }, bearer(reader.key))).isError).toBeUndefined();
    const refused = await tool(h, "check_agent", { sid }, bearer(reader.key));
    expect(refused.structuredContent).toMatchObject({ status: 429, error: "Too many requests. Please try again later." });
  });

  it("for a suspended agent: status suspended (keyless and keyed), the score, no attestation, and the attestation route's text", async () => {
    const h = testApp({ now: T0 });
    const { owner, sid } = await agentOf();
    await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } });
    const result = await tool(h, "check_agent", { sid }, { "cf-connecting-ip": freshIp() });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ sid, status: "suspended", score: { status: "suspended" }, attestation: null, attestation_error: "Agent is suspended: no attestation is issued" });
    const keyed = await tool(h, "check_agent", { sid }, bearer(owner.key));
    expect(keyed.structuredContent).toMatchObject({ sid, view: "full", status: "suspended", score: { status: "suspended" }, attestation: null });
  });

  it("answers an unknown agent and a bad SID as the route does, and never lets an argument pick another route", async () => {
    const h = testApp({ now: T0 });
    const unknown = await tool(h, "check_agent", { sid: "SID-0x0000000000000000" }, { "cf-connecting-ip": freshIp() });
    expect(unknown).toMatchObject({ isError: true, structuredContent: { status: 404, error: "Agent not found" } });
    const { key } = await createOperator();
    for (const sid of ["..", "../../admin/operators", "SID-0x0000000000000000/../../me", "%2e%2e", "SID-0x0123456789ABCDEF", 42, ["SID-0x0000000000000000"]]) {
      for (const name of ["check_agent", "get_score", "get_report"]) {
        const result = await tool(h, name, { sid }, bearer(key));
        expect(result.structuredContent, `${name} ${JSON.stringify(sid)}`).toEqual({ status: 400, error: "Invalid SID format. Expected: SID-0x[16 hex chars]", request_id: expect.any(String) });
      }
    }
    expect((await tool(h, "check_agent", {})).structuredContent).toMatchObject({ status: 400, error: "Missing required fields: sid" });
  });
});

describe("keyed tools", () => {
  it("tell a missing, malformed, unknown or revoked key (401) and a missing scope (403) apart, with the routes' texts", async () => {
    const h = testApp({ now: T0 });
    const { owner, sid } = await agentOf();
    const none = await tool(h, "get_score", { sid });
    expect(none).toMatchObject({ isError: true, structuredContent: { status: 401, error: "Missing or invalid Authorization header. Use: Bearer sk_svc_..." } });
    const malformed = await tool(h, "get_report", { sid }, bearer("not-a-key"));
    expect(malformed.structuredContent).toMatchObject({ status: 401, error: "Invalid API key format" });
    const unknown = await tool(h, "report_transaction", { sid, transactionType: "payment", outcome: "success" }, bearer(`sk_svc_${"0".repeat(64)}`));
    expect(unknown.structuredContent).toMatchObject({ status: 401, error: "Invalid API key" });

    const narrow = (await (await call("/keys", { headers: bearer(owner.key), body: { scopes: ["agents:read"] } })).json()) as { key: { api_key: string } };
    const scoped = await tool(h, "report_transaction", { sid, transactionType: "payment", outcome: "success" }, bearer(narrow.key.api_key));
    expect(scoped).toMatchObject({ isError: true, structuredContent: { status: 403, error: "Forbidden: this API key lacks the transactions:write scope" } });
    expect(scoped.content[0].text).toBe("Forbidden: this API key lacks the transactions:write scope");
    expect((await tool(h, "get_score", { sid }, bearer(narrow.key.api_key))).isError).toBeUndefined();

    // Form B clients get Form B's codes, as from the routes.
    const formB = await tool(h, "report_transaction", { sid, transactionType: "payment", outcome: "success" }, bearer(narrow.key.api_key, { "api-version": "B" }));
    expect(formB.structuredContent).toEqual({ status: 403, error: { code: "insufficient_scope", message: "Forbidden: this API key lacks the transactions:write scope" }, request_id: expect.any(String) });
  });

  it("get_score and get_report answer the routes' bodies, in the client's form", async () => {
    const h = testApp({ now: T0 });
    const { owner, sid } = await agentOf();
    for (const [name, path] of [["get_score", `/score/${sid}`], ["get_report", `/report/${sid}`]]) {
      for (const form of ["A", "B"]) {
        const headers = bearer(owner.key, { "api-version": form });
        const result = await tool(h, name, { sid }, headers);
        expect(result.structuredContent, `${name} ${form}`).toEqual(await (await h.request(path, { headers })).json());
      }
    }
  });
});

describe("report_transaction", () => {
  afterEach(() => forgetSnapshot());

  it("records a report as POST /transactions does, and the MCP answer carries the D1 bookmark", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const reporter = await createOperator();
    // Credible, so that its report moves the score.
    await publishCredibility({ [reporter.id]: 1 }, T0);
    const { res, body } = await rpc(h, "tools/call", { name: "report_transaction", arguments: { sid, transactionType: "payment", outcome: "success", qualitySignal: 900 } }, bearer(reporter.key));
    const result = body.result as ToolResult;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({
      success: true,
      transaction_id: expect.any(Number),
      log_promise: expect.any(String),
      message: "Transaction recorded and scores updated",
      updated_scores: expect.objectContaining({ dimensions: expect.objectContaining({ quality: expect.any(Number) }) }),
    });
    expect(result.structuredContent.updated_scores.dimensions.quality).toBeGreaterThan(500);
    expect(res.headers.get("x-d1-bookmark")).toMatch(/SHARD_\d=/);
    const history = (await (await h.request(`/report/${sid}`, { headers: bearer(reporter.key) })).json()) as Json;
    expect(history.score_history.map((e: Json) => e.transaction_id)).toContain(result.structuredContent.transaction_id);
  });

  it("refuses bad arguments with the route's texts, as tool errors", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const { key } = await createOperator();
    const cases: [Json, string][] = [
      [{}, "Missing required fields: sid, transactionType, outcome"],
      [{ sid }, "Missing required fields: transactionType, outcome"],
      [{ sid, transactionType: "payment", outcome: "great" }, "Invalid outcome. Expected one of: success, partial, failure, timeout, error"],
      [{ sid, transactionType: "payment", outcome: "success", qualitySignal: 1001 }, "qualitySignal must be a number between 0 and 1000"],
      [{ sid, transactionType: "payment", outcome: "success", qualitySignal: "high" }, "qualitySignal must be a number between 0 and 1000"],
      [{ sid: "agent-7", transactionType: "payment", outcome: "success" }, "Invalid SID format. Expected: SID-0x[16 hex chars]"],
      [{ sid, transactionType: "x".repeat(101), outcome: "success" }, "transactionType must be at most 100 characters"],
      [{ sid, transactionType: "payment", outcome: "success", metadata: [1] }, "metadata must be a JSON object"],
      [{ sid, transactionType: "payment", outcome: "success", idempotency_key: "" }, "Idempotency-Key must be 1-255 characters"],
      [{ sid, transactionType: "payment", outcome: "success", idempotency_key: "k".repeat(256) }, "Idempotency-Key must be 1-255 characters"],
      [{ sid, transactionType: "payment", outcome: "success", idempotency_key: 7 }, "idempotency_key must be a string of printable ASCII characters"],
      [{ sid, transactionType: "payment", outcome: "success", idempotency_key: "a\r\nX-Injected: 1" }, "idempotency_key must be a string of printable ASCII characters"],
      [{ sid, transactionType: "payment", outcome: "success", idempotency_key: "ключ" }, "idempotency_key must be a string of printable ASCII characters"],
    ];
    for (const [args, text] of cases) {
      const result = await tool(h, "report_transaction", args, bearer(key));
      expect(result, JSON.stringify(args).slice(0, 80)).toMatchObject({ isError: true, content: [{ type: "text", text }], structuredContent: { status: 400, error: text } });
      // The same request sent to the route gets the same text (a key no header can carry has no REST twin).
      const restKey = args.idempotency_key;
      if (restKey === undefined || (typeof restKey === "string" && /^[\x20-\x7e]*$/.test(restKey))) {
        const rest = { ...args };
        const idempotencyKey = rest.idempotency_key as string | undefined;
        delete rest.idempotency_key;
        const res = await h.request("/transactions", { headers: bearer(key, idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }), body: rest });
        expect(await res.json(), "the route's own text").toMatchObject({ error: text });
      }
    }
    const count = await (await shardOf(sid)).prepare("SELECT count(*) AS n FROM transactions WHERE sid = ?").bind(sid).first<{ n: number }>();
    expect(count?.n).toBe(0);
  });

  it("shares idempotency with POST /transactions: one key, one report, whichever way it comes", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const { key } = await createOperator();
    const report = { sid, transactionType: "payment", outcome: "success", reliabilitySignal: 700 };
    const viaMcp = await tool(h, "report_transaction", { ...report, idempotency_key: "order-mcp-1" }, bearer(key));
    expect(viaMcp.isError).toBeUndefined();
    const viaRest = await h.request("/transactions", { headers: bearer(key, { "idempotency-key": "order-mcp-1" }), body: report });
    expect(viaRest.status).toBe(201);
    expect(await viaRest.json()).toEqual(viaMcp.structuredContent);
    const again = await tool(h, "report_transaction", { ...report, idempotency_key: "order-mcp-1" }, bearer(key));
    expect(again.structuredContent).toEqual(viaMcp.structuredContent);

    // The other way round: REST first, then MCP replays it.
    const first = await h.request("/transactions", { headers: bearer(key, { "idempotency-key": "order-rest-2" }), body: { ...report, outcome: "partial" } });
    const replay = await tool(h, "report_transaction", { ...report, outcome: "partial", idempotency_key: "order-rest-2" }, bearer(key));
    expect(replay.structuredContent).toEqual(await first.json());

    expect(await reportRows(sid)).toHaveLength(2);
    const different = await tool(h, "report_transaction", { ...report, outcome: "failure", idempotency_key: "order-mcp-1" }, bearer(key));
    expect(different.structuredContent).toMatchObject({ status: 422, error: "Idempotency-Key was already used with a different request" });
  });

  it("refuses a suspended agent with the route's 409", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const { key } = await createOperator();
    await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } });
    const result = await tool(h, "report_transaction", { sid, transactionType: "payment", outcome: "success" }, bearer(key));
    expect(result.structuredContent).toMatchObject({ status: 409, error: "Agent is suspended and accepts no transactions" });
  });
});

describe("verify_attestation", () => {
  async function attestationOf(h: App, sid: string) {
    const res = await h.request(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": freshIp() } });
    return ((await res.json()) as { attestation: string }).attestation;
  }

  it("says valid, with the claims and the key, for the service's own attestation", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const attestation = await attestationOf(h, sid);
    const result = await tool(h, "verify_attestation", { attestation, sid });
    expect(result.structuredContent).toEqual({ valid: true, reason: null, kid: "test-key-1", claims: expect.objectContaining({ iss: "http://trust.test", sub: sid, status: "active" }) });
  });

  it("says why not: tampered, expired, another agent, another issuer, not a JWS", async () => {
    const h = testApp({ now: T0 });
    const { sid } = await agentOf();
    const attestation = await attestationOf(h, sid);
    const [header, payload, signature] = attestation.split(".");
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const forged = btoa(JSON.stringify({ ...claims, composite_score: 999 })).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    const check = async (args: Json, app = h) => (await tool(app, "verify_attestation", args)).structuredContent;

    expect(await check({ attestation: `${header}.${forged}.${signature}` })).toEqual({ valid: false, reason: "the signature does not verify with the published key", kid: "test-key-1", claims: null });
    expect(await check({ attestation, sid: "SID-0x0000000000000000" })).toMatchObject({ valid: false, reason: `issued for ${sid}, not for SID-0x0000000000000000`, claims: { sub: sid } });
    expect(await check({ attestation: "hello" })).toMatchObject({ valid: false, reason: "not a compact JWS: three base64url parts separated by dots" });
    const later = testApp({ now: T0 + 15 * 60_000 });
    expect(await check({ attestation }, later)).toMatchObject({ valid: false, reason: `expired at ${new Date(T0 + 15 * 60_000).toISOString()}` });
    // A deployment under another name (its public origin) with the same keys.
    const elsewhere = testApp({ now: T0, env: { PUBLIC_ORIGIN: "https://other.example" } });
    expect(await check({ attestation }, elsewhere)).toMatchObject({ valid: false, reason: 'issued by "http://trust.test", not by this service (https://other.example)' });
  });

  it("refuses arguments it cannot check, as tool errors", async () => {
    const h = testApp({ now: T0 });
    expect((await tool(h, "verify_attestation", {})).structuredContent).toMatchObject({ status: 400, error: "Missing required fields: attestation" });
    expect((await tool(h, "verify_attestation", { attestation: 42 })).structuredContent).toMatchObject({ status: 400, error: "attestation must be a string" });
    expect((await tool(h, "verify_attestation", { attestation: "a".repeat(8193) })).structuredContent).toMatchObject({ status: 400, error: "attestation must be at most 8192 characters" });
    expect((await tool(h, "verify_attestation", { attestation: "a.b.c", sid: "nope" })).structuredContent).toMatchObject({ status: 400, error: "Invalid SID format. Expected: SID-0x[16 hex chars]" });
  });
});
