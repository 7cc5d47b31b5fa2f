import { getDelivery, getWebhook, markDead, recordAttempt, resealWebhook } from "../db/webhooks";
import { payloadOf, type AgentEvent } from "../domain/events";
import { keyRing, openWith } from "../domain/sealed";
import { publicOrigin, type Env } from "../env";
import { loopbackWebhooks } from "../net/loopback";
import { attemptDelivery } from "../net/webhook-delivery";
import type { QueueDeps } from "./deps";

// The delivery of one event to one endpoint, and its retries: with backoff for 24 hours, then the
// dead-letter queue. Every attempt checks the endpoint's URL again with the SSRF guard: an endpoint
// that resolves to a private address is never called.

export interface DeliveryMessage {
  deliveryId: number;
  webhookId: number;
  event: AgentEvent;
}

/** Seconds to wait after each failed attempt: 24 hours in all (about 23.7), then dead. */
export const RETRY_SCHEDULE_S = [30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_S.length + 1;

export async function consumeDeliveries(batch: MessageBatch<DeliveryMessage>, env: Env, deps: QueueDeps): Promise<void> {
  const ring = await keyRing(env.WEBHOOK_SECRET_KEY, env.WEBHOOK_SECRET_KEY_PREVIOUS);
  for (const message of batch.messages) {
    const { deliveryId, webhookId, event } = message.body;
    const at = new Date(deps.now()).toISOString();
    const delivery = await getDelivery(env.DB, deliveryId);
    if (!delivery || delivery.status === "delivered" || delivery.status === "dead") {
      message.ack();
      continue;
    }
    const webhook = await getWebhook(env.DB, webhookId);
    if (!webhook || !ring) {
      await markDead(env.DB, deliveryId, webhook ? "webhook signing is not configured" : "the endpoint was deleted", at);
      message.ack();
      continue;
    }
    const secret = await openWith(ring, webhook.sealedSecret).catch(() => null);
    if (!secret) {
      // Neither key opens it: no retry ever will (until an admin acts), and the rest of the batch goes on.
      await markDead(env.DB, deliveryId, "secret unreadable", at);
      console.error(
        JSON.stringify({
          level: "error",
          message: "webhook secret unreadable; delivery dead",
          delivery_id: deliveryId,
          webhook_id: webhookId,
          event_id: event.id,
        }),
      );
      message.ack();
      continue;
    }
    // Sealed under the previous key of a rotation: sealed again under the current one.
    if (secret.resealed) await resealWebhook(env.DB, webhook.id, webhook.sealedSecret, secret.resealed);
    const outcome = await attemptDelivery(
      webhook.url,
      { id: event.id, timestamp: new Date(deps.now()), payload: payloadOf(event), secret: secret.plaintext },
      { ...deps, loopback: loopbackWebhooks(env, publicOrigin(env)) },
    );
    if (outcome.delivered) {
      await recordAttempt(env.DB, deliveryId, { status: "delivered", statusCode: outcome.status, error: null, at });
      message.ack();
      continue;
    }
    const attempts = delivery.attempts + 1;
    if (attempts >= MAX_ATTEMPTS) {
      await recordAttempt(env.DB, deliveryId, { status: "dead", statusCode: outcome.status, error: outcome.error, at });
      await env.DEAD_LETTERS?.send(message.body, { contentType: "json" });
      message.ack();
      continue;
    }
    await recordAttempt(env.DB, deliveryId, { status: "retrying", statusCode: outcome.status, error: outcome.error, at });
    message.retry({ delaySeconds: RETRY_SCHEDULE_S[attempts - 1] });
  }
}

/** Deliveries the platform gave up on (or this consumer did): marked dead, kept for 7 days to read. */
export async function consumeDeadLetters(batch: MessageBatch<DeliveryMessage>, env: Env, deps: QueueDeps): Promise<void> {
  for (const message of batch.messages) {
    const delivery = await getDelivery(env.DB, message.body.deliveryId);
    if (delivery && delivery.status !== "dead" && delivery.status !== "delivered") {
      await markDead(env.DB, delivery.id, delivery.lastError ?? "retries exhausted", new Date(deps.now()).toISOString());
    }
    console.error(
      JSON.stringify({ level: "error", message: "webhook delivery dead-lettered", delivery_id: message.body.deliveryId, event_id: message.body.event.id }),
    );
    message.ack();
  }
}
