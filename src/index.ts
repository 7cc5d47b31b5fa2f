import { createApp } from "./app";

export { AgentScorer } from "./durable/agent-scorer";
export { RateLimiter } from "./durable/rate-limiter";

export default createApp();
