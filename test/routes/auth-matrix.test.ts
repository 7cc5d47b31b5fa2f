// Every keyed route against every kind of caller, in both wire forms: no key, a malformed key, an
// unknown key, a key lacking the route's scope, a key in its rotation grace (where the route needs
// a scope the grace took away), another operator's key (where the route is the owner's), and the
// right key. The routes come from the app's own OpenAPI document: a keyed route without a row here
// fails the test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../src/domain/errors";
import { GRACE_SCOPES, SCOPES, type Scope } from "../../src/domain/scopes";
import { accessOf } from "../../src/routes/openapi";
import { ADMIN, agentConfig, bearer, call, createOperator, freshIp, T_CALL, testApp } from "../helpers";
import { holdQueues, type HeldQueues } from "../queues";

type Form = "A" | "B";
interface Request {
  path: string;
  body?: unknown;
  /** The caller who may: the route's owner key unless the row says otherwise. */
  key?: string;
}
interface Refusal {
  status: number;
  code: ErrorCode;
  text: string;
}
interface Row {
  scope: Scope | null;
  /** The status the right key gets. */
  ok: number;
  /** What another operator's key gets, on routes of one operator's own things. */
  other?: Refusal;
  /** A request to the route; `fresh` when the right key will use it (it may consume what it names). */
  request: (w: World, fresh: boolean) => Promise<Request>;
}

const NOT_OWNER: Refusal = { status: 403, code: "forbidden", text: "Forbidden: you do not own this agent" };
const notFound = (text: string): Refusal => ({ status: 404, code: "not_found", text });

// ---------------------------------------------------------------------------------------------
// The world: three operators (the owner, a reporter, someone else), each with room in its limits.

interface World {
  h: ReturnType<typeof testApp>;
  owner: { id: number; key: string };
  reporter: { id: number; key: string };
  other: { id: number; key: string };
  /** The owner's key holding every scope but `scope`. */
  narrow: (scope: Scope) => Promise<string>;
  /** A key of the owner in its rotation grace. */
  grace: string;
  /** The challenge tokens the verification callback was sent, by SID. */
  tokens: Map<string, string>;
  /** One webhook of the owner that refused callers leave in place. */
  hook?: number;
}

let world: World;
// The fixtures' events stay in the test (never drained): no webhook delivery leaves it.
let queues: HeldQueues;
afterAll(() => queues.release());

