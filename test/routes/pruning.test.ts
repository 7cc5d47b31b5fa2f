// The daily cron: webhook delivery records older than 8 days are deleted, the rest kept.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { PRUNE_PAGE } from "../../src/queues/pruning";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 22, 3, 30);
const iso = (daysAgo: number) => new Date(NOW - daysAgo * DAY).toISOString();

/** `count` deliveries of one webhook, `daysAgo` old, in one statement. */
async function insertDeliveries(webhookId: number, count: number, daysAgo: number, status = "delivered") {
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, status, attempts, created_at, updated_at)
     SELECT ?, 'evt_prune_' || ? || '_' || ? || '_' || i, 'score.changed', ?, 1, ?, ? FROM n`,
  )
    .bind(count, webhookId, webhookId, daysAgo, status, iso(daysAgo), iso(daysAgo))
    .run();
}

const left = async (webhookId: number) =>
  (await env.DB.prepare("SELECT created_at FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id").bind(webhookId).all<{ created_at: string }>()).results.map((r) => r.created_at);

async function runCron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: NOW, cron: "30 3 * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("the daily cron", () => {
  it("deletes delivery records older than 8 days, whatever their status, and keeps the rest", async () => {
    const webhookId = 900_001;
    await insertDeliveries(webhookId, 2, 30);
    await insertDeliveries(webhookId, 1, 9, "dead");
    await insertDeliveries(webhookId, 1, 8.01, "retrying");
    await insertDeliveries(webhookId, 2, 7.99);
    await insertDeliveries(webhookId, 1, 0, "pending");
    await runCron();
    expect(await left(webhookId)).toEqual([iso(7.99), iso(7.99), iso(0)]);
  });

  it("works through more than one page in a run", async () => {
    const webhookId = 900_002;
    await insertDeliveries(webhookId, PRUNE_PAGE * 2 + 5, 20);
    await insertDeliveries(webhookId, 3, 1);
    await runCron();
    expect(await left(webhookId)).toEqual([iso(1), iso(1), iso(1)]);
  });
});
