import { DurableObject } from "cloudflare:workers";
export class AgentScorer extends DurableObject {}
export class RateLimiter extends DurableObject {}
export default { fetch: () => new Response("starting") } satisfies ExportedHandler;
