// The service's queues, driven by the test instead of waited for: what the Worker and the agents'
// objects send to a producer binding is held here (the objects run in the tests' isolate and share
// its bindings), and `drain()` hands it to the Worker's queue handler in batches made with
// `createMessageBatch`, reading each batch's acks and retries with `getQueueResult`, as the
// platform would, until nothing is left. No test waits a fixed time for a consumer.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createQueueHandler, QUEUES } from "../src/queues";
import type { QueueDeps } from "../src/queues/deps";

interface Held {
  queue: string;
  body: unknown;
  attempts: number;
}

/** A message the consumer asked to get again, with the delay it asked for. */
export interface Retried extends Held {
  delaySeconds: number | undefined;
}

const PRODUCERS = [
  ["EVENTS", QUEUES.events],
  ["DELIVERIES", QUEUES.deliveries],
  ["DEAD_LETTERS", QUEUES.deadLetters],
] as const;

/** Cloudflare Queues' limits: messages and bytes a sendBatch, bytes a message. */
const MESSAGES_PER_SEND = 100;
const BATCH_BYTES = 256 * 1024;
const MESSAGE_BYTES = 128 * 1024;

/** The platform's batch size for these consumers (wrangler.toml max_batch_size). */
const BATCH_SIZE = 10;

/**
 * Holds the service's queues. With `log`, the agents' leaves for the transparency log too (the
 * trust-log queue): a test that drives the log end to end drains them into the sequencers itself.
 */
export function holdQueues(deps: Partial<QueueDeps> = {}, options: { log?: boolean } = {}) {
  const pending: Held[] = [];
  const retried: Retried[] = [];
  const refusing = new Set<string>();
  const accept = (queue: string) => {
    if (refusing.has(queue)) throw new Error(`${queue} is unavailable`);
  };
  // The platform's limits, held to as the platform holds them (a send over one fails whole), so a
  // producer that outgrows a call fails here as it would in production.
  const bytes = (body: unknown) => new TextEncoder().encode(JSON.stringify(body)).length;
  const withinLimits = (queue: string, bodies: unknown[]) => {
    if (bodies.length > MESSAGES_PER_SEND) throw new Error(`${queue}: batch message count of ${bodies.length} exceeds limit of ${MESSAGES_PER_SEND}`);
    const sizes = bodies.map(bytes);
    const largest = Math.max(0, ...sizes);
    if (largest > MESSAGE_BYTES) throw new Error(`${queue}: message size of ${largest} bytes exceeds limit of ${MESSAGE_BYTES}`);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total > BATCH_BYTES) throw new Error(`${queue}: batch size of ${total} bytes exceeds limit of ${BATCH_BYTES}`);
  };
  const held = options.log ? [...PRODUCERS, ["LOG_QUEUE", QUEUES.log] as const] : PRODUCERS;
  const producers = held.map(([binding, queue]) => {
    const producer = env[binding] as unknown as Record<string, unknown>;
    producer.send = async (body: unknown) => (accept(queue), withinLimits(queue, [body]), void pending.push({ queue, body, attempts: 1 }));
    producer.sendBatch = async (messages: Iterable<{ body: unknown }>) => {
      accept(queue);
      const bodies = [...messages].map((m) => m.body);
      withinLimits(queue, bodies);
      for (const body of bodies) pending.push({ queue, body, attempts: 1 });
    };
    return producer;
  });
  const handle = createQueueHandler(deps);
  let ids = 0;

  return {
    /** Messages sent and not yet consumed. */
    pending,
    /** Messages the consumer retried, oldest first; `redeliver()` sends them again. */
    retried,
    /** The queues (by name) whose sends fail while they are here, as an unavailable queue's do. */
    refusing,

    /** Delivers everything held, batch after batch, including what the consumers send on; how many batches ran. */
    async drain(maxBatches = 100): Promise<number> {
      let batches = 0;
      while (pending.length > 0) {
        if (++batches > maxBatches) throw new Error(`the queues did not drain in ${maxBatches} batches`);
        const queue = pending[0].queue;
        const taken: Held[] = [];
        for (let i = 0; i < pending.length && taken.length < BATCH_SIZE; ) {
          if (pending[i].queue === queue) taken.push(...pending.splice(i, 1));
          else i++;
        }
        const messages = taken.map((m) => ({ id: `held-${++ids}`, timestamp: new Date(), attempts: m.attempts, body: m.body }));
        const batch = createMessageBatch(queue, messages);
        const ctx = createExecutionContext();
        const delays = new Map<string, number | undefined>();
        for (const message of batch.messages) {
          const retry = message.retry.bind(message);
          // The delay each retry asks for (the runtime's result records only that there was a retry).
          Object.defineProperty(message, "retry", { value: (options?: QueueRetryOptions) => (delays.set(message.id, options?.delaySeconds), retry(options)) });
        }
        await handle(batch, env);
        const result = await getQueueResult(batch, ctx);
        const again = result.retryBatch.retry ? messages.map((m) => m.id) : result.retryMessages.map((m) => m.msgId);
        for (const id of again) {
          const m = taken[messages.findIndex((x) => x.id === id)];
          retried.push({ ...m, delaySeconds: delays.get(id) ?? result.retryBatch.delaySeconds });
        }
      }
      return batches;
    },

    /** Sends the retried messages again (one more attempt each), as the platform does after their delay. */
    redeliver(): Retried[] {
      const due = retried.splice(0, retried.length);
      for (const m of due) pending.push({ queue: m.queue, body: m.body, attempts: m.attempts + 1 });
      return due;
    },

    /** Gives the bindings back to the real local queues. */
    release() {
      for (const producer of producers) {
        delete producer.send;
        delete producer.sendBatch;
      }
    },
  };
}

export type HeldQueues = ReturnType<typeof holdQueues>;
