import { createApp } from "./app";
import { metering } from "./d1-meter";
import type { Env } from "./env";

export { AgentScorer } from "./durable/agent-scorer";
export { RateLimiter } from "./durable/rate-limiter";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, metering(env), ctx),
} satisfies ExportedHandler<Env>;
