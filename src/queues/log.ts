import type { LogMessage } from "../domain/log/messages";
import { sequencerName } from "../durable/log-sequencer";
import { logCount, type Env } from "../env";

// The trust-log queue: leaves from agents' objects, handed to their log's sequencer, one call per
// log per batch. A message is acknowledged once its sequencer has the leaves (accepted or refused
// for good: a refusal is logged and never changes on a retry); a sequencer that fails retries its
// messages. The agents' objects learn what was accepted from the sequencer itself (status).

/** Leaves per call to a sequencer: a batch of 100 messages may carry many thousands. */
const LEAVES_PER_CALL = 2000;

export async function consumeLog(batch: MessageBatch<LogMessage>, env: Env): Promise<void> {
  const byLog = new Map<number, Message<LogMessage>[]>();
  for (const message of batch.messages) {
    const body = message.body;
    if (!body || !Number.isInteger(body.log) || body.log < 0 || body.log >= logCount(env) || !Array.isArray(body.leaves)) {
      console.error(JSON.stringify({ level: "error", message: "log: a malformed trust-log message, dropped", log: body?.log, id: message.id }));
      message.ack();
      continue;
    }
    byLog.set(body.log, [...(byLog.get(body.log) ?? []), message]);
  }
  await Promise.all(
    [...byLog].map(async ([log, messages]) => {
      const sequencer = env.LOG_SEQUENCER.getByName(sequencerName(log));
      const leaves = messages.flatMap((m) => m.body.leaves);
      try {
        for (let i = 0; i < leaves.length; i += LEAVES_PER_CALL) {
          const { refused } = await sequencer.append(leaves.slice(i, i + LEAVES_PER_CALL));
          for (const r of refused) console.error(JSON.stringify({ level: "error", message: "log: leaf refused", log, ...r }));
        }
        for (const m of messages) m.ack();
      } catch (err) {
        console.error(JSON.stringify({ level: "error", message: "log: sequencer unavailable; retrying", log, leaves: leaves.length, error: String(err) }));
        for (const m of messages) m.retry();
      }
    }),
  );
}
