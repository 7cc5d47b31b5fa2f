import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import apiDoc from "../../docs/api.md?raw";
import { ADMIN, bearer, call, createOperator, freshIp, testApp } from "../helpers";

describe("POST /apply", () => {
  it("accepts an application with 201", async () => {
    const res = await call("/apply", { body: { name: "Acme", email: "Ops@Acme.example", company: "Acme", reason: "agents" } });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ message: expect.any(String) });
  });

  it.each([
    [{ email: "a@b.example" }, "Name is required"],
    [{ name: "", email: "a@b.example" }, "Name is required"],
    [{ name: "   ", email: "a@b.example" }, "Name is required"],
    [{ name: "A", email: "not-an-email" }, "Invalid email format"],
    [{ name: "A" }, "Invalid email format"],
    [{ name: "A", email: "a@b" }, "Invalid email format"],
  ])("refuses %j with 400 %s", async (body, message) => {
    const res = await call("/apply", { body, headers: { "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: message, request_id: expect.any(String) });
  });

  it("refuses a second application for the same e-mail with 409, whatever its case", async () => {
    const ip = freshIp();
    await call("/apply", { body: { name: "A", email: "dup@example.com" }, headers: { "cf-connecting-ip": ip } });
    const res = await call("/apply", { body: { name: "B", email: "DUP@example.com" }, headers: { "cf-connecting-ip": ip } });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: "An application with this email already exists.", request_id: expect.any(String) });
  });

  it("allows 5 requests per hour per IP, the 6th gets 429 with Retry-After, and counts IPs apart", async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      // Invalid requests count too: every request is counted.
      const res = await call("/apply", { body: { name: "" }, headers: { "cf-connecting-ip": ip } });
      expect(res.status).toBe(400);
    }
    const sixth = await call("/apply", { body: { name: "X", email: "six@example.com" }, headers: { "cf-connecting-ip": ip } });
    expect(sixth.status).toBe(429);
    expect(await sixth.json()).toEqual({ error: "Too many requests. Please try again later.", request_id: expect.any(String) });
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(sixth.headers.get("retry-after"))).toBeLessThanOrEqual(3600);

    const other = await call("/apply", { body: { name: "Y", email: "other-ip@example.com" }, headers: { "cf-connecting-ip": freshIp() } });
    expect(other.status).toBe(201);
  });

  it("ignores X-Forwarded-For for the client address", async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      await call("/apply", { body: {}, headers: { "cf-connecting-ip": ip, "x-forwarded-for": `10.0.0.${i}` } });
    }
    const res = await call("/apply", { body: {}, headers: { "cf-connecting-ip": ip, "x-forwarded-for": "10.9.9.9" } });
    expect(res.status).toBe(429);
  });
});

