// Events as agents' objects emit them, handed to the events queue's consumer as the queue would.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { AgentEvent } from "../../src/domain/events";
import { createQueueHandler } from "../../src/queues";

/** An event of `sid` with the id its object gives the `n`th event of storage `epoch`, at `at`. */
export const statusEvent = (sid: string, type: AgentEvent["type"], data: Record<string, unknown>, epoch: string, n: number, at: number): AgentEvent =>
  ({
    id: `evt_${sid.slice(6)}_${epoch}_${n}`,
    type,
    sid,
    ownerId: null,
    timestamp: new Date(at).toISOString(),
    data: { sid, ...data },
  }) as unknown as AgentEvent;

/** Events through the events queue's consumer; what it acknowledged and retried. */
export async function deliverEvents(events: AgentEvent[]) {
  const at = new Date(Date.parse(events[0]?.timestamp ?? "2026-11-21T10:20:30Z"));
  const batch = createMessageBatch("trust-events", events.map((body, i) => ({ id: `m${i}`, timestamp: at, attempts: 1, body })));
  const ctx = createExecutionContext();
  await createQueueHandler({ now: () => at.getTime() })(batch, env);
  return getQueueResult(batch, ctx);
}
