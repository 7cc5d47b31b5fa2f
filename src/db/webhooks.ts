// Webhook endpoints, watches and deliveries, in the control database.

import { and, asc, count, desc, eq, gt, inArray, lt, or, sql } from "drizzle-orm";
import { db, type Database } from "./client";
import { inJson } from "./json-rows";
import { watches, webhookDeliveries, webhooks } from "./control-schema";

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export const countWebhooks = async (d1: Database, operatorId: number) =>
  (await db(d1).select({ n: count() }).from(webhooks).where(eq(webhooks.operatorId, operatorId)).get())?.n ?? 0;

/** Adds an endpoint unless the operator already has `max`: checked in the same statement. */
export async function insertWebhook(
  d1: Database,
  w: { operatorId: number; url: string; events: string; sealedSecret: string; createdAt: string },
  max: number,
) {
  const rows = await d1
    .prepare(
      `INSERT INTO webhooks (operator_id, url, events, sealed_secret, created_at)
       SELECT ?, ?, ?, ?, ? WHERE (SELECT count(*) FROM webhooks WHERE operator_id = ?) < ? RETURNING id, created_at AS createdAt`,
    )
    .bind(w.operatorId, w.url, w.events, w.sealedSecret, w.createdAt, w.operatorId, max)
    .all<{ id: number; createdAt: string }>();
  return rows.results[0] ?? null;
}

export const listWebhooks = (d1: Database, operatorId: number, afterId: number, limit: number) =>
  db(d1)
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.operatorId, operatorId), gt(webhooks.id, afterId)))
    .orderBy(asc(webhooks.id))
    .limit(limit)
    .all();

export const getWebhook = (d1: Database, id: number) => db(d1).select().from(webhooks).where(eq(webhooks.id, id)).get();

/** Stores a secret sealed again under a new key, unless the row changed meanwhile. */
export const resealWebhook = (d1: Database, id: number, from: string, to: string) =>
  db(d1)
    .update(webhooks)
    .set({ sealedSecret: to })
    .where(and(eq(webhooks.id, id), eq(webhooks.sealedSecret, from)))
    .run();

/** Every endpoint in id order, a page at a time (sealing them all again after a key rotation). */
export const webhooksAfter = (d1: Database, afterId: number, limit: number) =>
  db(d1)
    .select({ id: webhooks.id, sealedSecret: webhooks.sealedSecret })
    .from(webhooks)
    .where(gt(webhooks.id, afterId))
    .orderBy(asc(webhooks.id))
    .limit(limit)
    .all();

export const deleteWebhook = (d1: Database, operatorId: number, id: number) =>
  db(d1)
    .delete(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.operatorId, operatorId)))
    .returning({ id: webhooks.id })
    .get();

/** The endpoints an event goes to: those of these operators subscribed to its type. */
/**
 * The endpoints subscribed to an event: those of `operatorIds`, and with `watchersOf` also those of
 * the operators watching that agent. One statement, as the fan-out runs once per event.
 */
export async function subscribedWebhooks(d1: Database, operatorIds: number[], eventType: string, watchersOf: string | null): Promise<WebhookRow[]> {
  const own = operatorIds.length > 0 ? inArray(webhooks.operatorId, operatorIds) : undefined;
  const watching =
    watchersOf === null ? undefined : inArray(webhooks.operatorId, db(d1).select({ id: watches.operatorId }).from(watches).where(eq(watches.sid, watchersOf)));
  if (!own && !watching) return [];
  const rows = await db(d1).select().from(webhooks).where(or(own, watching)).all();
  return rows.filter((w) => w.events.split(" ").includes(eventType));
}

/** Watches an agent unless the operator already watches `max`: checked in the same statement. */
export async function insertWatch(d1: Database, w: { operatorId: number; sid: string; createdAt: string }, max: number) {
  const rows = await d1
    .prepare(
      `INSERT INTO watches (operator_id, sid, created_at) SELECT ?, ?, ? WHERE (SELECT count(*) FROM watches WHERE operator_id = ?) < ?
       ON CONFLICT (operator_id, sid) DO NOTHING RETURNING sid`,
    )
    .bind(w.operatorId, w.sid, w.createdAt, w.operatorId, max)
    .all();
  return rows.results.length === 1;
}

