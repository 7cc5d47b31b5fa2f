// Public reads from a web page on another origin: fetch() in Chromium from a page served by a tiny
// Node server on another port. The browser enforces CORS, so these pass only when the service sends
// Access-Control-Allow-Origin on its public responses.
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, ready, service } from "./chromium.mjs";

/** Applies, approves with the admin token, registers one agent with the new key; returns its SID. */
async function registerAgent(name) {
  const call = async (method, path, { token, body } = {}) => {
    const headers = { "content-type": "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${service.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const email = `browser-${Date.now()}@example.com`;
  await call("POST", "/apply", { body: { name: "Browser Test Operator", email } });
  const { applications } = await call("GET", "/admin/applications?status=pending", { token: service.adminToken });
  const application = applications.find((a) => a.email === email);
  const { api_key } = await call("POST", `/admin/applications/${application.id}/approve`, { token: service.adminToken });
  const agent = await call("POST", "/register", {
    token: api_key,
    body: { name, modelProvider: "anthropic", modelName: "claude-sonnet", tools: ["search"] },
  });
  return agent.sid;
}

/** fetch() inside the page: status and JSON body, or the error the browser raised. */
const fetchInPage = (page, url) =>
  page.evaluate(async (target) => {
    try {
      const res = await fetch(target);
      return { status: res.status, body: await res.json() };
    } catch (error) {
      return { error: String(error) };
    }
  }, url);

describe.skipIf(!ready)("public reads from a page on another origin", () => {
  let browser;
  let server;
  let sid;

  beforeAll(async () => {
    browser = await launch();
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>Another origin</title><p>A page that reads the trust service.</p>");
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    sid = await registerAgent("Browser Bot");
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  });

  /** A fresh page of the other origin (same host, another port). */
  async function page() {
    const opened = await browser.newPage();
    await opened.goto(`http://127.0.0.1:${server.address().port}/`);
    return opened;
  }

  it("reads GET /score/{sid}/public with fetch()", async () => {
    const result = await fetchInPage(await page(), `${service.url}/score/${sid}/public`);
    expect(result.error, "fetch() from another origin failed: does /score/{sid}/public send Access-Control-Allow-Origin?").toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ sid, agent_name: "Browser Bot", composite_score: expect.any(Number), recommendation: expect.any(String) });
  });

  it("reads the badge's JSON twin with fetch()", async () => {
    const result = await fetchInPage(await page(), `${service.url}/badge/${sid}.json`);
    expect(result.error, "fetch() from another origin failed: does /badge/{sid}.json send Access-Control-Allow-Origin?").toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ schemaVersion: 1, label: "trust", message: expect.stringMatching(/^\d+ · (clear|review|caution)$/) });
  });
});
