// examples/flow.ts against the service under wrangler dev, through the typed client: the whole flow
// works, and every answer on the way (successes and refusals, Form A and Form B) is what the served
// document of its form declares.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { createTrustClient, createTrustClientB, FORM_B } from "../../clients/typescript";
import { runFlow } from "../../examples/flow";
import { Conformance } from "./conformance";
import { service, servedDocument } from "./service";

const run = promisify(execFile);

let flow: Awaited<ReturnType<typeof runFlow>>;
let formA: Conformance;
const problemsA: string[] = [];
const lines: string[] = [];

beforeAll(async () => {
  formA = new Conformance(await servedDocument("/openapi.json"));
  flow = await runFlow({ baseUrl: service.url, adminToken: service.adminToken, middleware: [formA.middleware(problemsA)], log: (l) => lines.push(l) });
});

describe("examples/flow.ts", () => {
  it("applies, approves, registers, reports, reads the score and verifies the attestation", () => {
    expect(lines.map((l) => l.slice(0, 2))).toEqual(["1.", "2.", "3.", "4.", "4.", "4.", "5.", "6."]);
    expect(flow.claims).toMatchObject({ iss: service.url, sub: flow.sid, composite_score: flow.score.composite_score, status: "active" });
    expect(flow.score.composite_score).toBeGreaterThan(500);
  });

  it("got only answers /openapi.json declares, with their headers", async () => {
    const client = createTrustClient({ baseUrl: service.url, token: flow.apiKey });
    client.use(formA.middleware(problemsA));
    const anonymous = createTrustClient({ baseUrl: service.url });
    anonymous.use(formA.middleware(problemsA));
    expect((await client.GET("/score/{sid}", { params: { path: { sid: "SID-0x0000000000000000" } } })).response.status).toBe(404);
    expect((await anonymous.GET("/score/{sid}", { params: { path: { sid: flow.sid } } })).response.status).toBe(401);
    expect((await client.GET("/report/{sid}", { params: { path: { sid: flow.sid } } })).response.status).toBe(200);
    expect((await client.GET("/me")).response.status).toBe(200);
    expect((await client.GET("/agents/{sid}/transactions", { params: { path: { sid: flow.sid } } })).response.status).toBe(200);
    expect((await anonymous.GET("/score/{sid}/public", { params: { path: { sid: flow.sid } } })).response.status).toBe(200);
    expect((await anonymous.GET("/badge/{sid}.json", { params: { path: { sid: flow.sid } } })).response.status).toBe(200);
    // @ts-expect-error: a body without its required fields, as a careless client might send
    expect((await client.POST("/transactions", { body: { sid: flow.sid } })).error).toMatchObject({ error: "Missing required fields: transactionType, outcome" });
    expect(problemsA).toEqual([]);
    const operations = new Set(formA.checked.map((c) => c.operation));
    expect(operations.size).toBeGreaterThanOrEqual(12);
  });

  it("runs as npm run example", async () => {
    const { stdout } = await run(join("node_modules", ".bin", "tsx"), ["examples/flow.ts", "--url", service.url, "--admin-token", service.adminToken]);
    expect(stdout).toMatch(/^6\. attestation verified with key /m);
  });
});

describe("a Form B client", () => {
  it("gets only answers /openapi-b.json declares", async () => {
    const formB = new Conformance(await servedDocument("/openapi-b.json"));
    const problems: string[] = [];
    const client = createTrustClientB({ baseUrl: service.url, token: flow.apiKey });
    client.use(formB.middleware(problems));
    const header = FORM_B;

    const registered = await client.POST("/register", { params: { header }, body: { name: "Form B Agent", model: "claude-sonnet", capabilities: ["search"] } });
    expect(registered.data).toMatchObject({ status: "active", initial_score: 500 });
    const sid = registered.data!.sid;
    const reported = await client.POST("/transactions", { params: { header }, body: { sid, transactionType: "payment", outcome: "success", financialSignal: 800 } });
    expect(reported.data?.updated_scores.dimensions.financial).toBeLessThan(1);
    const score = await client.GET("/score/{sid}", { params: { header, path: { sid } } });
    expect(score.data?.dimensions.stability).toBeGreaterThan(0.5);
    expect((await client.GET("/report/{sid}", { params: { header, path: { sid } } })).data?.score_history).toHaveLength(1);
    expect((await client.GET("/score/{sid}/public", { params: { header, path: { sid } } })).response.status).toBe(200);
    expect((await client.GET("/score/{sid}", { params: { header, path: { sid: "SID-0x0000000000000000" } } })).error).toMatchObject({
      error: { code: "not_found", message: "Agent not found" },
    });
    const stranger = createTrustClientB({ baseUrl: service.url, token: "sk_svc_nonsense" });
    stranger.use(formB.middleware(problems));
    expect((await stranger.GET("/me", { params: { header } })).error).toMatchObject({ error: { code: "invalid_api_key" } });
    expect(problems).toEqual([]);
    expect(formB.checked.length).toBe(7);
  });
});
