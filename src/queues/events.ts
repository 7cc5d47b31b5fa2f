import { deliveriesFor, subscribedWebhooks } from "../db/webhooks";
import type { AgentEvent } from "../domain/events";
import { sendAll } from "../domain/queue-batches";
import type { Env } from "../env";
import type { QueueDeps } from "./deps";
import type { DeliveryMessage } from "./deliveries";
import { feedStatusLists } from "./status-feed";

// The fan-out of events from agents' objects: each event becomes one delivery per endpoint that
// wants it (the owner's; for score.changed also the watchers'; for disputes also the other side's),
// recorded in the control database, then queued one message each; and the status lists learn the
// changes of status and recommendation (src/queues/status-feed.ts).

export async function consumeEvents(batch: MessageBatch<AgentEvent>, env: Env, deps: QueueDeps): Promise<void> {
  for (const message of batch.messages) {
    // One event that fails is retried alone (after the consumer's retry_delay); the rest go on.
    try {
      // Both are idempotent: a retried event is fanned out and fed again without effect.
      await fanOut(message.body, env, deps);
      await feedStatusLists([message.body], env);
      message.ack();
    } catch (err) {
      console.error(
        JSON.stringify({
          level: "error",
          message: "event fan-out failed; retrying",
          event_id: message.body?.id,
          attempts: message.attempts,
          error: String(err),
        }),
      );
      message.retry();
    }
  }
}

async function fanOut(event: AgentEvent, env: Env, deps: QueueDeps): Promise<void> {
  const operators = new Set<number>();
  if (event.ownerId !== null) operators.add(event.ownerId);
  if (event.counterpartId !== undefined) operators.add(event.counterpartId);
  const endpoints = await subscribedWebhooks(env.DB, [...operators], event.type, event.type === "score.changed" ? event.sid : null);
  // Deliveries already made (a redelivered event) are not made again; pending ones are queued again.
  const pending = await deliveriesFor(
    env.DB,
    event,
    endpoints.map((w) => w.id),
    new Date(deps.now()).toISOString(),
  );
  if (!env.DELIVERIES) return;
  await sendAll(
    env.DELIVERIES,
    pending.map((d): DeliveryMessage => ({ deliveryId: d.id, webhookId: d.webhookId, event })),
  );
}

/**
 * Events whose fan-out failed on every try (the control database unreachable for the whole retry
 * window): logged, one error line each, so an operator knows which agents' subscribers missed
 * what; the events are not sent again.
 */
export async function consumeDeadEvents(batch: MessageBatch<AgentEvent>): Promise<void> {
  for (const message of batch.messages) {
    const event = message.body;
    console.error(
      JSON.stringify({
        level: "error",
        message: "event fan-out dead-lettered",
        event_id: event.id,
        event_type: event.type,
        sid: event.sid,
        attempts: message.attempts,
      }),
    );
    message.ack();
  }
}
