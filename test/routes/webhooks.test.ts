// Notifications through real queue bindings: events leave agents' objects through their outbox,
// fan out to endpoints, and are delivered signed per Standard Webhooks, retried, dead-lettered.
import { createExecutionContext, createMessageBatch, evictDurableObject, getQueueResult, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import type { Agent } from "../agent-under-test";
import { createQueueHandler } from "../../src/queues";
import { MAX_ATTEMPTS, RETRY_SCHEDULE_S, type DeliveryMessage } from "../../src/queues/deliveries";
import { deliveriesFor } from "../../src/db/webhooks";
import { keyRing, openWith } from "../../src/domain/sealed";
import { forgetSnapshot } from "../../src/db/snapshot";
import { ADMIN, bearer, call, createOperator, publishCredibility, registerAgent, T_CALL, testApp } from "../helpers";
import { holdQueues, type HeldQueues } from "../queues";

interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

let held: HeldQueues | undefined;

/**
 * Endpoints answering `status` (by host), DNS answers per host, and every request recorded; the
 * queues held, for the test to drain.
 */
function endpoints(status: Record<string, number> = {}, dns: Record<string, string[]> = {}) {
  const received: Received[] = [];
  const resolve = async (host: string) => dns[host] ?? ["93.184.216.34"];
  const fetchOutbound = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    received.push({ url, headers: Object.fromEntries(new Headers(init?.headers)), body: String(init?.body) });
    return new Response(null, { status: status[new URL(url).hostname] ?? 204 });
  }) as typeof fetch;
  held = holdQueues({ resolve, fetchOutbound });
  return { received, resolve, fetchOutbound, queues: held };
}

afterEach(() => {
  held?.release();
  held = undefined;
  forgetSnapshot();
});

