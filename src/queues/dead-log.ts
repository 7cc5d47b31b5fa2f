import { countRequeued } from "../db/log-dead-letters";
import type { LogMessage } from "../domain/log/messages";
import { sendAll } from "../domain/queue-batches";
import type { Env } from "../env";

// The trust-log dead-letter queue: messages the trust-log consumer retried to the end (a sequencer
// down for the whole retry window, or a leaf whose agent's earlier entry has still not arrived).
// Nothing is dropped: each is put back on the trust-log queue, a minute later, and counted in the
// control database, which /health shows as an alarm for a day. The daily reconciliation catches a
// gap that never fills.

/** The delay before a message put back is offered again. */
export const REQUEUE_DELAY_SECONDS = 60;

export async function consumeDeadLog(batch: MessageBatch<LogMessage>, env: Env, now: number): Promise<void> {
  if (!env.LOG_QUEUE || batch.messages.length === 0) {
    batch.retryAll();
    return;
  }
  try {
    // A dead-letter batch of 100 messages may hold far more than one sendBatch takes (256 KB). If a
    // later group fails, the whole batch comes again: the groups sent go twice, and the sequencer
    // acknowledges what it already holds.
    await sendAll(
      env.LOG_QUEUE,
      batch.messages.map((m) => m.body),
      REQUEUE_DELAY_SECONDS,
    );
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        message: "log: dead-lettered leaves could not be put back; retrying",
        messages: batch.messages.length,
        error: String(err),
      }),
    );
    batch.retryAll();
    return;
  }
  batch.ackAll();
  const leaves = batch.messages.reduce((sum, m) => sum + (Array.isArray(m.body?.leaves) ? m.body.leaves.length : 0), 0);
  console.error(
    JSON.stringify({ level: "error", message: "log: dead-lettered messages put back on the trust-log queue", messages: batch.messages.length, leaves }),
  );
  try {
    await countRequeued(env.DB, batch.messages.length, new Date(now).toISOString());
  } catch (err) {
    console.error(JSON.stringify({ level: "error", message: "log: the dead-letter count was not recorded", error: String(err) }));
  }
}
