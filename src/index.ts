import { createApp } from "./app";
import { metering } from "./d1-meter";
import type { Env } from "./env";
import { createQueueHandler } from "./queues";
import { pruneDeliveries } from "./queues/pruning";

export { Agent } from "./durable/agent";
export { RateLimiter } from "./durable/rate-limiter";
export { StatusList } from "./durable/status-list";
export { LogSequencer } from "./durable/log-sequencer";

const app = createApp();
const consume = createQueueHandler();

export default {
  fetch: (request, env, ctx) => app.fetch(request, metering(env), ctx),
  queue: (batch, env) => consume(batch, metering(env, "queue:")),
  scheduled: (controller, env, ctx) => ctx.waitUntil(pruneDeliveries(metering(env, "cron:"), controller.scheduledTime)),
} satisfies ExportedHandler<Env>;