async function operator(verified = false) {
  const o = await createOperator({ verified });
  await call(`/admin/operators/${o.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100_000 } });
  return o;
}

/** A reporter whose reports move scores: full credibility in the snapshot in force. */
async function credibleReporter() {
  const o = await operator(true);
  await publishCredibility({ [o.id]: 1 }, T_CALL);
  return o;
}

const praise = { transactionType: "t", outcome: "success", reliabilitySignal: 1000, qualitySignal: 1000 };

async function deliveriesOf(key: string, webhookId: number) {
  return ((await (await call(`/webhooks/${webhookId}/deliveries?limit=200`, { headers: bearer(key) })).json()) as {
    deliveries: { event_id: string; event_type: string; status: string; attempts: number; last_error: string | null }[];
  }).deliveries;
}

describe("webhooks", () => {
  it("deliver a score.changed signed per Standard Webhooks, in Form A names and naming no reporter", async () => {
    const net = endpoints();
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    const reporter = await credibleReporter();
    const created = await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://hooks.example.com/trust" } });
    expect(created.status).toBe(201);
    const { webhook, secret } = (await created.json()) as { webhook: { id: number; events: string[] }; secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect(webhook.events).toContain("score.changed");
    const { sid } = await registerAgent(owner.key);
    for (let i = 0; i < 3; i++) await call("/transactions", { headers: bearer(reporter.key), body: { sid, ...praise } });
    await net.queues.drain();
    const delivery = net.received.find((r) => r.url === "https://hooks.example.com/trust" && JSON.parse(r.body).data?.sid === sid)!;
    expect(delivery).toBeDefined();
    const verified = new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(verified.type).toBe("score.changed");
    expect(verified.data).toMatchObject({ sid, composite_score: expect.any(Number), recommendation: "review", previous: { composite_score: 500, recommendation: "review" } });
    // Form A names, and nothing about who reported.
    expect(Object.keys(verified.data).sort()).toEqual(["composite_score", "confidence", "identity_level", "previous", "recommendation", "sid"]);
    expect(delivery.headers["webhook-id"]).toMatch(/^evt_/);
    const listed = (await deliveriesOf(owner.key, webhook.id)).find((d) => d.status === "delivered");
    expect(listed).toMatchObject({ event_type: "score.changed", attempts: 1 });
  });

  it("send score.changed once per threshold crossing, not per report", async () => {
    const net = endpoints();
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    const reporters = [await operator(true), await operator(true), await operator(true)];
    await publishCredibility(Object.fromEntries(reporters.map((r) => [r.id, 1])), T_CALL);
    const { webhook } = (await (await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://count.example.com/x", events: ["score.changed"] } })).json()) as { webhook: { id: number } };
    const { sid } = await registerAgent(owner.key);
    const composites: number[] = [];
    for (let i = 0; i < 18; i++) {
      const res = await call("/transactions", { headers: bearer(reporters[i % 3].key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 700 } });
      composites.push(((await res.json()) as { updated_scores: { composite_score: number } }).updated_scores.composite_score);
    }
    await net.queues.drain();
    const events = net.received.filter((r) => r.url === "https://count.example.com/x").map((r) => JSON.parse(r.body).data as { composite_score: number; previous: { composite_score: number } });
    // What the reports' own answers say the crossings were: each 25 points from the last one notified.
    let last = 500;
    const crossings: number[] = [];
    for (const c of composites) if (Math.abs(c - last) >= 25) crossings.push((last = c));
    expect(crossings.length).toBeGreaterThan(0);
    expect(crossings.length).toBeLessThan(composites.length);
    expect(events.map((e) => e.composite_score).sort()).toEqual([...crossings].sort());
    for (const e of events) expect(Math.abs(e.composite_score - e.previous.composite_score)).toBeGreaterThanOrEqual(25);
    expect((await deliveriesOf(owner.key, webhook.id)).length).toBe(crossings.length);
  });

  it("a failing endpoint is retried on the 24-hour schedule, then dead-lettered", async () => {
    const net = endpoints({ "down.example.com": 500 });
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    const reporter = await credibleReporter();
    const { webhook } = (await (await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://down.example.com/x" } })).json()) as { webhook: { id: number } };
    const { sid } = await registerAgent(owner.key);
    for (let i = 0; i < 3; i++) await call("/transactions", { headers: bearer(reporter.key), body: { sid, ...praise } });
    await net.queues.drain();
    const first = await deliveriesOf(owner.key, webhook.id);
    expect(first.length).toBeGreaterThan(0);
    for (const d of first) expect(d).toMatchObject({ status: "retrying", attempts: 1, last_error: "HTTP 500" });
    // The next attempts, as the queue hands them back after each delay the consumer asked for.
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      const due = net.queues.redeliver();
      expect(due.map((m) => m.delaySeconds)).toEqual(first.map(() => RETRY_SCHEDULE_S[attempt - 2]));
      await net.queues.drain();
    }
    expect(net.queues.retried).toEqual([]);
    expect(RETRY_SCHEDULE_S.reduce((a, b) => a + b, 0)).toBeGreaterThan(23 * 3600);
    const dead = await deliveriesOf(owner.key, webhook.id);
    expect(dead.map((d) => d.event_id).sort()).toEqual(first.map((d) => d.event_id).sort());
    for (const d of dead) expect(d).toMatchObject({ status: "dead", attempts: MAX_ATTEMPTS, last_error: "HTTP 500" });
    expect(net.received.filter((r) => r.url === "https://down.example.com/x")).toHaveLength(first.length * MAX_ATTEMPTS);
  });

  it("never calls an endpoint that resolves to a private address, at registration or at delivery", async () => {
    const dns: Record<string, string[]> = { "inside.example.com": ["10.0.0.5"] };
    const net = endpoints({}, dns);
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    const reporter = await credibleReporter();
    const refused = await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://inside.example.com/x" } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe("url must not resolve to a private address");
    // A name that answered public at registration and private at delivery (DNS rebinding).
    const { webhook } = (await (await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://rebind.example.com/x" } })).json()) as { webhook: { id: number } };
    dns["rebind.example.com"] = ["127.0.0.1"];
    const { sid } = await registerAgent(owner.key);
    for (let i = 0; i < 3; i++) await call("/transactions", { headers: bearer(reporter.key), body: { sid, ...praise } });
    await net.queues.drain();
    const attempt = (await deliveriesOf(owner.key, webhook.id)).find((d) => d.attempts > 0);
    expect(attempt?.last_error).toBe("not called: url must not resolve to a private address");
    expect(net.received.filter((r) => r.url.includes("rebind") || r.url.includes("inside"))).toEqual([]);
  });

  it("an event committed by the agent's object and then a crash before it was sent is delivered by the object's alarm, within a minute", async () => {
    const net = endpoints();
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://crash.example.com/x", events: ["agent.status_changed", "score.changed"] } });
    const { sid } = await registerAgent(owner.key);
    await net.queues.drain();
    await runInDurableObject(env.AGENT.getByName(sid), (o) => {
      (o as Agent).faults.crashBeforeSend = 1;
    });
    // The change is on the shard before the crash: its caller has its answer.
    expect((await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
    // The crash came before the send: nothing is queued, and nothing reaches the endpoint.
    expect(net.queues.pending).toEqual([]);
    const alarm = await runInDurableObject(env.AGENT.getByName(sid), (_o, state) => state.storage.getAlarm());
    expect(alarm! - Date.now()).toBeLessThanOrEqual(60_000);
    expect(await runDurableObjectAlarm(env.AGENT.getByName(sid))).toBe(true);
    await net.queues.drain();
    const delivered = net.received.find((r) => r.url === "https://crash.example.com/x" && JSON.parse(r.body).type === "agent.status_changed");
    expect(JSON.parse(delivered!.body).data).toEqual({ sid, status: "suspended", previous_status: "active" });
  });

  it("an event sent again by a new life of the agent's object (its cursor not yet moved) is delivered once, under the id its entry gives it", async () => {
    const net = endpoints();
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://again.example.com/x", events: ["agent.status_changed"] } });
    const { sid } = await registerAgent(owner.key);
    const sent = () => net.received.filter((r) => r.url === "https://again.example.com/x");
    expect((await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
    await net.queues.drain();
    expect(sent()).toHaveLength(1);
    expect(sent()[0].headers["webhook-id"]).toMatch(/^evt_[0-9a-f]{16}_0_\d+$/);
    // Evicted before a later batch moved its cursor: the next life's alarm sends the entry again.
    await evictDurableObject(env.AGENT.getByName(sid));
    await runInDurableObject(env.AGENT.getByName(sid), (_o, state) => state.storage.setAlarm(Date.now() + 1000));
    expect(await runDurableObjectAlarm(env.AGENT.getByName(sid))).toBe(true);
    expect(net.queues.pending.length).toBeGreaterThan(0);
    await net.queues.drain();
    expect(sent()).toHaveLength(1);
  });

  it("watchers get the agent's score.changed, and nothing else of it", async () => {
    const net = endpoints();
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    const watcher = await operator();
    const reporter = await credibleReporter();
    const { sid } = await registerAgent(owner.key);
    expect((await h.request("/watches", { headers: bearer(watcher.key), body: { sid } })).status).toBe(201);
    expect((await h.request("/watches", { headers: bearer(watcher.key), body: { sid: "SID-0x0123456789abcdef" } })).status).toBe(404);
    await h.request("/webhooks", { headers: bearer(watcher.key), body: { url: "https://watcher.example.com/x" } });
    for (let i = 0; i < 3; i++) await call("/transactions", { headers: bearer(reporter.key), body: { sid, ...praise } });
    await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } });
    await net.queues.drain();
    const types = net.received.filter((r) => r.url === "https://watcher.example.com/x").map((r) => JSON.parse(r.body).type);
    expect(new Set(types)).toEqual(new Set(["score.changed"]));
    const list = (await (await h.request("/watches", { headers: bearer(watcher.key) })).json()) as { watches: { sid: string }[] };
    expect(list.watches.map((w) => w.sid)).toEqual([sid]);
    expect((await h.request(`/watches/${sid}`, { method: "DELETE", headers: bearer(watcher.key) })).status).toBe(200);
  });

  it("an agent watched through more endpoints than one D1 statement binds or one queue send carries (100) reaches every one", async () => {
    const net = endpoints();
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    const reporter = await credibleReporter();
    const { sid } = await registerAgent(owner.key);
    // Ten watchers of 10 endpoints each, and the owner's own: 101 endpoints for one score.changed.
    const urls = [`https://owner.example.com/x`];
    expect((await h.request("/webhooks", { headers: bearer(owner.key), body: { url: urls[0] } })).status).toBe(201);
    for (let w = 0; w < 10; w++) {
      const watcher = await operator();
      expect((await h.request("/watches", { headers: bearer(watcher.key), body: { sid } })).status).toBe(201);
      for (let i = 0; i < 10; i++) {
        const url = `https://w${w}-${i}.example.com/x`;
        expect((await h.request("/webhooks", { headers: bearer(watcher.key), body: { url } })).status).toBe(201);
        urls.push(url);
      }
    }
    for (let i = 0; i < 3; i++) await call("/transactions", { headers: bearer(reporter.key), body: { sid, ...praise } });
    await net.queues.drain();
    const reached = new Set(net.received.filter((r) => JSON.parse(r.body).type === "score.changed" && JSON.parse(r.body).data?.sid === sid).map((r) => r.url));
    expect([...reached].sort()).toEqual([...urls].sort());
  });

  it("limits endpoints to 10, and never lists a secret", async () => {
    const net = endpoints();
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    for (let i = 0; i < 10; i++) expect((await h.request("/webhooks", { headers: bearer(owner.key), body: { url: `https://h${i}.example.com/x` } })).status).toBe(201);
    expect((await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://h10.example.com/x" } })).status).toBe(409);
    const listed = (await (await h.request("/webhooks?limit=5", { headers: bearer(owner.key) })).json()) as { webhooks: unknown[]; next_cursor: string };
    expect(listed.webhooks).toHaveLength(5);
    expect(JSON.stringify(listed)).not.toContain("whsec_");
  });
  it("tell both sides of a dispute, and never the reporter to the owner", async () => {
    const net = endpoints();
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    const reporter = await operator(true);
    const events = ["dispute.opened", "dispute.answered", "dispute.resolved"];
    await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://owner.example.com/d", events } });
    await h.request("/webhooks", { headers: bearer(reporter.key), body: { url: "https://reporter.example.com/d", events } });
    const { sid } = await registerAgent(owner.key);
    const made = await call("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "failure" } });
    const id = ((await made.json()) as { transaction_id: number }).transaction_id;
    expect((await call(`/transactions/${id}/dispute`, { headers: bearer(owner.key), body: { reason: "not us" } })).status).toBe(201);
    expect((await call(`/disputes/${id}/respond`, { headers: bearer(reporter.key), body: { stand: false } })).status).toBe(200);
    const typesAt = (host: string) => net.received.filter((r) => new URL(r.url).hostname === host).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
    await net.queues.drain();
    for (const host of ["owner.example.com", "reporter.example.com"]) {
      const got = typesAt(host);
      expect(got.map((e) => e.type).sort()).toEqual([...events].sort());
      const resolved = got.find((e) => e.type === "dispute.resolved")!.data;
      expect(resolved).toMatchObject({ dispute_id: id, sid, status: "resolved", outcome: "withdrawn" });
      expect(JSON.stringify(got)).not.toContain(`"reporter`);
    }
  });
  it("an event whose fan-out fails is retried alone; the rest of its batch is fanned out", async () => {
    const owner = await operator();
    const { sid } = await registerAgent(owner.key);
    const good = { id: "evt_00000000000000e2_000000000000_1", type: "agent.status_changed" as const, sid, ownerId: owner.id, timestamp: new Date().toISOString(), data: { sid, status: "suspended", previous_status: "active" } };
    // An owner id D1 cannot bind: the fan-out of this one event throws.
    const bad = { ...good, id: "evt_00000000000000e2_000000000000_2", ownerId: { not: "a number" } as unknown as number };
    const batch = createMessageBatch("trust-events", [
      { id: "b1", timestamp: new Date(), attempts: 1, body: bad },
      { id: "b2", timestamp: new Date(), attempts: 1, body: good },
    ]);
    const ctx = createExecutionContext();
    const error = console.error;
    console.error = () => {};
    try {
      await createQueueHandler({})(batch, env);
    } finally {
      console.error = error;
    }
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([{ msgId: "b1" }]);
    expect(result.explicitAcks).toEqual(["b2"]);
  });

  it("an event whose fan-out kept failing is logged from the events' dead-letter queue, and acknowledged", async () => {
    const event = { id: "evt_00000000000000e1_000000000000_1", type: "score.changed" as const, sid: "SID-0x00000000000000e1", ownerId: 1, timestamp: new Date().toISOString(), data: {} };
    const batch = createMessageBatch("trust-events-dlq", [{ id: "d1", timestamp: new Date(), attempts: 1, body: event }]);
    const ctx = createExecutionContext();
    const lines: string[] = [];
    const error = console.error;
    console.error = (line: string) => lines.push(line);
    try {
      await createQueueHandler({})(batch, env);
    } finally {
      console.error = error;
    }
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["d1"]);
    expect(result.retryMessages).toEqual([]);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { level: "error", message: "event fan-out dead-lettered", event_id: event.id, event_type: "score.changed", sid: event.sid, attempts: 1 },
    ]);
  });

  it("a delivery whose secret no key opens is dead at once, and the rest of its batch is delivered", async () => {
    const net = endpoints();
    const h = testApp({ resolve: net.resolve });
    const owner = await operator();
    const made = async (url: string) => ((await (await h.request("/webhooks", { headers: bearer(owner.key), body: { url } })).json()) as { webhook: { id: number } }).webhook.id;
    const lost = await made("https://unreadable.example.com/x");
    const fine = await made("https://readable.example.com/x");
    await env.DB.prepare("UPDATE webhooks SET sealed_secret = ? WHERE id = ?").bind(btoa("x".repeat(40)), lost).run();
    const event = { id: `evt_${crypto.randomUUID()}`, type: "agent.status_changed" as const, sid: "SID-0x0123456789abcdef", ownerId: owner.id, timestamp: new Date().toISOString(), data: { sid: "SID-0x0123456789abcdef", status: "suspended" as const, previous_status: "active" as const } };
    const pending = await deliveriesFor(env.DB, event, [lost, fine], new Date().toISOString());
    const idOf = (webhookId: number) => pending.find((d) => d.webhookId === webhookId)!.id;
    const batch = createMessageBatch<DeliveryMessage>("trust-deliveries", [
      { id: "u1", timestamp: new Date(), attempts: 1, body: { deliveryId: idOf(lost), webhookId: lost, event } },
      { id: "u2", timestamp: new Date(), attempts: 1, body: { deliveryId: idOf(fine), webhookId: fine, event } },
    ]);
    const ctx = createExecutionContext();
    await createQueueHandler({ resolve: net.resolve, fetchOutbound: net.fetchOutbound })(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryBatch.retry).toBe(false);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks.sort()).toEqual(["u1", "u2"]);
    expect(net.received.map((r) => new URL(r.url).hostname)).toEqual(["readable.example.com"]);
    expect((await deliveriesOf(owner.key, lost)).find((d) => d.event_id === event.id)).toMatchObject({ status: "dead", last_error: "secret unreadable" });
    expect((await deliveriesOf(owner.key, fine)).find((d) => d.event_id === event.id)).toMatchObject({ status: "delivered" });
  });

  it("survive a rotation of WEBHOOK_SECRET_KEY: the previous key opens, deliveries and the admin reseal seal again", async () => {
    const net = endpoints();
    const before = testApp({ resolve: net.resolve });
    const owner = await operator();
    const made = async (url: string) =>
      (await (await before.request("/webhooks", { headers: bearer(owner.key), body: { url } })).json()) as { webhook: { id: number }; secret: string };
    const delivered = await made("https://rotate-a.example.com/x");
    const idle = await made("https://rotate-b.example.com/x");
    const fresh = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    const rotated = { ...env, WEBHOOK_SECRET_KEY: fresh, WEBHOOK_SECRET_KEY_PREVIOUS: env.WEBHOOK_SECRET_KEY };
    const sealed = async (id: number) => (await env.DB.prepare("SELECT sealed_secret FROM webhooks WHERE id = ?").bind(id).first<{ sealed_secret: string }>())!.sealed_secret;
    const opensUnderFreshAlone = async (id: number) => {
      const ring = (await keyRing(fresh, undefined))!;
      return (await openWith(ring, await sealed(id)).catch(() => null))?.plaintext;
    };
    expect(await opensUnderFreshAlone(delivered.webhook.id)).toBeUndefined();

    // A delivery after the rotation is signed with the same secret, and seals it again under the new key.
    const event = { id: `evt_${crypto.randomUUID()}`, type: "agent.status_changed" as const, sid: "SID-0x0123456789abcdef", ownerId: owner.id, timestamp: new Date().toISOString(), data: { sid: "SID-0x0123456789abcdef", status: "suspended" as const, previous_status: "active" as const } };
    const [pending] = await deliveriesFor(env.DB, event, [delivered.webhook.id], new Date().toISOString());
    const batch = createMessageBatch<DeliveryMessage>("trust-deliveries", [{ id: "r1", timestamp: new Date(), attempts: 1, body: { deliveryId: pending.id, webhookId: delivered.webhook.id, event } }]);
    await createQueueHandler({ resolve: net.resolve, fetchOutbound: net.fetchOutbound })(batch, rotated as typeof env);
    const sent = net.received.find((r) => r.url === "https://rotate-a.example.com/x")!;
    expect(new Webhook(delivered.secret).verify(sent.body, sent.headers)).toMatchObject({ type: "agent.status_changed" });
    expect(await opensUnderFreshAlone(delivered.webhook.id)).toBe(delivered.secret);

    // The admin reseal takes the rest; a secret no key opens is counted, never dropped.
    const lost = await made("https://rotate-c.example.com/x");
    await env.DB.prepare("UPDATE webhooks SET sealed_secret = ? WHERE id = ?").bind(btoa("x".repeat(40)), lost.webhook.id).run();
    const after = testApp({ resolve: net.resolve, env: rotated });
    let cursor: string | null = "";
    const totals = { checked: 0, resealed: 0, unreadable: 0 };
    while (cursor !== null) {
      const res = await after.request(`/admin/webhooks/reseal?limit=50${cursor ? `&cursor=${cursor}` : ""}`, { method: "POST", headers: ADMIN });
      expect(res.status).toBe(200);
      const page = (await res.json()) as typeof totals & { next_cursor: string | null };
      for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += page[k];
      cursor = page.next_cursor;
    }
    expect(await opensUnderFreshAlone(idle.webhook.id)).toBe(idle.secret);
    expect(await sealed(lost.webhook.id)).toBe(btoa("x".repeat(40)));
    expect(totals.unreadable).toBeGreaterThanOrEqual(1);
    expect(totals.resealed).toBeGreaterThanOrEqual(1);
    const again = (await (await after.request("/admin/webhooks/reseal?limit=100", { method: "POST", headers: ADMIN })).json()) as typeof totals;
    expect(again.resealed).toBe(0);
    expect((await after.request("/admin/webhooks/reseal", { method: "POST", headers: bearer(owner.key) })).status).toBe(401);
  });
});
