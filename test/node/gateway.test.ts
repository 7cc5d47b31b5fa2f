// The gateway end to end: the service, a stub origin and gateways with different policies, each
// under `wrangler dev` on a free port (the origin is a Node server). Agents sign with the
// web-bot-auth signer (examples/gateway-agent.mjs); the gateways check them offline against the
// service's JWKS and status lists.
import { createServer, type Server } from "node:http";
import { parseDictionary, Token } from "structured-headers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signatureHeaders } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";
import { fetchAttestation, gatewayHeaders } from "../../examples/gateway-agent.mjs";
import { newAgentKey } from "../../examples/identity-web-bot-auth.mjs";
import { startGateway, startService } from "../wrangler-dev.mjs";

type Started = { url: string; stop: () => Promise<void> };
interface Agent {
  sid: string;
  key: Awaited<ReturnType<typeof newAgentKey>>;
  attestation: string;
}

let service: Started & { adminToken: string };
let origin: Server;
let originUrl: string;
/** REFUSE caution, suspended, gone; nonces required; invalid refused; unsigned passes. */
let strict: Started;
/** Refreshes on every use and tolerates no stale copy: closed (nonces as shipped), and open (nonces off). */
let closed: Started;
let open: Started;
/** The shipped policy, its nonce store out of reach; and the same with ON_NONCE_STORE_DOWN = "open". */
let storeDown: Started;
let storeDownOpen: Started;
const received: { path: string; trust: string | undefined }[] = [];
const agents: Record<"good" | "caution" | "suspended", Agent> = {} as never;

const json = (res: Response) => res.json() as Promise<Record<string, any>>;

async function call(path: string, init: { method?: string; key?: string; admin?: boolean; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.admin) headers.authorization = `Bearer ${service.adminToken}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  // Bounded, so a request that never answers fails here, named, not as the hook's timeout.
  return fetch(`${service.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(60_000),
  });
}

const operatorIds = new Map<string, number>();

async function operator(name: string): Promise<string> {
  const email = `${name.toLowerCase().replace(/[^a-z]+/g, "-")}-${Date.now()}@example.com`;
  expect((await call("/apply", { body: { name, email } })).status).toBe(201);
  const { applications } = await json(await call("/admin/applications?status=pending", { admin: true }));
  const application = applications.find((a: { email: string }) => a.email === email);
  const approved = await json(await call(`/admin/applications/${application.id}/approve`, { method: "POST", admin: true }));
  await call(`/admin/operators/${approved.operator.id}`, { admin: true, body: { rate_limit_per_minute: 10_000 } });
  operatorIds.set(approved.api_key, approved.operator.id);
  return approved.api_key;
}

/** An agent of `owner` at identity level 2 (its key registered and proven, as examples/identity-web-bot-auth.mjs does). */
async function provenAgent(owner: string): Promise<Omit<Agent, "attestation">> {
  const { sid } = await json(await call("/register", { key: owner, body: { name: "Gateway Bot", modelProvider: "anthropic", modelName: "claude" } }));
  const key = await newAgentKey();
  expect((await call(`/agents/${sid}/keys`, { key: owner, body: { jwk: key.publicJwk } })).status).toBe(201);
  const { nonce } = await json(await call(`/agents/${sid}/verify/signature/challenge`, { method: "POST", key: owner }));
  const url = `${service.url}/agents/${sid}/verify/signature`;
  const now = Date.now();
  const proof = await signatureHeaders(new Request(url, { method: "POST" }), await Ed25519Signer.fromJWK(key.privateJwk), {
    created: new Date(now),
    expires: new Date(now + 60_000),
    nonce,
    components: ["@method", "@authority", "@path"],
  });
  expect((await fetch(url, { method: "POST", headers: { ...proof } })).status).toBe(200);
  return { sid, key };
}

/** The value at the agent's index of its status list, as the service serves the list now. */
async function listed(attestation: string): Promise<number> {
  const { status_list } = JSON.parse(Buffer.from(attestation.split(".")[1], "base64url").toString());
  const token = await (await fetch(status_list.uri)).text();
  const { lst } = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()).status_list;
  const { inflateSync } = await import("node:zlib");
  const bytes = inflateSync(Buffer.from(lst, "base64url"));
  const bit = status_list.idx * 2;
  return (bytes[bit >> 3] >> (bit & 7)) & 3;
}

