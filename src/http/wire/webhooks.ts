// Webhooks, watches and deliveries: the same payloads in both forms.
import { z } from "@hono/zod-openapi";
import type { DeliveryRow, WebhookRow } from "../../db/webhooks";
import { EVENT_TYPES, PING } from "../../domain/events";
import { sid, timestamp } from "./common";

const webhook = z.object({ id: z.number().int(), url: z.string(), events: z.array(z.enum(EVENT_TYPES)), created_at: timestamp }).openapi("Webhook");
const created = z
  .object({
    webhook,
    secret: z.string().openapi({ description: "The Standard Webhooks signing secret (whsec_...): shown only this once" }),
  })
  .openapi("WebhookCreated");
const delivery = z
  .object({
    id: z.number().int(),
    event_id: z.string().openapi({ description: "The webhook-id header of every attempt" }),
    event_type: z.enum([...EVENT_TYPES, PING]).openapi({ description: "ping: a test event (POST /webhooks/{id}/test), tried once" }),
    status: z.enum(["pending", "delivered", "retrying", "dead"]),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("WebhookDelivery");
const tested = z.object({ delivery }).openapi("WebhookTested");
const watch = z.object({ sid, created_at: timestamp }).openapi("Watch");

const webhookView = (w: Pick<WebhookRow, "id" | "url" | "events" | "createdAt">): z.infer<typeof webhook> => ({
  id: w.id,
  url: w.url,
  events: w.events.split(" ") as z.infer<typeof webhook>["events"],
  created_at: w.createdAt,
});

export const webhookWire = {
  schemas: { webhook, created, delivery, tested, watch },
  webhook: webhookView,
  created: (w: Pick<WebhookRow, "id" | "url" | "events" | "createdAt">, secret: string) => ({ webhook: webhookView(w), secret }),
  delivery: (d: DeliveryRow): z.infer<typeof delivery> => ({
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType as z.infer<typeof delivery>["event_type"],
    status: d.status,
    attempts: d.attempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  }),
  watch: (w: { sid: string; createdAt: string }): z.infer<typeof watch> => ({ sid: w.sid, created_at: w.createdAt }),
};
