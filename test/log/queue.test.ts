// The trust-log queue: messages of leaves handed to their log's sequencer, one call per log.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LogMessage } from "../../src/domain/log";
import type { Env } from "../../src/env";
import { createQueueHandler } from "../../src/queues";
import { aheadDelaySeconds } from "../../src/queues/log";
import { freshSid, leafOf, loggedErrors, markOf, sequencer } from "./helpers";
import { holdQueues } from "../queues";
import { call } from "../helpers";

describe("the trust-log queue", () => {
  it("hands each log's leaves to its sequencer and acknowledges the messages; malformed ones are dropped, logged", async () => {
    const sid = freshSid();
    const [one, two, three] = await Promise.all([1, 2, 3].map((seq) => leafOf(sid, seq)));
    const batch = createMessageBatch<LogMessage>("trust-log", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { log: 6, leaves: [one, two] } },
      { id: "m2", timestamp: new Date(), attempts: 1, body: { log: 6, leaves: [three, one] } },
      { id: "m3", timestamp: new Date(), attempts: 1, body: { log: 8, leaves: [one] } },
    ]);
    const ctx = createExecutionContext();
    const { errors } = await loggedErrors(() => createQueueHandler({})(batch, env));
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["m1", "m2", "m3"]);
    expect(result.retryMessages).toEqual([]);
    expect(errors).toEqual([expect.objectContaining({ message: "log: a malformed trust-log message, dropped", log: 8 })]);
    expect(await (await sequencer(6)).status(await markOf(sid))).toEqual({ acknowledged: 3, sequenced: null });
  });

  it("retries, after a delay, a message whose leaf arrived before its agent's earlier entry, and takes it once that came", async () => {
    const sid = freshSid();
    const [one, two, three] = await Promise.all([1, 2, 3].map((seq) => leafOf(sid, seq)));
    const first = createMessageBatch<LogMessage>("trust-log", [
      { id: "a1", timestamp: new Date(), attempts: 1, body: { log: 5, leaves: [one] } },
      { id: "a3", timestamp: new Date(), attempts: 1, body: { log: 5, leaves: [three] } },
    ]);
    const ctx = createExecutionContext();
    await createQueueHandler({})(first, env);
    const result = await getQueueResult(first, ctx);
    expect(result.explicitAcks).toEqual(["a1"]);
    // (The platform's test result names the message, not its delay: aheadDelaySeconds is checked below.)
    expect(result.retryMessages).toEqual([{ msgId: "a3" }]);
    expect((await (await sequencer(5)).status(await markOf(sid))).acknowledged).toBe(1);
    // The retry (its third attempt: a longer delay) comes in the batch that brings entry 2.
    const second = createMessageBatch<LogMessage>("trust-log", [
      { id: "a3", timestamp: new Date(), attempts: 3, body: { log: 5, leaves: [three] } },
      { id: "a2", timestamp: new Date(), attempts: 1, body: { log: 5, leaves: [two] } },
    ]);
    await createQueueHandler({})(second, env);
    const again = await getQueueResult(second, ctx);
    expect(again.explicitAcks.sort()).toEqual(["a2", "a3"]);
    expect(again.retryMessages).toEqual([]);
    expect((await (await sequencer(5)).status(await markOf(sid))).acknowledged).toBe(3);
  });

  it("retries the messages of a log whose sequencer fails", async () => {
    const sid = freshSid();
    const batch = createMessageBatch<LogMessage>("trust-log", [{ id: "r1", timestamp: new Date(), attempts: 1, body: { log: 6, leaves: [await leafOf(sid, 1)] } }]);
    const ctx = createExecutionContext();
    const down = { ...env, LOG_SEQUENCER: { getByName: () => ({ append: () => Promise.reject(new Error("overloaded")) }) } } as unknown as Env;
    const { errors } = await loggedErrors(() => createQueueHandler({})(batch, down));
    expect((await getQueueResult(batch, ctx)).retryMessages).toEqual([{ msgId: "r1" }]);
    expect(errors).toEqual([expect.objectContaining({ message: "log: sequencer unavailable; retrying", log: 6, leaves: 1 })]);
  });

  it("waits 5 s before a retry, doubled per attempt, at most a minute", () => {
    expect([1, 2, 3, 4, 5, 10].map(aheadDelaySeconds)).toEqual([5, 10, 20, 40, 60, 60]);
  });

  it("puts back what the dead-letter queue gets, raises /health's log alarm, and the leaf lands once its gap is filled", async () => {
    const queues = holdQueues({}, { log: true });
    try {
      const sid = freshSid();
      const [one, two] = await Promise.all([1, 2].map((seq) => leafOf(sid, seq)));
      const counted = async () => {
        const row = await env.DB.prepare("SELECT value FROM model_settings WHERE key = 'log_dead_letters'").first<{ value: string }>();
        return row ? (JSON.parse(row.value) as { requeued: number }).requeued : 0;
      };
      const before = await counted();
      // Entry 2 arrives alone: retried, after a delay.
      queues.pending.push({ queue: "trust-log", body: { log: 4, leaves: [two] } satisfies LogMessage, attempts: 1 });
      await queues.drain();
      expect(queues.retried.map((m) => [m.queue, m.delaySeconds])).toEqual([["trust-log", 5]]);
      // Its retries ran out (the platform moves it to the dead-letter queue): it is put back, a minute later.
      queues.retried.length = 0;
      queues.pending.push({ queue: "trust-log-dlq", body: { log: 4, leaves: [two] } satisfies LogMessage, attempts: 1 });
      const { errors } = await loggedErrors(() => queues.drain());
      expect(errors).toContainEqual(expect.objectContaining({ message: "log: dead-lettered messages put back on the trust-log queue", messages: 1, leaves: 1 }));
      expect(queues.retried.map((m) => m.queue)).toEqual(["trust-log"]);
      expect(await counted()).toBe(before + 1);
      // Entry 1 comes: with the put-back 2, both land, in order.
      queues.redeliver();
      queues.pending.push({ queue: "trust-log", body: { log: 4, leaves: [one] } satisfies LogMessage, attempts: 1 });
      await queues.drain();
      expect(queues.retried).toEqual([]);
      expect((await (await sequencer(4)).status(await markOf(sid))).acknowledged).toBe(2);
    } finally {
      queues.release();
    }
  });

  it("puts back a dead-letter batch larger than one send carries (256 KB): every message, in sends within the limits", async () => {
    const queues = holdQueues({}, { log: true });
    try {
      const item = await leafOf(freshSid(), 1);
      // 20 messages of 100 leaves each, about 21 KB apiece: about 420 KB in one dead-letter batch.
      const bodies: LogMessage[] = Array.from({ length: 20 }, () => ({ log: 4, leaves: Array(100).fill(item) }));
      expect(JSON.stringify(bodies).length).toBeGreaterThan(400_000);
      const batch = createMessageBatch<LogMessage>(
        "trust-log-dlq",
        bodies.map((body, i) => ({ id: `d${i}`, timestamp: new Date(), attempts: 1, body })),
      );
      const ctx = createExecutionContext();
      await loggedErrors(() => createQueueHandler({})(batch, env));
      const result = await getQueueResult(batch, ctx);
      expect(result.retryBatch.retry).toBe(false);
      expect(result.ackAll).toBe(true);
      expect(queues.pending.map((m) => m.queue)).toEqual(Array(20).fill("trust-log"));
    } finally {
      queues.release();
    }
  });

  // The only read of /health in this file: its checks are kept 5 s per isolate.
  it("shows the alarm on /health for a day after a put-back", async () => {
    await env.DB.prepare("INSERT INTO model_settings (key, value, updated_at) VALUES ('log_dead_letters', ?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?1")
      .bind(JSON.stringify({ requeued: 3, last_at: new Date(Date.now() - 60_000).toISOString() }), new Date().toISOString())
      .run();
    const res = await call("/health", { headers: { "cf-connecting-ip": "203.0.113.9" } });
    expect(((await res.json()) as { log: unknown }).log).toMatchObject({ status: "alarm", dead_letters_requeued: 3 });
  });
});
