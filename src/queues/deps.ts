import type { Resolver } from "../net/resolver";

/** What the queue consumers reach out with: the clock, the resolver, outbound fetch. */
export interface QueueDeps {
  now: () => number;
  resolve: Resolver | null;
  fetchOutbound: typeof fetch;
}