describe("bad input never gives a 500", () => {
  it("malformed JSON gives 400 Invalid JSON body", async () => {
    const res = await call("/apply", { body: "{not json", headers: { "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "Invalid JSON body", request_id: expect.any(String) });
  });

  it("a JSON body sent without a JSON content type is still read", async () => {
    const res = await call("/apply", {
      body: JSON.stringify({ name: "Curl", email: "curl@example.com" }),
      headers: { "cf-connecting-ip": freshIp(), "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(201);
  });

  it("wrong types give 400", async () => {
    const res = await call("/apply", { body: { name: 42, email: "x@example.com" }, headers: { "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(400);
    const arr = await call("/apply", { body: [1, 2], headers: { "cf-connecting-ip": freshIp() } });
    expect(arr.status).toBe(400);
  });

  it("bodies over 64 KiB give 413 and store nothing", async () => {
    const email = "big@example.com";
    const res = await call("/apply", {
      body: { name: "Big", email, reason: "x".repeat(70 * 1024) },
      headers: { "cf-connecting-ip": freshIp() },
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "Request body too large", request_id: expect.any(String) });
    const row = await env.DB.prepare("SELECT count(*) AS n FROM applications WHERE email = ?").bind(email).first<{ n: number }>();
    expect(row?.n).toBe(0);
  });

  it("unknown routes give 404 JSON", async () => {
    const res = await call("/nope");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({ error: "Not found", request_id: expect.any(String) });
  });
});

describe("admin", () => {
  it("refuses requests without the admin token, or with an operator key", async () => {
    const { key } = await createOperator();
    for (const headers of [{}, { authorization: "Bearer wrong-token" }, bearer(key), { authorization: "test-admin-token" }]) {
      const res = await call("/admin/applications", { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: "Invalid admin token", request_id: expect.any(String) });
    }
    const approve = await call("/admin/applications/1/approve", { method: "POST", headers: bearer(key) });
    expect(approve.status).toBe(401);
  });

  it("approves once: the key comes back in the response without e-mail, a second approval is 409", async () => {
    await call("/apply", { body: { name: "Approve Me", email: "approve@example.com" }, headers: { "cf-connecting-ip": freshIp() } });
    const { applications } = (await (await call("/admin/applications?status=pending", { headers: ADMIN })).json()) as {
      applications: { id: number; email: string; status: string }[];
    };
    const app = applications.find((a) => a.email === "approve@example.com")!;
    expect(app.status).toBe("pending");
    const res = await call(`/admin/applications/${app.id}/approve`, { method: "POST", headers: ADMIN });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { operator: { id: number; email: string; tier: string }; delivery: string; api_key: string };
    expect(body.delivery).toBe("response");
    expect(body.api_key).toMatch(/^sk_svc_[0-9a-f]{64}$/);
    expect(body.operator).toMatchObject({ email: "approve@example.com", tier: "free", verified: false });
    const again = await call(`/admin/applications/${app.id}/approve`, { method: "POST", headers: ADMIN });
    expect(again.status).toBe(409);
  });

  it("rejects, and sets tier and verified", async () => {
    await call("/apply", { body: { name: "Reject", email: "reject@example.com" }, headers: { "cf-connecting-ip": freshIp() } });
    const { applications } = (await (await call("/admin/applications", { headers: ADMIN })).json()) as {
      applications: { id: number; email: string }[];
    };
    const app = applications.find((a) => a.email === "reject@example.com")!;
    const rejected = await call(`/admin/applications/${app.id}/reject`, { method: "POST", headers: ADMIN });
    expect(rejected.status).toBe(200);
    expect(((await rejected.json()) as { application: { status: string } }).application.status).toBe("rejected");

    const { id } = await createOperator();
    const set = await call(`/admin/operators/${id}`, { headers: ADMIN, body: { tier: "growth", verified: true } });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { operator: object }).operator).toMatchObject({ tier: "growth", verified: true });
    const bad = await call(`/admin/operators/${id}`, { headers: ADMIN, body: { tier: "platinum" } });
    expect(bad.status).toBe(400);
    const missing = await call(`/admin/operators/999999`, { headers: ADMIN, body: { verified: true } });
    expect(missing.status).toBe(404);
  });
});

describe("API keys and authentication", () => {
  it("stores only the SHA-256 hash and the 8-hex prefix of a key", async () => {
    const { key, id } = await createOperator();
    const rows = await env.DB.prepare("SELECT * FROM api_keys WHERE operator_id = ?").bind(id).all<Record<string, unknown>>();
    expect(rows.results).toHaveLength(1);
    const row = rows.results[0];
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
    const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
    expect(row.key_hash).toBe(hex);
    expect(row.prefix).toBe(key.slice(7, 15));
    const dump = JSON.stringify(
      await Promise.all(
        ["api_keys", "operators", "applications"].map((t) => env.DB.prepare(`SELECT * FROM ${t}`).all()),
      ),
    );
    expect(dump).not.toContain(key);
    expect(dump).not.toContain(key.slice(7));
  });

  it("answers the spec's three 401 texts in order", async () => {
    const missing = await call("/me");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({ error: "Missing or invalid Authorization header. Use: Bearer sk_svc_...", request_id: expect.any(String) });
    const notBearer = await call("/me", { headers: { authorization: "Token abc" } });
    expect(await notBearer.json()).toEqual({ error: "Missing or invalid Authorization header. Use: Bearer sk_svc_...", request_id: expect.any(String) });
    const format = await call("/me", { headers: bearer("pk_live_" + "0".repeat(64)) });
    expect(format.status).toBe(401);
    expect(await format.json()).toEqual({ error: "Invalid API key format", request_id: expect.any(String) });
    const unknown = await call("/me", { headers: bearer("sk_svc_" + "0".repeat(64)) });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: "Invalid API key", request_id: expect.any(String) });
  });

  it("GET /me returns the operator with its key prefix and an empty agents list", async () => {
    const { key, email } = await createOperator({ name: "Me Corp" });
    const res = await call("/me", { headers: bearer(key) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { operator: Record<string, unknown>; agents: unknown[] };
    expect(body.operator).toEqual({
      id: expect.any(Number),
      name: "Me Corp",
      email,
      operator_score: 500,
      verified: false,
      api_key_prefix: key.slice(7, 15),
      created_at: expect.any(String),
    });
    expect(body.agents).toEqual([]);
    expect(res.headers.get("x-ratelimit-limit")).toBe("60");
  });
});

describe("OpenAPI", () => {
  it("serves an OpenAPI 3.1 document listing the routes", async () => {
    const res = await call("/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    for (const path of ["/apply", "/me", "/register", "/score/{sid}", "/admin/applications/{id}/approve"]) {
      expect(doc.paths).toHaveProperty([path]);
    }
    expect(await (await call("/")).json()).toMatchObject({ docs: "/docs", openapi: "/openapi.json" });
  });

  it("answers GET / exactly as docs/api.md shows it", async () => {
    const shown = /### GET \/\n\n`200 (\{.*\})`\./.exec(apiDoc)?.[1];
    expect(shown).toBeDefined();
    expect(await (await call("/")).json()).toEqual(JSON.parse(shown!));
  });
});

describe("approval e-mail", () => {
  it("e-mails the key once through the send_email binding and leaves it out of the response", async () => {
    const sent: { to: unknown; from: unknown; subject: string; text?: string }[] = [];
    const EMAIL = { send: async (message: (typeof sent)[number]) => (sent.push(message), { messageId: "m1" }) };
    const h = testApp({ env: { EMAIL, EMAIL_FROM: "keys@trust.example", RETURN_KEYS_IN_RESPONSES: undefined } });
    const ask = (path: string, init: RequestInit) =>
      h.request(path, { method: init.method, headers: init.headers as Record<string, string>, body: init.body as string | undefined });
    await ask("/apply", { method: "POST", headers: { "cf-connecting-ip": freshIp() }, body: JSON.stringify({ name: "Mailed", email: "mailed@example.com" }) });
    const { applications } = (await (await ask("/admin/applications?status=pending", { headers: ADMIN })).json()) as {
      applications: { id: number; email: string }[];
    };
    const app1 = applications.find((a) => a.email === "mailed@example.com")!;
    const res = await ask(`/admin/applications/${app1.id}/approve`, { method: "POST", headers: ADMIN });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { delivery: string; api_key?: string };
    expect(body.delivery).toBe("email");
    expect(body.api_key).toBeUndefined();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: "mailed@example.com", from: "keys@trust.example" });
    const key = /sk_svc_[0-9a-f]{64}/.exec(sent[0].text ?? "")?.[0];
    expect(key).toBeDefined();
    expect((await call("/me", { headers: bearer(key!) })).status).toBe(200);
  });
});
