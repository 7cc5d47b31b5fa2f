import { dohEndpoint, type Env } from "../env";
import { createDohResolver } from "../net/resolver";
import type { QueueDeps } from "./deps";
import { consumeDeadLetters, consumeDeliveries } from "./deliveries";
import { consumeDeadEvents, consumeEvents } from "./events";
import { consumeDeadLog } from "./dead-log";
import { consumeLog } from "./log";

/** The queues this Worker consumes (wrangler.toml): names as configured there. */
export const QUEUES = {
  events: "trust-events",
  deadEvents: "trust-events-dlq",
  deliveries: "trust-deliveries",
  deadLetters: "trust-deliveries-dlq",
  log: "trust-log",
  deadLog: "trust-log-dlq",
} as const;

/** The queue consumers; `deps` replaces their clock and outbound calls (tests drive them with their own). */
export function createQueueHandler(deps: Partial<QueueDeps> = {}) {
  return async (batch: MessageBatch, env: Env): Promise<void> => {
    const outbound: typeof fetch = (input, init) => fetch(input, init);
    const endpoint = dohEndpoint(env);
    const resolved: QueueDeps = {
      now: deps.now ?? Date.now,
      fetchOutbound: deps.fetchOutbound ?? outbound,
      resolve: deps.resolve ?? (endpoint ? createDohResolver(endpoint, outbound) : null),
    };
    if (batch.queue === QUEUES.events) return consumeEvents(batch as MessageBatch<never>, env, resolved);
    if (batch.queue === QUEUES.deadEvents) return consumeDeadEvents(batch as MessageBatch<never>);
    if (batch.queue === QUEUES.deliveries) return consumeDeliveries(batch as MessageBatch<never>, env, resolved);
    if (batch.queue === QUEUES.log) return consumeLog(batch as MessageBatch<never>, env);
    if (batch.queue === QUEUES.deadLog) return consumeDeadLog(batch as MessageBatch<never>, env, resolved.now());
    if (batch.queue === QUEUES.deadLetters) return consumeDeadLetters(batch as MessageBatch<never>, env, resolved);
    console.error(JSON.stringify({ level: "error", message: "a batch from an unknown queue", queue: batch.queue }));
    batch.retryAll();
  };
}