async function operator() {
  const o = await createOperator({ verified: true });
  await call(`/admin/operators/${o.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100_000, rate_limit_per_day: 1_000_000 } });
  return o;
}

beforeAll(async () => {
  queues = holdQueues();
  const tokens = new Map<string, string>();
  const h = testApp({
    now: T_CALL,
    resolve: async () => ["93.184.216.34"],
    fetchOutbound: async (_url, init) => {
      const { challenge_token, sid } = JSON.parse(String(init?.body)) as { challenge_token: string; sid: string };
      tokens.set(sid, challenge_token);
      return new Response(null, { status: 204 });
    },
  });
  const [owner, reporter, other] = [await operator(), await operator(), await operator()];
  const issue = async (key: string, scopes: readonly Scope[]) =>
    ((await (await h.request("/keys", { headers: bearer(key), body: { scopes } })).json()) as { key: { api_key: string } }).key.api_key;
  const narrowKeys = new Map<Scope, string>();
  const spare = await issue(owner.key, SCOPES);
  expect((await h.request("/keys/rotate", { method: "POST", headers: bearer(spare) })).status).toBe(201);
  world = {
    h,
    owner,
    reporter,
    other,
    tokens,
    grace: spare,
    narrow: async (scope) => {
      if (!narrowKeys.has(scope)) narrowKeys.set(scope, await issue(owner.key, SCOPES.filter((s) => s !== scope)));
      return narrowKeys.get(scope)!;
    },
  };
});

// ---------------------------------------------------------------------------------------------
// Fixtures, made through the API as a client would.

async function json<T>(res: Response | Promise<Response>, status: number): Promise<T> {
  const answer = await res;
  if (answer.status !== status) throw new Error(`fixture: expected ${status}, got ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as T;
}

const agent = async (w: World) =>
  (await json<{ sid: string }>(w.h.request("/register", { headers: bearer(w.owner.key), body: { name: "Matrix", ...agentConfig } }), 201)).sid;

async function publicJwk() {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const { kty, crv, x } = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  return { kty, crv, x };
}

async function agentWithKey(w: World) {
  const sid = await agent(w);
  const added = await json<{ keys: { thumbprint: string }[] }>(w.h.request(`/agents/${sid}/keys`, { headers: bearer(w.owner.key), body: { jwk: await publicJwk() } }), 201);
  return { sid, thumbprint: added.keys[0].thumbprint };
}

async function reported(w: World) {
  const sid = await agent(w);
  const made = await json<{ transaction_id: number }>(w.h.request("/transactions", { headers: bearer(w.reporter.key), body: { sid, transactionType: "t", outcome: "failure" } }), 201);
  return made.transaction_id;
}

async function disputed(w: World) {
  const id = await reported(w);
  await json(w.h.request(`/transactions/${id}/dispute`, { headers: bearer(w.owner.key), body: { reason: "not us" } }), 201);
  return id;
}

const webhook = async (w: World) =>
  (await json<{ webhook: { id: number } }>(w.h.request("/webhooks", { headers: bearer(w.owner.key), body: { url: "https://hooks.example.com/matrix" } }), 201)).webhook.id;

async function deletable(w: World) {
  const made = await json<{ key: { id: number } }>(w.h.request("/keys", { headers: bearer(w.owner.key), body: { scopes: ["agents:read"] } }), 201);
  return made.key.id;
}

// ---------------------------------------------------------------------------------------------
// One row per keyed route.

const ROWS: Record<string, Row> = {
  "GET /me": { scope: null, ok: 200, request: async () => ({ path: "/me" }) },
  "POST /register": { scope: "agents:write", ok: 201, request: async () => ({ path: "/register", body: { name: "Matrix", ...agentConfig } }) },
  "POST /agents/{sid}/claim": {
    scope: "agents:write",
    ok: 200,
    request: async (w) => {
      const self = await json<{ sid: string; claim_token: string }>(
        w.h.request("/register/self", { headers: { "cf-connecting-ip": freshIp() }, body: { name: "Unclaimed", ...agentConfig } }),
        201,
      );
      return { path: `/agents/${self.sid}/claim`, body: { claim_token: self.claim_token } };
    },
  },
  "PUT /agents/{sid}/public-profile": {
    scope: "agents:write",
    ok: 200,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/agents/${await agent(w)}/public-profile`, body: { public_profile: true } }),
  },
  "POST /agents/{sid}/config": {
    scope: "agents:write",
    ok: 200,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/agents/${await agent(w)}/config`, body: agentConfig }),
  },
  "GET /score/{sid}": { scope: "agents:read", ok: 200, request: async (w) => ({ path: `/score/${await agent(w)}` }) },
  "GET /report/{sid}": { scope: "agents:read", ok: 200, request: async (w) => ({ path: `/report/${await agent(w)}` }) },
  "GET /agents/{sid}/transactions": {
    scope: "agents:read",
    ok: 200,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/agents/${await agent(w)}/transactions` }),
  },
  "GET /agents/{sid}/entries": {
    scope: "agents:read",
    ok: 200,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/agents/${await agent(w)}/entries` }),
  },
  "GET /agents/{sid}/log-keys": {
    scope: "agents:read",
    ok: 200,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/agents/${await agent(w)}/log-keys` }),
  },
  "POST /transactions/batch": {
    scope: "transactions:write",
    ok: 200,
    request: async (w) => ({ path: "/transactions/batch", body: { transactions: [{ sid: await agent(w), transactionType: "t", outcome: "success", idempotency_key: crypto.randomUUID() }] } }),
  },
  "POST /transactions": {
    scope: "transactions:write",
    ok: 201,
    request: async (w) => ({ path: "/transactions", body: { sid: await agent(w), transactionType: "t", outcome: "success" } }),
  },
  "POST /agents/{sid}/verify": {
    scope: "verify:write",
    ok: 202,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/agents/${await agent(w)}/verify`, body: { callbackUrl: "https://agent.example.com/callback" } }),
  },
  "POST /agents/{sid}/verify/confirm": {
    scope: "verify:write",
    ok: 200,
    other: NOT_OWNER,
    request: async (w, fresh) => {
      const sid = await agent(w);
      if (!fresh) return { path: `/agents/${sid}/verify/confirm`, body: { challenge_token: "0".repeat(64) } };
      await json(w.h.request(`/agents/${sid}/verify`, { headers: bearer(w.owner.key), body: { callbackUrl: "https://agent.example.com/callback" } }), 202);
      return { path: `/agents/${sid}/verify/confirm`, body: { challenge_token: w.tokens.get(sid) } };
    },
  },
  "POST /agents/{sid}/keys": {
    scope: "identity:write",
    ok: 201,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/agents/${await agent(w)}/keys`, body: { jwk: await publicJwk() } }),
  },
  "GET /agents/{sid}/keys": {
    scope: "identity:write",
    ok: 200,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/agents/${await agent(w)}/keys` }),
  },
  "DELETE /agents/{sid}/keys/{thumbprint}": {
    scope: "identity:write",
    ok: 200,
    other: NOT_OWNER,
    request: async (w) => {
      const { sid, thumbprint } = await agentWithKey(w);
      return { path: `/agents/${sid}/keys/${thumbprint}` };
    },
  },
  "POST /agents/{sid}/verify/signature/challenge": {
    scope: "identity:write",
    ok: 200,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/agents/${(await agentWithKey(w)).sid}/verify/signature/challenge`, body: {} }),
  },
  "POST /webhooks": { scope: "webhooks:write", ok: 201, request: async () => ({ path: "/webhooks", body: { url: "https://hooks.example.com/matrix" } }) },
  "GET /webhooks": { scope: null, ok: 200, request: async () => ({ path: "/webhooks" }) },
  "DELETE /webhooks/{id}": {
    scope: "webhooks:write",
    ok: 200,
    other: notFound("Webhook not found"),
    request: async (w, fresh) => ({ path: `/webhooks/${fresh ? await webhook(w) : (w.hook ??= await webhook(w))}` }),
  },
  "GET /webhooks/{id}/deliveries": {
    scope: null,
    ok: 200,
    other: notFound("Webhook not found"),
    request: async (w) => ({ path: `/webhooks/${(w.hook ??= await webhook(w))}/deliveries` }),
  },
  "POST /webhooks/{id}/test": {
    scope: "webhooks:write",
    ok: 200,
    other: notFound("Webhook not found"),
    request: async (w) => ({ path: `/webhooks/${(w.hook ??= await webhook(w))}/test`, body: {} }),
  },
  "POST /watches": { scope: "webhooks:write", ok: 201, request: async (w) => ({ path: "/watches", body: { sid: await agent(w) } }) },
  "GET /watches": { scope: null, ok: 200, request: async () => ({ path: "/watches" }) },
  "DELETE /watches/{sid}": {
    scope: "webhooks:write",
    ok: 200,
    other: notFound("Not watching this agent"),
    request: async (w) => {
      const sid = await agent(w);
      await json(w.h.request("/watches", { headers: bearer(w.owner.key), body: { sid } }), 201);
      return { path: `/watches/${sid}` };
    },
  },
  "POST /transactions/{id}/dispute": {
    scope: "disputes:write",
    ok: 201,
    other: NOT_OWNER,
    request: async (w) => ({ path: `/transactions/${await reported(w)}/dispute`, body: { reason: "not us" } }),
  },
  "GET /disputes": { scope: null, ok: 200, request: async () => ({ path: "/disputes" }) },
  "POST /disputes/{id}/respond": {
    scope: "disputes:write",
    ok: 200,
    other: notFound("Dispute not found"),
    request: async (w) => ({ path: `/disputes/${await disputed(w)}/respond`, body: { stand: true }, key: w.reporter.key }),
  },
  "POST /keys/rotate": {
    scope: "keys:write",
    ok: 201,
    // A fresh key of the owner each time: the right key's rotation puts the key it used in its grace.
    request: async (w) => ({
      path: "/keys/rotate",
      key: (await json<{ key: { api_key: string } }>(w.h.request("/keys", { headers: bearer(w.owner.key), body: { scopes: SCOPES } }), 201)).key.api_key,
    }),
  },
  "POST /keys": { scope: "keys:write", ok: 201, request: async () => ({ path: "/keys", body: { scopes: ["agents:read"] } }) },
  "GET /keys": { scope: null, ok: 200, request: async () => ({ path: "/keys" }) },
  "DELETE /keys/{id}": {
    scope: "keys:write",
    ok: 200,
    other: notFound("API key not found"),
    request: async (w) => ({ path: `/keys/${await deletable(w)}` }),
  },
};

// ---------------------------------------------------------------------------------------------
// The callers, and what each must get.

const RANDOM_KEY = `sk_svc_${"0123456789abcdef".repeat(4)}`;

interface Case {
  name: string;
  applies: (row: Row) => boolean;
  key: (row: Row, w: World, request: Request) => Promise<string | null>;
  expect: (row: Row) => Refusal | number;
}

const missingScope = (row: Row): Refusal => ({ status: 403, code: "insufficient_scope", text: `Forbidden: this API key lacks the ${row.scope} scope` });

const CASES: Case[] = [
  {
    name: "no key",
    applies: () => true,
    key: async () => null,
    expect: () => ({ status: 401, code: "missing_api_key", text: "Missing or invalid Authorization header. Use: Bearer sk_svc_..." }),
  },
  {
    name: "a malformed key",
    applies: () => true,
    key: async () => "not-a-key",
    expect: () => ({ status: 401, code: "invalid_api_key", text: "Invalid API key format" }),
  },
  {
    name: "an unknown key",
    applies: () => true,
    key: async () => RANDOM_KEY,
    expect: () => ({ status: 401, code: "invalid_api_key", text: "Invalid API key" }),
  },
  {
    name: "a key lacking the route's scope",
    applies: (row) => row.scope !== null,
    key: async (row, w) => w.narrow(row.scope!),
    expect: missingScope,
  },
  {
    name: "a key in its rotation grace",
    applies: (row) => row.scope !== null && !GRACE_SCOPES.includes(row.scope),
    key: async (_row, w) => w.grace,
    expect: missingScope,
  },
  {
    name: "another operator's key",
    applies: (row) => row.other !== undefined,
    key: async (_row, w) => w.other.key,
    expect: (row) => row.other!,
  },
  {
    name: "the right key",
    applies: () => true,
    key: async (_row, w, request) => request.key ?? w.owner.key,
    expect: (row) => row.ok,
  },
];

async function send(route: string, form: Form, key: string | null, request: Request): Promise<Response> {
  const method = route.split(" ")[0];
  const headers: Record<string, string> = { "api-version": form, "cf-connecting-ip": freshIp() };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  return world.h.request(request.path, { method, headers, body: method === "GET" || method === "DELETE" ? undefined : (request.body ?? {}) });
}

async function expectAnswer(res: Response, form: Form, expected: Refusal | number, where: string) {
  if (typeof expected === "number") {
    expect(res.status, `${where}: ${await res.clone().text()}`).toBe(expected);
    return;
  }
  expect(res.status, where).toBe(expected.status);
  const body = await res.json();
  const envelope = form === "A" ? { error: expected.text } : { error: { code: expected.code, message: expected.text } };
  expect(body, where).toEqual({ ...envelope, request_id: expect.any(String) });
}

describe("the auth matrix", () => {
  it("has one row for every keyed route of the OpenAPI document, with the scope its middleware asks for", async () => {
    const doc = (await (await call("/openapi.json")).json()) as { paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>> };
    const keyed = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        // A key is optional only on /mcp, whose tools answer refusals as tool results (test/routes/mcp.test.ts).
        .filter(([, op]) => op.security?.some((s) => "bearerAuth" in s) && !op.security.some((s) => Object.keys(s).length === 0))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(keyed.sort()).toEqual(Object.keys(ROWS).sort());
    for (const route of keyed) {
      const [method, path] = route.split(" ");
      expect(accessOf({ method: method.toLowerCase(), path }), route).toEqual({ kind: "key", scope: ROWS[route].scope });
    }
  });

  describe.each(Object.entries(ROWS))("%s", (route, row) => {
    it.each(["A", "B"] as const)("answers every caller as it should, in Form %s", async (form) => {
      for (const c of CASES.filter((c) => c.applies(row))) {
        const right = c.name === "the right key";
        const request = await row.request(world, right);
        const res = await send(route, form, await c.key(row, world, request), request);
        await expectAnswer(res, form, c.expect(row), `${route}, ${c.name}, Form ${form}`);
      }
    });
  });
});
