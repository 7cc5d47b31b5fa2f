// Webhook signing secrets at rest: compact JWE (dir, A256GCM) under WEBHOOK_SECRET_KEY, and the
// migration of values sealed before 1.2 (base64 of IV || AES-256-GCM ciphertext), which still open
// and are sealed again as JWE.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { compactDecrypt, decodeProtectedHeader } from "jose";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { deliveriesFor } from "../../src/db/webhooks";
import { keyRing, openWith, seal, sealingKey } from "../../src/domain/sealed";
import { createQueueHandler } from "../../src/queues";
import type { DeliveryMessage } from "../../src/queues/deliveries";
import { ADMIN, bearer, createOperator, testApp } from "../helpers";

const rawOf = (secret: string) => Uint8Array.from(atob(secret), (c) => c.charCodeAt(0));
const newKey = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

/** A secret sealed as 1.1 stored it: base64 of a 12-byte IV || AES-256-GCM ciphertext and tag. */
async function sealedBefore12(keyText: string, plaintext: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", rawOf(keyText), { name: "AES-GCM" }, false, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext)));
  return btoa(String.fromCharCode(...iv, ...sealed));
}

describe("sealed webhook secrets", () => {
  it("are compact JWEs (dir, A256GCM) that any JOSE library opens with the key, naming the key by kid", async () => {
    const keyText = newKey();
    const key = (await sealingKey(keyText))!;
    const sealed = await seal(key, "whsec_example");
    expect(sealed.split(".")).toHaveLength(5);
    expect(decodeProtectedHeader(sealed)).toEqual({ alg: "dir", enc: "A256GCM", kid: key.kid });
    const { plaintext } = await compactDecrypt(sealed, rawOf(keyText));
    expect(new TextDecoder().decode(plaintext)).toBe("whsec_example");
    // Sealed twice, two different values (a fresh IV each time).
    expect(await seal(key, "whsec_example")).not.toBe(sealed);
  });

  it("sealed before 1.2 still open, under the current or the previous key, and come back sealed as JWE", async () => {
    const current = newKey();
    const previous = newKey();
    const ring = (await keyRing(current, previous))!;
    for (const [under, name] of [[current, "current"], [previous, "previous"]] as const) {
      const old = await sealedBefore12(under, `whsec_${name}`);
      const opened = await openWith(ring, old);
      expect(opened.plaintext, name).toBe(`whsec_${name}`);
      expect(decodeProtectedHeader(opened.resealed!), name).toMatchObject({ alg: "dir", enc: "A256GCM", kid: ring.current.kid });
      expect(await openWith(ring, opened.resealed!), name).toEqual({ plaintext: `whsec_${name}`, resealed: null });
    }
    // A JWE under the previous key is sealed again under the current one; under neither, it does not open.
    const underPrevious = await seal(ring.previous!, "whsec_rotated");
    expect(decodeProtectedHeader((await openWith(ring, underPrevious)).resealed!).kid).toBe(ring.current.kid);
    const stranger = await seal((await sealingKey(newKey()))!, "whsec_lost");
    await expect(openWith(ring, stranger)).rejects.toThrow();
    await expect(openWith(ring, await sealedBefore12(newKey(), "whsec_lost"))).rejects.toThrow();
  });

  it("sealed before 1.2 are sealed as JWE by POST /admin/webhooks/reseal, and deliveries still sign with them", async () => {
    const received: { body: string; headers: Record<string, string> }[] = [];
    const resolve = async () => ["93.184.216.34"];
    const fetchOutbound = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      received.push({ body: String(init?.body), headers: Object.fromEntries(new Headers(init?.headers)) });
      return new Response(null, { status: 204 });
    }) as typeof fetch;
    const h = testApp({ resolve });
    const owner = await createOperator();
    const created = (await (await h.request("/webhooks", { headers: bearer(owner.key), body: { url: "https://legacy.example.com/x" } })).json()) as { webhook: { id: number }; secret: string };
    const stored = async () => (await env.DB.prepare("SELECT sealed_secret FROM webhooks WHERE id = ?").bind(created.webhook.id).first<{ sealed_secret: string }>())!.sealed_secret;
    expect((await stored()).split(".")).toHaveLength(5);
    // The row as 1.1 would have left it.
    await env.DB.prepare("UPDATE webhooks SET sealed_secret = ? WHERE id = ?").bind(await sealedBefore12(env.WEBHOOK_SECRET_KEY!, created.secret), created.webhook.id).run();

    let resealed = 0;
    for (let cursor: string | null = ""; cursor !== null; ) {
      const res = await h.request(`/admin/webhooks/reseal?limit=200${cursor ? `&cursor=${cursor}` : ""}`, { method: "POST", headers: ADMIN });
      const page = (await res.json()) as { resealed: number; next_cursor: string | null };
      resealed += page.resealed;
      cursor = page.next_cursor;
    }
    expect(resealed).toBeGreaterThanOrEqual(1);
    const now = await stored();
    expect(decodeProtectedHeader(now)).toMatchObject({ alg: "dir", enc: "A256GCM" });
    const { plaintext } = await compactDecrypt(now, rawOf(env.WEBHOOK_SECRET_KEY!));
    expect(new TextDecoder().decode(plaintext)).toBe(created.secret);

    const event = { id: `evt_${crypto.randomUUID()}`, type: "agent.status_changed" as const, sid: "SID-0x0123456789abcdef", ownerId: owner.id, timestamp: new Date().toISOString(), data: { sid: "SID-0x0123456789abcdef", status: "suspended" as const, previous_status: "active" as const } };
    const [pending] = await deliveriesFor(env.DB, event, [created.webhook.id], new Date().toISOString());
    const batch = createMessageBatch<DeliveryMessage>("trust-deliveries", [{ id: "l1", timestamp: new Date(), attempts: 1, body: { deliveryId: pending.id, webhookId: created.webhook.id, event } }]);
    const ctx = createExecutionContext();
    await createQueueHandler({ resolve, fetchOutbound })(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["l1"]);
    expect(new Webhook(created.secret).verify(received[0].body, received[0].headers)).toMatchObject({ type: "agent.status_changed" });
  });
});
