// The service under `wrangler dev`, the runtime it ships to, rather than the test harness: there each
// request has its own I/O context, and an object made in one request (a Durable Object stub, a
// stream) cannot be used from another. Most workerd tests call the app inside one test's context, so
// they cannot see such a mistake (test/routes/isolate-caches.test.ts, through the Worker's own fetch
// handler, is the exception).
import { describe, expect, it } from "vitest";
import { ready, service } from "./chromium.mjs";

async function call(method, path, { token, body } = {}) {
  const headers = { "content-type": "application/json", "cf-connecting-ip": "192.0.2.77" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${service.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text.startsWith("{") ? JSON.parse(text) : null };
}

async function operator(name) {
  const email = `${name.toLowerCase().replace(/ /g, "-")}-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`;
  expect((await call("POST", "/apply", { body: { name, email } })).status).toBe(201);
  const { json } = await call("GET", "/admin/applications?status=pending&limit=100", { token: service.adminToken });
  const application = json.applications.find((a) => a.email === email);
  const approved = await call("POST", `/admin/applications/${application.id}/approve`, { token: service.adminToken });
  expect(approved.status).toBe(200);
  return approved.json;
}

describe.skipIf(!ready)("the service under wrangler dev", () => {
  it("serves every change of an agent from separate requests: reports, configuration, disputes, reads", async () => {
    const owner = await operator("Runtime Owner");
    const reporter = await operator("Runtime Reporter");
    const registered = await call("POST", "/register", {
      token: owner.api_key,
      body: { name: "Runtime agent", modelProvider: "anthropic", modelName: "claude-sonnet", tools: ["search"] },
    });
    expect(registered.status).toBe(201);
    const { sid } = registered.json;
    const ids = [];
    for (let i = 0; i < 4; i++) {
      const res = await call("POST", "/transactions", { token: reporter.api_key, body: { sid, transactionType: "task", outcome: i === 2 ? "failure" : "success" } });
      expect(res.status).toBe(201);
      ids.push(res.json.transaction_id);
    }
    expect((await call("POST", `/agents/${sid}/config`, { token: owner.api_key, body: { modelProvider: "anthropic", modelName: "claude-opus" } })).status).toBe(200);
    const opened = await call("POST", `/transactions/${ids[2]}/dispute`, { token: owner.api_key, body: { reason: "not ours" } });
    expect(opened.status).toBe(201);
    const answered = await call("POST", `/disputes/${ids[2]}/respond`, { token: reporter.api_key, body: { stand: false } });
    expect(answered.status).toBe(200);
    expect(answered.json.dispute.outcome).toBe("withdrawn");
    for (const path of [`/score/${sid}`, `/report/${sid}`, `/agents/${sid}/transactions`]) {
      expect((await call("GET", path, { token: owner.api_key })).status).toBe(200);
    }
    for (const path of [`/score/${sid}/public`, `/badge/${sid}.json`, `/score/${sid}/attestation`, "/.well-known/jwks.json"]) {
      expect((await call("GET", path)).status).toBe(200);
    }
  });
});
