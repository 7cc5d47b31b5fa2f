// The story of a stolen key: what an old key can still do during its rotation grace, and what it
// can no longer do; how an operator that lost its keys gets a new one from an admin.
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/domain/scopes";
import { ADMIN, agentConfig, bearer, createOperator, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:00:30Z");
const DAY = 86_400_000;

type Issued = { key: { id: number; api_key: string; scopes: string[] } };

async function rotated() {
  const h = testApp({ now: T0 });
  const operator = await createOperator();
  const res = await h.request("/keys/rotate", { method: "POST", headers: bearer(operator.key) });
  expect(res.status).toBe(201);
  const fresh = ((await res.json()) as Issued).key;
  return { h, stolen: operator.key, fresh, operator };
}

describe("a stolen key in its rotation grace", () => {
  it("keeps running traffic: reads, registrations, reports", async () => {
    const { h, stolen } = await rotated();
    const reg = await h.request("/register", { headers: bearer(stolen), body: { name: "Still runs", ...agentConfig } });
    expect(reg.status).toBe(201);
    const { sid } = (await reg.json()) as { sid: string };
    expect((await h.request(`/score/${sid}`, { headers: bearer(stolen) })).status).toBe(200);
    expect((await h.request("/transactions", { headers: bearer(stolen), body: { sid, transactionType: "t", outcome: "success" } })).status).toBe(201);
  });

  it("is refused everywhere once the grace ends, while the new key keeps every scope", async () => {
    const { h, stolen, fresh } = await rotated();
    expect(fresh.scopes).toEqual([...SCOPES]);
    h.clock.now = T0 + DAY;
    expect((await h.request("/me", { headers: bearer(stolen) })).status).toBe(401);
    expect((await h.request("/keys", { headers: bearer(fresh.api_key), body: { scopes: ["agents:read"] } })).status).toBe(201);
  });

  it("answers 403 with the X-RateLimit headers, and the refusal was counted", async () => {
    const { h, stolen } = await rotated();
    const before = await h.request("/me", { headers: bearer(stolen) });
    const remaining = Number(before.headers.get("x-ratelimit-remaining"));
    const refused = await h.request("/keys", { headers: bearer(stolen), body: { scopes: ["agents:read"] } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("60");
    expect(Number(refused.headers.get("x-ratelimit-remaining"))).toBe(remaining - 1);
    expect(refused.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
  });
});

describe("narrow keys", () => {
  it("a read-only key cannot revoke the operator's full key", async () => {
    const h = testApp({ now: T0 });
    const { key } = await createOperator();
    const readOnly = ((await (await h.request("/keys", { headers: bearer(key), body: { scopes: ["agents:read"] } })).json()) as Issued).key;
    const list = (await (await h.request("/keys", { headers: bearer(key) })).json()) as { keys: { id: number }[] };
    const res = await h.request(`/keys/${list.keys[0].id}`, { method: "DELETE", headers: bearer(readOnly.api_key) });
    expect(res.status).toBe(403);
    expect((await h.request("/me", { headers: bearer(key) })).status).toBe(200);
  });

  it("a keys:write-only key revokes only keys whose scopes are within its own, in both forms", async () => {
    const h = testApp({ now: T0 });
    const { key } = await createOperator();
    const issue = async (scopes: string[]) => ((await (await h.request("/keys", { headers: bearer(key), body: { scopes } })).json()) as Issued).key;
    const manager = await issue(["keys:write"]);
    const peer = await issue(["keys:write"]);
    const full = ((await (await h.request("/keys", { headers: bearer(key) })).json()) as { keys: { id: number }[] }).keys[0];
    for (const form of ["A", "B"] as const) {
      const res = await h.request(`/keys/${full.id}`, { method: "DELETE", headers: bearer(manager.api_key, { "api-version": form }) });
      expect(res.status).toBe(403);
      const text = "Forbidden: this API key lacks the agents:read scope";
      expect(await res.json()).toEqual(form === "A" ? { error: text, request_id: expect.any(String) } : { error: { code: "insufficient_scope", message: text }, request_id: expect.any(String) });
    }
    expect((await h.request("/me", { headers: bearer(key) })).status).toBe(200);
    // A key of the same scopes, and the key itself, are within its scopes.
    expect((await h.request(`/keys/${peer.id}`, { method: "DELETE", headers: bearer(manager.api_key) })).status).toBe(200);
    expect((await h.request(`/keys/${manager.id}`, { method: "DELETE", headers: bearer(manager.api_key) })).status).toBe(200);
  });

  it("rotation gives the new key the calling key's own scopes, never more", async () => {
    const h = testApp({ now: T0 });
    const { key } = await createOperator();
    const narrow = ((await (await h.request("/keys", { headers: bearer(key), body: { scopes: ["keys:write", "agents:read"] } })).json()) as Issued).key;
    const res = await h.request("/keys/rotate", { method: "POST", headers: bearer(narrow.api_key) });
    expect(res.status).toBe(201);
    const rotatedKey = ((await res.json()) as Issued).key;
    expect([...rotatedKey.scopes].sort()).toEqual(["agents:read", "keys:write"]);
    expect((await h.request("/register", { headers: bearer(rotatedKey.api_key), body: { name: "No", ...agentConfig } })).status).toBe(403);
  });
});

describe("the Bearer scheme", () => {
  it("is matched case-insensitively (RFC 9110)", async () => {
    const h = testApp({ now: T0 });
    const { key } = await createOperator();
    for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
      expect((await h.request("/me", { headers: { authorization: `${scheme} ${key}` } })).status).toBe(200);
    }
    expect((await h.request("/admin/applications", { headers: { authorization: "bearer test-admin-token" } })).status).toBe(200);
  });
});

describe("admin key recovery", () => {
  it("issues a key with every scope and, when asked, revokes every other key at once", async () => {
    const h = testApp({ now: T0 });
    const { id, key } = await createOperator();
    const narrow = ((await (await h.request("/keys", { headers: bearer(key), body: { scopes: ["agents:read"] } })).json()) as Issued).key;
    const res = await h.request(`/admin/operators/${id}/keys`, { headers: ADMIN, body: { revoke_existing: true } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { api_key: string; delivery: string; revoked: number; key_prefix: string };
    expect(body).toMatchObject({ delivery: "response", revoked: 2, operator_id: id });
    expect(body.key_prefix).toBe(body.api_key.slice(7, 15));
    expect((await h.request("/me", { headers: bearer(key) })).status).toBe(401);
    expect((await h.request("/me", { headers: bearer(narrow.api_key) })).status).toBe(401);
    const minted = await h.request("/keys", { headers: bearer(body.api_key), body: { scopes: [...SCOPES] } });
    expect(minted.status).toBe(201);
  });

  it("keeps the other keys unless asked, and 404s an unknown operator", async () => {
    const h = testApp({ now: T0 });
    const { id, key } = await createOperator();
    const res = await h.request(`/admin/operators/${id}/keys`, { headers: ADMIN, body: {} });
    expect(((await res.json()) as { revoked: number }).revoked).toBe(0);
    expect((await h.request("/me", { headers: bearer(key) })).status).toBe(200);
    expect((await h.request("/admin/operators/999999/keys", { headers: ADMIN, body: {} })).status).toBe(404);
  });
});

describe("key delivery", () => {
  it("without e-mail and without RETURN_KEYS_IN_RESPONSES, approval and recovery answer 503 and issue nothing", async () => {
    const h = testApp({ now: T0, env: { RETURN_KEYS_IN_RESPONSES: undefined } });
    const email = `nodelivery-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await h.request("/apply", { body: { name: "No Delivery", email }, headers: { "cf-connecting-ip": "192.0.2.77" } });
    const { applications } = (await (await h.request("/admin/applications?status=pending&limit=200", { headers: ADMIN })).json()) as {
      applications: { id: number; email: string }[];
    };
    const application = applications.find((a) => a.email === email)!;
    const approve = await h.request(`/admin/applications/${application.id}/approve`, { method: "POST", headers: ADMIN });
    expect(approve.status).toBe(503);
    const after = await h.env.DB.prepare("SELECT status FROM applications WHERE id = ?").bind(application.id).first<{ status: string }>();
    expect(after?.status).toBe("pending");
    expect(await h.env.DB.prepare("SELECT count(*) AS n FROM operators WHERE email = ?").bind(email).first("n")).toBe(0);

    const { id } = await createOperator();
    const keysBefore = await h.env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE operator_id = ?").bind(id).first("n");
    const recover = await h.request(`/admin/operators/${id}/keys`, { headers: ADMIN, body: { revoke_existing: true } });
    expect(recover.status).toBe(503);
    expect(await h.env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE operator_id = ?").bind(id).first("n")).toBe(keysBefore);
  });

  it("e-mails a recovery key and leaves it out of the response; a failed e-mail issues nothing", async () => {
    const sent: { to: string; text: string }[] = [];
    let fail = false;
    const EMAIL = { send: async (m: { to: string; text: string }) => (fail ? Promise.reject(new Error("smtp down")) : (sent.push(m), { messageId: "m" })) };
    const h = testApp({ now: T0, env: { EMAIL, EMAIL_FROM: "keys@trust.example", RETURN_KEYS_IN_RESPONSES: undefined } });
    const { id, email } = await createOperator();
    const res = await h.request(`/admin/operators/${id}/keys`, { headers: ADMIN, body: {} });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { delivery: string; api_key?: string };
    expect(body.delivery).toBe("email");
    expect(body.api_key).toBeUndefined();
    expect(sent).toHaveLength(1);
    expect(sent[0].to).toBe(email);
    const mailed = /sk_svc_[0-9a-f]{64}/.exec(sent[0].text)![0];
    expect((await h.request("/me", { headers: bearer(mailed) })).status).toBe(200);

    fail = true;
    const keysBefore = await h.env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE operator_id = ?").bind(id).first("n");
    const failed = await h.request(`/admin/operators/${id}/keys`, { headers: ADMIN, body: { revoke_existing: true } });
    expect(failed.status).toBe(503);
    expect(await h.env.DB.prepare("SELECT count(*) AS n FROM api_keys WHERE operator_id = ?").bind(id).first("n")).toBe(keysBefore);
    expect((await h.request("/me", { headers: bearer(mailed) })).status).toBe(200);
  });
});

describe("the admin secret", () => {
  it("accepts ADMIN_TOKEN_PREVIOUS until ADMIN_TOKEN_PREVIOUS_UNTIL, then only the new token", async () => {
    const until = new Date(T0 + 2 * DAY).toISOString();
    const h = testApp({ now: T0, env: { ADMIN_TOKEN: "new-admin-token-0123", ADMIN_TOKEN_PREVIOUS: "test-admin-token", ADMIN_TOKEN_PREVIOUS_UNTIL: until } });
    const list = (token: string) => h.request("/admin/applications?limit=1", { headers: bearer(token) });
    expect((await list("new-admin-token-0123")).status).toBe(200);
    expect((await list("test-admin-token")).status).toBe(200);
    h.clock.now = T0 + 2 * DAY;
    expect((await list("test-admin-token")).status).toBe(401);
    expect((await list("new-admin-token-0123")).status).toBe(200);
  });

  it("refuses a token that is a prefix, an extension or another length of the secret with 401, never a 500", async () => {
    const h = testApp({ now: T0 });
    for (const token of ["test-admin-toke", "test-admin-token0", "t", "x".repeat(500), "TEST-ADMIN-TOKEN"]) {
      const res = await h.request("/admin/operators", { headers: bearer(token) });
      expect(res.status, token).toBe(401);
      expect(await res.json()).toEqual({ error: "Invalid admin token", request_id: expect.any(String) });
    }
    expect((await h.request("/admin/operators", { headers: bearer("test-admin-token") })).status).toBe(200);
  });

  it("disables only the admin routes when a secret is missing or invalid", async () => {
    for (const env of [
      { ADMIN_TOKEN: "short" },
      { ADMIN_TOKEN: undefined },
      { ADMIN_TOKEN_PREVIOUS: "old-admin-token-0123", ADMIN_TOKEN_PREVIOUS_UNTIL: new Date(T0 + 8 * DAY).toISOString() },
      { ADMIN_TOKEN_PREVIOUS: "old-admin-token-0123" },
    ]) {
      const h = testApp({ now: T0, env });
      const admin = await h.request("/admin/applications", { headers: ADMIN });
      expect(admin.status).toBe(503);
      expect(await admin.json()).toEqual({ error: "Admin interface is not configured", request_id: expect.any(String) });
      expect((await h.request("/health")).status).toBe(200);
      expect((await h.request("/badge/SID-0x0123456789abcdef.svg", { headers: { "cf-connecting-ip": "192.0.2.200" } })).status).toBe(404);
      expect((await h.request("/apply", { body: { name: "" }, headers: { "cf-connecting-ip": "192.0.2.201" } })).status).toBe(400);
    }
  });
});
