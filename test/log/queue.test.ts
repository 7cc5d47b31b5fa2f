// The trust-log queue: messages of leaves handed to their log's sequencer, one call per log.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LogMessage } from "../../src/domain/log";
import type { Env } from "../../src/env";
import { createQueueHandler } from "../../src/queues";
import { freshSid, leafOf, loggedErrors, sequencer } from "./helpers";

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
    expect(await (await sequencer(6)).status(one.leaf.agent)).toEqual({ acknowledged: 3, sequenced: null });
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
});