/** A request through `gateway` to /offers, with these headers. */
const through = (gateway: Started, headers: Record<string, string>, path = "/offers") => fetch(`${gateway.url}${path}`, { headers });
const signedFor = (gateway: Started, agent: Agent, options: { now?: number } = {}) => gatewayHeaders(`${gateway.url}/offers`, agent.key.privateJwk, agent.attestation, options);

beforeAll(async () => {
  origin = createServer((req, res) => {
    received.push({ path: req.url ?? "", trust: req.headers["agent-trust"] as string | undefined });
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as { port: number }).port}`;
  // Its own service: its own rate limits, and status lists rebuilt every second.
  service = await startService("gateway", { vars: { STATUS_LIST_REBUILD_S: "1" } });
  const base = { TRUST_SERVICE: service.url, ORIGIN: originUrl };
  // One after another: five `wrangler dev` starting at once on a small machine is where this file
  // once outran its hook's 300 s in CI; and each is assigned as it comes up, so afterAll stops it.
  strict = await startGateway("strict", { ...base, REFUSE: "caution,suspended,gone", NONCES: "required", INVALID: "refuse", UNSIGNED: "pass" });
  closed = await startGateway("closed", { ...base, REFRESH_S: "0", MAX_STALE_S: "0", ON_STALE: "closed" });
  open = await startGateway("open", { ...base, REFRESH_S: "0", MAX_STALE_S: "0", ON_STALE: "open", NONCES: "off" });
  storeDown = await startGateway("store-down", base, { nonceStoreDown: true });
  storeDownOpen = await startGateway("store-down-open", { ...base, ON_NONCE_STORE_DOWN: "open" }, { nonceStoreDown: true });

  const owner = await operator("Owner");
  const reporters = [await operator("Reporter One"), await operator("Reporter Two")];
  for (const name of ["good", "caution", "suspended"] as const) agents[name] = { ...(await provenAgent(owner)), attestation: "" };
  // Caution: two independent reporters the admins name as anchors (the credibility job run, so they
  // are credible), every report a failure.
  expect((await call("/admin/model/anchors", { method: "PUT", admin: true, body: { operators: reporters.map((r) => operatorIds.get(r)!) } })).status).toBe(200);
  expect((await json(await call("/admin/model/credibility/run", { admin: true, body: { force: true } }))).status).toBe("published");
  for (const reporter of reporters) {
    for (let i = 0; i < 6; i++) {
      const failure = { sid: agents.caution.sid, transactionType: "purchase", outcome: "failure", reliabilitySignal: 0, qualitySignal: 0, securitySignal: 0, financialSignal: 0 };
      expect((await call("/transactions", { key: reporter, body: failure })).status).toBe(201);
    }
  }
  expect((await json(await call(`/score/${agents.caution.sid}`, { key: owner }))).recommendation).toBe("caution");
  for (const agent of Object.values(agents)) agent.attestation = await fetchAttestation(service.url, agent.sid);
  // Suspended after its attestation was issued: only the status list says so.
  expect((await call(`/admin/agents/${agents.suspended.sid}`, { admin: true, body: { status: "suspended" } })).status).toBe(200);
  // The events reach the lists within seconds; bounded polling, then every gateway starts from lists that know.
  for (let i = 0; i < 60 && ((await listed(agents.suspended.attestation)) !== 2 || (await listed(agents.caution.attestation)) !== 3); i++) {
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(await listed(agents.suspended.attestation)).toBe(2);
  expect(await listed(agents.caution.attestation)).toBe(3);
}, 300_000);

afterAll(async () => {
  await Promise.all([strict, closed, open, storeDown, storeDownOpen, service].filter(Boolean).map((s) => s.stop()));
  await new Promise((resolve) => origin?.close(resolve));
});

describe("the gateway", () => {
  it("forwards a good agent with Agent-Trust (RFC 9651: rec with score, level and sid), never a copy the client sent", async () => {
    received.length = 0;
    const res = await through(strict, { ...(await signedFor(strict, agents.good)), "Agent-Trust": 'rec=clear;score=999;level=2;sid="SID-0x0000000000000001"' });
    expect(res.status).toBe(200);
    expect(received).toHaveLength(1);
    const trust = parseDictionary(received[0].trust!);
    const [rec, facts] = trust.get("rec") as [Token, Map<string, unknown>];
    expect(rec.toString()).toBe("review");
    expect(Object.fromEntries(facts)).toEqual({ score: 500, level: 2, sid: agents.good.sid });
    expect(received[0].trust).toBe(`rec=review;score=500;level=2;sid="${agents.good.sid}"`);
  });

  it("passes an unsigned request unmarked (this policy), dropping a forged Agent-Trust", async () => {
    received.length = 0;
    const res = await through(strict, { "Agent-Trust": 'rec=clear;score=999;level=2;sid="SID-0x0000000000000001"' });
    expect(res.status).toBe(200);
    expect(received).toEqual([{ path: "/offers", trust: undefined }]);
  });

  it("answers 403 to a caution agent, and to one the status list shows suspended though its attestation says active", async () => {
    received.length = 0;
    const caution = await through(strict, await signedFor(strict, agents.caution));
    expect(caution.status).toBe(403);
    expect(await caution.json()).toEqual({ error: "agents whose standing is caution are not admitted" });
    expect(JSON.parse(Buffer.from(agents.suspended.attestation.split(".")[1], "base64url").toString()).status).toBe("active");
    const suspended = await through(strict, await signedFor(strict, agents.suspended));
    expect(suspended.status).toBe(403);
    expect(await suspended.json()).toEqual({ error: "agents whose standing is suspended are not admitted" });
    expect(received).toEqual([]);
  });

  it("refuses a replayed request (nonces required here), an expired signature and one living over 60 seconds", async () => {
    const headers = await signedFor(strict, agents.good);
    expect((await through(strict, headers)).status).toBe(200);
    const replay = await through(strict, headers);
    expect(replay.status).toBe(403);
    expect(await replay.json()).toEqual({ error: "the nonce was already used" });
    const expired = await through(strict, await signedFor(strict, agents.good, { now: Date.now() - 120_000 }));
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as { error: string }).error).toMatch(/expired/);
    const signer = await Ed25519Signer.fromJWK(agents.good.key.privateJwk);
    const now = Date.now();
    const long = await signatureHeaders(new Request(`${strict.url}/offers`), signer, { created: new Date(now), expires: new Date(now + 120_000), components: ["@method", "@authority", "@path"] });
    const tooLong = await through(strict, { ...(await signedFor(strict, agents.good)), ...long });
    expect(tooLong.status).toBe(403);
    expect(await tooLong.json()).toEqual({ error: "expires − created is more than 60 seconds" });
  });

  it("refuses a wrong-key signature and an attestation of another agent", async () => {
    const thief = await newAgentKey();
    // Signed by another key, sent with the agent's own Agent-Key: keyid names the thief's key.
    const signer = await Ed25519Signer.fromJWK(thief.privateJwk);
    const now = Date.now();
    const forged = await signatureHeaders(new Request(`${strict.url}/offers`), signer, { created: new Date(now), expires: new Date(now + 30_000), components: ["@method", "@authority", "@path"] });
    const wrongKey = await through(strict, { ...(await signedFor(strict, agents.good)), ...forged });
    expect(wrongKey.status).toBe(403);
    expect(await wrongKey.json()).toEqual({ error: "keyid is not the thumbprint of Agent-Key" });
    // The thief signs properly with its own key but carries the good agent's attestation.
    const borrowed = await through(strict, await gatewayHeaders(`${strict.url}/offers`, thief.privateJwk, agents.good.attestation));
    expect(borrowed.status).toBe(403);
    expect(await borrowed.json()).toEqual({ error: "the attestation is not of the signing key (cnf.jkt)" });
    // The caution agent signs with its own key and carries the good agent's attestation.
    const other = await through(strict, await gatewayHeaders(`${strict.url}/offers`, agents.caution.key.privateJwk, agents.good.attestation));
    expect(other.status).toBe(403);
    expect(await other.json()).toEqual({ error: "the attestation is not of the signing key (cnf.jkt)" });
    // A signature made for another host.
    const elsewhere = await through(strict, await gatewayHeaders("https://elsewhere.example/offers", agents.good.key.privateJwk, agents.good.attestation));
    expect(elsewhere.status).toBe(403);
  });
});

describe("what a signature binds", () => {
  it("refuses a signature sent to another path or with another method, and one that does not cover method, host and path", async () => {
    received.length = 0;
    // Signed for GET /offers, sent to /admin: @path is covered, so the signature base differs.
    const pathSwapped = await through(strict, await signedFor(strict, agents.good), "/admin");
    expect(pathSwapped.status).toBe(403);
    expect(await pathSwapped.json()).toEqual({ error: "the signature does not verify" });
    // Signed for GET, sent as POST.
    const methodSwapped = await fetch(`${strict.url}/offers`, { method: "POST", headers: await signedFor(strict, agents.good), body: "{}" });
    expect(methodSwapped.status).toBe(403);
    expect(await methodSwapped.json()).toEqual({ error: "the signature does not verify" });
    // A signature over less would verify on another path or method: made for GET /offers, sent as POST /admin.
    const signer = await Ed25519Signer.fromJWK(agents.good.key.privateJwk);
    for (const components of [["@authority"], ["@authority", "@path"], ["@method", "@authority"], ["@method", "@path"]]) {
      const now = Date.now();
      const narrow = await signatureHeaders(new Request(`${strict.url}/offers`), signer, { created: new Date(now), expires: new Date(now + 30_000), components });
      const res = await fetch(`${strict.url}/admin`, { method: "POST", headers: { ...(await signedFor(strict, agents.good)), ...narrow }, body: "{}" });
      expect(res.status, components.join(" ")).toBe(403);
      expect(await res.json()).toEqual({ error: "the signature must cover @method, @authority and @path (or @target-uri)" });
    }
    // @target-uri stands for @path (it holds the path, and more).
    const now = Date.now();
    const wide = await signatureHeaders(new Request(`${strict.url}/offers`), signer, { created: new Date(now), expires: new Date(now + 30_000), components: ["@method", "@authority", "@target-uri"] });
    expect((await through(strict, { ...(await signedFor(strict, agents.good)), ...wide })).status).toBe(200);
    expect(received.map((r) => r.path)).toEqual(["/offers"]);
  });
});

describe("nonces", () => {
  it("are single use as shipped (no NONCES in the policy): a replayed request is refused", async () => {
    const headers = await signedFor(closed, agents.good);
    expect((await through(closed, headers)).status).toBe(200);
    const replay = await through(closed, headers);
    expect(replay.status).toBe(403);
    expect(await replay.json()).toEqual({ error: "the nonce was already used" });
  });

  it("are not checked where the policy says NONCES = off: the replay is admitted", async () => {
    received.length = 0;
    const headers = await signedFor(open, agents.good);
    expect((await through(open, headers)).status).toBe(200);
    expect((await through(open, headers)).status).toBe(200);
    expect(received.map((r) => r.trust)).toEqual([`rec=review;score=500;level=2;sid="${agents.good.sid}"`, `rec=review;score=500;level=2;sid="${agents.good.sid}"`]);
  });

  it("whose store cannot be reached refuse a signed request (503) by default, and admit it where the policy says open", async () => {
    received.length = 0;
    const refused = await through(storeDown, await signedFor(storeDown, agents.good));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ error: "replay protection cannot be checked right now" });
    expect(received).toEqual([]);
    // Unsigned requests never need the store.
    expect((await through(storeDown, {})).status).toBe(200);
    const admitted = await through(storeDownOpen, await signedFor(storeDownOpen, agents.good));
    expect(admitted.status).toBe(200);
    expect(received.map((r) => r.trust)).toEqual([undefined, `rec=review;score=500;level=2;sid="${agents.good.sid}"`]);
  });
});

describe("a stale JWKS", () => {
  it("is refreshed while the service answers; past the limit without it, fails closed (503) or open (unmarked), per policy", async () => {
    received.length = 0;
    expect((await through(closed, await signedFor(closed, agents.good))).status).toBe(200);
    expect((await through(open, await signedFor(open, agents.good))).status).toBe(200);
    expect(received.map((r) => r.trust)).toEqual([`rec=review;score=500;level=2;sid="${agents.good.sid}"`, `rec=review;score=500;level=2;sid="${agents.good.sid}"`]);
    // The service goes away: the keys the gateways hold are now past their limit (0 s here).
    await service.stop();
    received.length = 0;
    const failedClosed = await through(closed, await signedFor(closed, agents.good));
    expect(failedClosed.status).toBe(503);
    expect(await failedClosed.json()).toEqual({ error: "agent trust cannot be checked right now" });
    const failedOpen = await through(open, await signedFor(open, agents.good));
    expect(failedOpen.status).toBe(200);
    expect(received).toEqual([{ path: "/offers", trust: undefined }]);
  });
});
