// The MCP server under `wrangler dev`, through the official MCP TypeScript SDK client (Client and
// StreamableHTTPClientTransport): the tools it lists, each tool called, refusals as tool errors, the
// public limit, and one idempotency key shared by MCP and REST. Then the A2A extension as a relying
// party in Node reads it: in an AgentCard of the A2A SDK, verified with jose against its JWKS.
import { AgentCard, type AgentCard as AgentCardType } from "@a2a-js/sdk";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { service } from "./service";

type Json = Record<string, any>;

let addresses = 0;
/** A client address of its own (TEST-NET-2), so public limits of one test never touch another's. */
const freshIp = () => `198.51.100.${++addresses}`;

async function api(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${service.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", "cf-connecting-ip": freshIp(), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function newOperator(): Promise<string> {
  const email = `mcp-${crypto.randomUUID().slice(0, 8)}@example.com`;
  expect((await api("/apply", { body: { name: "MCP Ops", email } })).status).toBe(201);
  const admin = { authorization: `Bearer ${service.adminToken}` };
  const pending = await api("/admin/applications?status=pending&limit=200", { headers: admin });
  const application = (pending.body.applications as Json[]).find((a) => a.email === email)!;
  const approved = await api(`/admin/applications/${application.id}/approve`, { method: "POST", headers: admin });
  return approved.body.api_key as string;
}

const clients: Client[] = [];
/** An MCP client connected to /mcp with these HTTP headers on every request. */
async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "trust-node-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Json) => (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent: Json };

let key: string;
let sid: string;

beforeAll(async () => {
  key = await newOperator();
  const registered = await api("/register", { headers: { authorization: `Bearer ${key}` }, body: { name: "MCP Agent", modelProvider: "anthropic", modelName: "claude-sonnet" } });
  sid = registered.body.sid;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

describe("the MCP server, through the official SDK client", () => {
  it("initializes and lists the five tools with their input schemas", async () => {
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: "agent-trust-service" });
    expect(client.getInstructions()).toContain("check_agent");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["check_agent", "get_report", "get_score", "report_transaction", "verify_attestation"]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description).toBeTruthy();
    }
    expect(tools.find((t) => t.name === "report_transaction")!.inputSchema.required).toEqual(["sid", "transactionType", "outcome"]);
  });

  it("calls each tool", async () => {
    const anonymous = await connect({ "cf-connecting-ip": freshIp() });
    const keyed = await connect({ authorization: `Bearer ${key}`, "cf-connecting-ip": freshIp() });

    const checked = await call(anonymous, "check_agent", { sid });
    expect(checked.isError).toBeFalsy();
    expect(checked.structuredContent).toMatchObject({ sid, view: "public", score: { sid, recommendation: expect.any(String) }, attestation: expect.any(String) });
    const verified = await call(anonymous, "verify_attestation", { attestation: checked.structuredContent.attestation, sid });
    expect(verified.structuredContent).toMatchObject({ valid: true, reason: null, claims: { iss: service.url, sub: sid } });

    const full = await call(keyed, "check_agent", { sid });
    expect(full.structuredContent).toMatchObject({ view: "full", score: { reasons: expect.any(Array) } });
    const score = await call(keyed, "get_score", { sid });
    expect(score.structuredContent).toMatchObject({ sid, composite_score: expect.any(Number), reasons: expect.any(Array) });
    const reported = await call(keyed, "report_transaction", { sid, transactionType: "search", outcome: "success", qualitySignal: 850 });
    expect(reported.structuredContent).toMatchObject({ success: true, transaction_id: expect.any(Number) });
    const report = await call(keyed, "get_report", { sid });
    expect(report.structuredContent.score_history.map((e: Json) => e.transaction_id)).toContain(reported.structuredContent.transaction_id);
  });

  it("answers a bad argument with a tool error carrying the route's text", async () => {
    const keyed = await connect({ authorization: `Bearer ${key}` });
    const bad = await call(keyed, "report_transaction", { sid, transactionType: "search", outcome: "great" });
    expect(bad.isError).toBe(true);
    expect(bad.content).toEqual([{ type: "text", text: "Invalid outcome. Expected one of: success, partial, failure, timeout, error" }]);
    expect(bad.structuredContent).toMatchObject({ status: 400 });
    const badSid = await call(keyed, "get_score", { sid: "../me" });
    expect(badSid.structuredContent).toMatchObject({ status: 400, error: "Invalid SID format. Expected: SID-0x[16 hex chars]" });
  });

  it("tells a missing key (401) and a key without the scope (403) apart", async () => {
    const anonymous = await connect({ "cf-connecting-ip": freshIp() });
    const missing = await call(anonymous, "get_score", { sid });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ status: 401, error: "Missing or invalid Authorization header. Use: Bearer sk_svc_..." });

    const narrow = await api("/keys", { headers: { authorization: `Bearer ${key}` }, body: { scopes: ["agents:read"] } });
    const reader = await connect({ authorization: `Bearer ${narrow.body.key.api_key}`, "api-version": "B" });
    const refused = await call(reader, "report_transaction", { sid, transactionType: "search", outcome: "success" });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ status: 403, error: { code: "insufficient_scope", message: "Forbidden: this API key lacks the transactions:write scope" } });
  });

  it("holds the public limit: the 6th keyless check in an hour from one address is refused", async () => {
    const client = await connect({ "cf-connecting-ip": freshIp() });
    for (let i = 0; i < 5; i++) expect((await call(client, "check_agent", { sid })).isError, `check ${i + 1}`).toBeFalsy();
    const sixth = await call(client, "check_agent", { sid });
    expect(sixth.isError).toBe(true);
    expect(sixth.structuredContent).toMatchObject({ status: 429, error: "Too many requests. Please try again later.", retry_after: expect.any(Number) });
  });

  it("makes one report of an MCP call and a REST call with the same idempotency key", async () => {
    const client = await connect({ authorization: `Bearer ${key}` });
    const report = { sid, transactionType: "payment", outcome: "partial", financialSignal: 420 };
    const idempotencyKey = `node-${crypto.randomUUID()}`;
    const viaMcp = await call(client, "report_transaction", { ...report, idempotency_key: idempotencyKey });
    expect(viaMcp.isError).toBeFalsy();
    const viaRest = await api("/transactions", { headers: { authorization: `Bearer ${key}`, "idempotency-key": idempotencyKey }, body: report });
    expect(viaRest.status).toBe(201);
    expect(viaRest.body).toEqual(viaMcp.structuredContent);
    const listed = await api(`/agents/${sid}/transactions`, { headers: { authorization: `Bearer ${key}` } });
    expect((listed.body.transactions as Json[]).filter((t) => t.transaction_id === viaMcp.structuredContent.transaction_id)).toHaveLength(1);
    expect((listed.body.transactions as Json[]).filter((t) => t.transaction_type === "payment" && t.outcome === "partial")).toHaveLength(1);
  });
});

describe("the A2A extension, read by a relying party", () => {
  it("rides in an A2A SDK AgentCard and its attestation verifies against its jwks_uri", async () => {
    const { status, body: extension } = await api(`/agents/${sid}/a2a-extension`);
    expect(status).toBe(200);
    const card: AgentCardType = AgentCard.fromJSON({
      name: "MCP Agent",
      description: "An agent that shows its trust score",
      supportedInterfaces: [{ url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      version: "1.0.0",
      capabilities: { extensions: [extension] },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
    });
    const published = AgentCard.fromJSON(JSON.parse(JSON.stringify(AgentCard.toJSON(card))));
    const carried = published.capabilities!.extensions[0];
    expect(carried.uri).toBe(`${service.url}/a2a/extensions/trust-attestation/v1`);
    const params = carried.params as { sid: string; attestation: string; jwks_uri: string };
    const { payload } = await jwtVerify(params.attestation, createRemoteJWKSet(new URL(params.jwks_uri)), {
      issuer: new URL(carried.uri).origin,
      subject: params.sid,
      typ: "trust-attestation+jwt",
    });
    expect(payload).toMatchObject({ sub: sid, status: "active", composite_score: expect.any(Number) });
  });
});
