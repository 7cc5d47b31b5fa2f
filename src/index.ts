import { createApp } from "./app";
import { metering } from "./d1-meter";
import type { Env } from "./env";
import { createQueueHandler } from "./queues";
import { runCredibilityJob } from "./queues/credibility-job";
import { pruneDeliveries } from "./queues/pruning";

export { Agent } from "./durable/agent";
export { RateLimiter } from "./durable/rate-limiter";
export { StatusList } from "./durable/status-list";
export { LogSequencer } from "./durable/log-sequencer";

const CREDIBILITY_CRON = "*/15 * * * *";
const app = createApp();
const consume = createQueueHandler();

export default {
  fetch: (request, env, ctx) => app.fetch(request, metering(env), ctx),
  queue: (batch, env) => consume(batch, metering(env, "queue:")),
  // wrangler.toml [triggers]: the daily pruning, and the credibility job every 15 minutes (a no-op once the day's snapshot is out).
  scheduled: (controller, env, ctx) =>
    ctx.waitUntil(
      controller.cron === CREDIBILITY_CRON
        ? runCredibilityJob(metering(env, "cron:"), controller.scheduledTime).then(() => undefined)
        : pruneDeliveries(metering(env, "cron:"), controller.scheduledTime).then(() => undefined),
    ),
} satisfies ExportedHandler<Env>;
