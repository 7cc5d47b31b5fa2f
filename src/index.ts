import { createApp } from "./app";
import { metering } from "./d1-meter";
import type { Env } from "./env";
import { createQueueHandler } from "./queues";

export { AgentScorer } from "./durable/agent-scorer";
export { RateLimiter } from "./durable/rate-limiter";

const app = createApp();
const consume = createQueueHandler();

export default {
  fetch: (request, env, ctx) => app.fetch(request, metering(env), ctx),
  queue: (batch, env) => consume(batch, metering(env, "queue:")),
} satisfies ExportedHandler<Env>;
