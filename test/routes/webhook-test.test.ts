// Trying a webhook endpoint: POST /webhooks/{id}/test sends a signed ping through the path of every
// delivery, and loopback endpoints for local development (ALLOW_LOOPBACK_WEBHOOKS), both ways.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { deliveriesFor } from "../../src/db/webhooks";
import type { AgentEvent } from "../../src/domain/events";
import type { Env } from "../../src/env";
import { consumeDeliveries, type DeliveryMessage } from "../../src/queues/deliveries";
import { bearer, createOperator, testApp } from "../helpers";

interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** Endpoints answering `status` by host (204 otherwise), DNS per host (public otherwise), every call recorded. */
function network(status: Record<string, number> = {}, dns: Record<string, string[]> = {}) {
  const received: Received[] = [];
  const resolve = async (host: string) => dns[host] ?? ["93.184.216.34"];
  const fetchOutbound = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    received.push({ url, headers: Object.fromEntries(new Headers(init?.headers)), body: String(init?.body) });
    return new Response(null, { status: status[new URL(url).hostname] ?? 204 });
  }) as typeof fetch;
  return { received, resolve, fetchOutbound };
}

const T0 = Date.parse("2026-11-21T10:20:30Z");
const LOCAL = { ALLOW_LOOPBACK_WEBHOOKS: "true", PUBLIC_ORIGIN: "http://127.0.0.1:8787" };

type Delivery = { id: number; event_id: string; event_type: string; status: string; attempts: number; last_status_code: number | null; last_error: string | null };

async function register(h: ReturnType<typeof testApp>, key: string, url: string) {
  const res = await h.request("/webhooks", { headers: bearer(key), body: { url } });
  return { res, body: (await res.json()) as { webhook: { id: number }; secret: string; error?: string } };
}

const ping = (h: ReturnType<typeof testApp>, key: string, id: number) => h.request(`/webhooks/${id}/test`, { method: "POST", headers: bearer(key) });

afterEach(() => vi.restoreAllMocks());

/** The event when the delivery's Standard Webhooks signature is the secret's for its id, its timestamp (the frozen clock's) and its body. */
function signedEvent(secret: string, sent: Received, at = T0) {
  expect(sent.headers["webhook-timestamp"]).toBe(String(Math.floor(at / 1000)));
  expect(sent.headers["webhook-signature"]).toBe(new Webhook(secret).sign(sent.headers["webhook-id"], new Date(at), sent.body));
  return JSON.parse(sent.body) as unknown;
}

describe("POST /webhooks/{id}/test", () => {
  it("sends a ping signed per Standard Webhooks, answers the delivery, and lists it with the endpoint's deliveries", async () => {
    const net = network();
    const h = testApp({ now: T0, ...net });
    const owner = await createOperator();
    const { body: created } = await register(h, owner.key, "https://hooks.example.com/trust");
    const res = await ping(h, owner.key, created.webhook.id);
    expect(res.status).toBe(200);
    const { delivery } = (await res.json()) as { delivery: Delivery };
    expect(delivery).toMatchObject({ event_type: "ping", status: "delivered", attempts: 1, last_status_code: 204, last_error: null });
    expect(net.received).toHaveLength(1);
    const sent = net.received[0];
    expect(sent.url).toBe("https://hooks.example.com/trust");
    expect(sent.headers["webhook-id"]).toBe(delivery.event_id);
    expect(signedEvent(created.secret, sent)).toEqual({
      type: "ping",
      timestamp: new Date(T0).toISOString(),
      data: { webhook_id: created.webhook.id, message: expect.any(String) },
    });
    const listed = (await (await h.request(`/webhooks/${created.webhook.id}/deliveries`, { headers: bearer(owner.key) })).json()) as { deliveries: Delivery[] };
    expect(listed.deliveries).toEqual([delivery]);
  });

  it("tries once and never retries: a failing endpoint's ping is dead with its status; one the guard refuses is never called", async () => {
    const net = network({ "down.example.com": 500 });
    const dns: Record<string, string[]> = {};
    const h = testApp({ now: T0, resolve: async (host) => dns[host] ?? net.resolve(host), fetchOutbound: net.fetchOutbound });
    const owner = await createOperator();
    const down = (await register(h, owner.key, "https://down.example.com/x")).body.webhook.id;
    const failed = (await (await ping(h, owner.key, down)).json()) as { delivery: Delivery };
    expect(failed.delivery).toMatchObject({ status: "dead", attempts: 1, last_status_code: 500, last_error: "HTTP 500" });
    expect(net.received).toHaveLength(1);

    // Public when registered, inward now (DNS rebinding): the guard checks the URL at every attempt.
    const moved = (await register(h, owner.key, "https://moved.example.com/x")).body.webhook.id;
    dns["moved.example.com"] = ["10.0.0.7"];
    const refused = (await (await ping(h, owner.key, moved)).json()) as { delivery: Delivery };
    expect(refused.delivery).toMatchObject({ status: "dead", attempts: 1, last_status_code: null, last_error: "not called: url must not resolve to a private address" });
    expect(net.received).toHaveLength(1);
  });

  it("is the owner's alone, and limited to 10 a minute per operator", async () => {
    const net = network();
    const h = testApp({ now: T0, ...net });
    const owner = await createOperator();
    const other = await createOperator();
    const [a, b] = [(await register(h, owner.key, "https://a.example.com/x")).body.webhook.id, (await register(h, owner.key, "https://b.example.com/x")).body.webhook.id];
    const foreign = await ping(h, other.key, a);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: string }).error).toBe("Webhook not found");
    for (let i = 0; i < 10; i++) expect((await ping(h, owner.key, i % 2 ? a : b)).status).toBe(200);
    const limited = await ping(h, owner.key, a);
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: string }).error).toBe("Too many test events: at most 10 per minute per operator");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await ping(h, other.key, (await register(h, other.key, "https://c.example.com/x")).body.webhook.id)).status).toBe(200);
    h.clock.now = T0 + 60_000;
    expect((await ping(h, owner.key, a)).status).toBe(200);
    expect(net.received).toHaveLength(12);
  });
});

