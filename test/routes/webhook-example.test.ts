// The check of examples/webhook-receiver.mjs (which docs/relying-parties.md shows), run on a real
// delivery: an event leaves the agent's object, goes through the queues, and is signed by the
// service's delivery code; the receiver must believe it, and nothing altered.
import { afterEach, describe, expect, it } from "vitest";
import { verifyDelivery } from "../../examples/webhook-receiver.mjs";
import { ADMIN, bearer, call, createOperator, registerAgent, testApp } from "../helpers";
import { holdQueues, type HeldQueues } from "../queues";

interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

let held: HeldQueues | undefined;
afterEach(() => {
  held?.release();
  held = undefined;
});

/** Every outbound call of the queue consumers, answered 204 (the resolver calls every host public); the queues held. */
function endpoint() {
  const received: Received[] = [];
  const resolve = async () => ["93.184.216.34"];
  const fetchOutbound = (async (input: RequestInfo | URL, init?: RequestInit) => {
    received.push({ url: String(input), headers: Object.fromEntries(new Headers(init?.headers)), body: String(init?.body) });
    return new Response(null, { status: 204 });
  }) as typeof fetch;
  held = holdQueues({ resolve, fetchOutbound });
  return { received, resolve, queues: held };
}

describe("examples/webhook-receiver.mjs", () => {
  it("believes a delivery the service signed, with fetch Headers or a plain header object, and nothing altered", async () => {
    const net = endpoint();
    const h = testApp({ resolve: net.resolve });
    const owner = await createOperator();
    const created = await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://receiver.example.com/trust", events: ["agent.status_changed"] } });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    const { sid } = await registerAgent(owner.key);
    expect((await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
    await net.queues.drain();
    const delivery = net.received.find((r) => r.url === "https://receiver.example.com/trust")!;
    expect(delivery).toBeDefined();

    const event = verifyDelivery(secret, delivery.body, new Headers(delivery.headers));
    expect(event).toEqual({ type: "agent.status_changed", timestamp: expect.any(String), data: { sid, status: "suspended", previous_status: "active" } });
    expect(verifyDelivery(secret, delivery.body, delivery.headers)).toEqual(event);

    expect(() => verifyDelivery(secret, delivery.body.replace("suspended", "active"), delivery.headers)).toThrow();
    const otherSecret = `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24))))}`;
    expect(() => verifyDelivery(otherSecret, delivery.body, delivery.headers)).toThrow();
  });
});