export const getWatch = (d1: Database, operatorId: number, sid: string) =>
  db(d1)
    .select()
    .from(watches)
    .where(and(eq(watches.operatorId, operatorId), eq(watches.sid, sid)))
    .get();

export const listWatches = (d1: Database, operatorId: number, after: string, limit: number) =>
  db(d1)
    .select()
    .from(watches)
    .where(and(eq(watches.operatorId, operatorId), gt(watches.sid, after)))
    .orderBy(asc(watches.sid))
    .limit(limit)
    .all();

export const deleteWatch = (d1: Database, operatorId: number, sid: string) =>
  db(d1)
    .delete(watches)
    .where(and(eq(watches.operatorId, operatorId), eq(watches.sid, sid)))
    .returning({ sid: watches.sid })
    .get();

/** The deliveries of an event to these endpoints, created once each; those not yet delivered. */
export async function deliveriesFor(d1: Database, event: { id: string; type: string }, webhookIds: number[], now: string): Promise<DeliveryRow[]> {
  if (webhookIds.length === 0) return [];
  // The endpoints as one bound JSON array: D1 binds at most 100 parameters a statement, and an
  // agent's watchers may bring any number of endpoints (a row a parameter each would fail at 15).
  const ids = JSON.stringify(webhookIds);
  await d1
    .prepare(
      "INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, created_at, updated_at) " +
        "SELECT value, ?, ?, ?, ? FROM json_each(?) WHERE true ON CONFLICT (webhook_id, event_id) DO NOTHING",
    )
    .bind(event.id, event.type, now, now, ids)
    .run();
  return db(d1)
    .select()
    .from(webhookDeliveries)
    .where(
      and(eq(webhookDeliveries.eventId, event.id), inJson(webhookDeliveries.webhookId, webhookIds), inArray(webhookDeliveries.status, ["pending", "retrying"])),
    )
    .all();
}

/** A new delivery record of a one-off event (a test ping), before its one attempt. */
export async function insertDelivery(d1: Database, d: { webhookId: number; eventId: string; eventType: string; at: string }): Promise<number> {
  const row = await db(d1)
    .insert(webhookDeliveries)
    .values({ webhookId: d.webhookId, eventId: d.eventId, eventType: d.eventType, createdAt: d.at, updatedAt: d.at })
    .returning({ id: webhookDeliveries.id })
    .get();
  return row.id;
}

export const getDelivery = (d1: Database, id: number) => db(d1).select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).get();

export async function recordAttempt(
  d1: Database,
  id: number,
  outcome: { status: "delivered" | "retrying" | "dead"; statusCode: number | null; error: string | null; at: string },
) {
  await db(d1)
    .update(webhookDeliveries)
    .set({
      status: outcome.status,
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      updatedAt: outcome.at,
    })
    .where(eq(webhookDeliveries.id, id));
}

export const markDead = (d1: Database, id: number, error: string, at: string) =>
  db(d1).update(webhookDeliveries).set({ status: "dead", lastError: error, updatedAt: at }).where(eq(webhookDeliveries.id, id));

/** Deletes up to `limit` delivery records created before `before`, oldest first: how many went. */
export async function deleteDeliveriesBefore(d1: Database, before: string, limit: number): Promise<number> {
  const d = db(d1);
  const oldest = d
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(lt(webhookDeliveries.createdAt, before))
    .orderBy(asc(webhookDeliveries.createdAt))
    .limit(limit);
  const result = await d.delete(webhookDeliveries).where(inArray(webhookDeliveries.id, oldest)).run();
  return result.meta.changes ?? 0;
}

/** One page of an endpoint's deliveries of the last `days`, newest first. */
export const listDeliveries = (d1: Database, webhookId: number, since: string, beforeId: number | null, limit: number) =>
  db(d1)
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        gt(webhookDeliveries.createdAt, since),
        beforeId === null ? undefined : lt(webhookDeliveries.id, beforeId),
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit)
    .all();