describe("loopback endpoints (ALLOW_LOOPBACK_WEBHOOKS)", () => {
  it("with the flag and a loopback public origin: registered, pinged and delivered from the queue", async () => {
    const net = network();
    const h = testApp({ now: T0, ...net, env: LOCAL });
    const owner = await createOperator();
    const hooks: { webhook: { id: number }; secret: string }[] = [];
    for (const url of ["http://127.0.0.1:9911/hooks", "http://[::1]:9911/hooks", "http://localhost:9911/hooks"]) {
      const { res, body } = await register(h, owner.key, url);
      expect(res.status, url).toBe(201);
      hooks.push(body);
      expect(((await (await ping(h, owner.key, body.webhook.id)).json()) as { delivery: Delivery }).delivery.status).toBe("delivered");
    }
    expect(net.received.map((r) => r.url)).toEqual(["http://127.0.0.1:9911/hooks", "http://[::1]:9911/hooks", "http://localhost:9911/hooks"]);

    // A real event's delivery through the queue's consumer takes the same path.
    const event = { id: `evt_loop_${crypto.randomUUID().slice(0, 8)}`, type: "agent.status_changed", sid: "SID-0x00000000000000aa", ownerId: owner.id, timestamp: new Date(T0).toISOString(), data: { sid: "SID-0x00000000000000aa", status: "suspended", previous_status: "active" } } as AgentEvent;
    const [row] = await deliveriesFor(env.DB, event, [hooks[0].webhook.id], new Date(T0).toISOString());
    const consume = async (vars: Partial<Env>) => {
      const batch = createMessageBatch<DeliveryMessage>("trust-deliveries", [{ id: "m1", timestamp: new Date(T0), attempts: 1, body: { deliveryId: row.id, webhookId: hooks[0].webhook.id, event } }]);
      const ctx = createExecutionContext();
      await consumeDeliveries(batch, { ...env, ...vars } as Env, { now: () => T0, ...net });
      return getQueueResult(batch, ctx);
    };
    // Without the flag the consumer refuses it (and retries later, as any refusal), with it delivers.
    expect((await consume({})).retryMessages).toHaveLength(1);
    expect(net.received).toHaveLength(3);
    expect((await consume(LOCAL)).explicitAcks).toEqual(["m1"]);
    expect(net.received).toHaveLength(4);
    expect(signedEvent(hooks[0].secret, net.received[3])).toMatchObject({ type: "agent.status_changed" });
  });

  it("with the flag and a public origin: refused, and the ignored flag logged as an error at the first request", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const net = network();
    const h = testApp({ now: T0, ...net, env: { ALLOW_LOOPBACK_WEBHOOKS: "true", PUBLIC_ORIGIN: "https://trust.example.com" } });
    expect((await h.request("/health")).status).toBe(200);
    const logged = error.mock.calls.map(([line]) => JSON.parse(String(line)) as { level: string; message: string });
    expect(logged).toEqual([{ level: "error", message: "ALLOW_LOOPBACK_WEBHOOKS is ignored: the public origin https://trust.example.com is not a loopback address" }]);
    const owner = await createOperator();
    const { res, body } = await register(h, owner.key, "http://127.0.0.1:9911/hooks");
    expect(res.status).toBe(400);
    expect(body.error).toBe("url must use HTTPS");
    expect(error).toHaveBeenCalledTimes(1);
  });

  it("without the flag, or to any other inward address: refused", async () => {
    const net = network({}, { "intranet.example.com": ["192.168.0.10"] });
    // Off whatever a developer's .dev.vars says (wrangler reads it for the tests too).
    const off = testApp({ now: T0, ...net, env: { PUBLIC_ORIGIN: "http://127.0.0.1:8787", ALLOW_LOOPBACK_WEBHOOKS: "false" } });
    const on = testApp({ now: T0, ...net, env: LOCAL });
    const owner = await createOperator();
    expect((await register(off, owner.key, "http://127.0.0.1:9911/hooks")).body.error).toBe("url must use HTTPS");
    for (const [url, error] of [
      ["http://10.0.0.1:9911/hooks", "url must use HTTPS"],
      ["http://127.0.0.2:9911/hooks", "url must use HTTPS"],
      ["https://127.0.0.1/hooks", "url must not resolve to a private address"],
      ["https://[::1]/hooks", "url must not resolve to a private address"],
      ["https://intranet.example.com/hooks", "url must not resolve to a private address"],
    ]) {
      expect((await register(on, owner.key, url)).body.error, url).toBe(error);
    }
    expect(net.received).toHaveLength(0);
  });
});
