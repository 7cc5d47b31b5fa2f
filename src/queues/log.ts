import type { LogMessage } from "../domain/log/messages";
import { sequencerName } from "../durable/log-sequencer";
import { logCount, type Env } from "../env";

// The trust-log queue: leaves from agents' objects, handed to their log's sequencer, one call per
// log per batch. A message is acknowledged once its sequencer has taken its leaves (accepted, or
// refused for good: a refusal is logged and never changes on a retry). A message with a leaf the
// sequencer answered `ahead` (its agent's earlier entry has not arrived yet) is retried after a
// delay, as is every message of a sequencer that failed; after its retries it goes to the
// dead-letter queue, whose consumer puts it back (./dead-log.ts). Nothing is dropped.

/** Leaves per call to a sequencer: a batch of 100 messages may carry many thousands. */
const LEAVES_PER_CALL = 2000;

/** The delay before a message with a leaf ahead of its agent's mark is offered again: 5 s, doubled per attempt, at most a minute. */
export const aheadDelaySeconds = (attempts: number) => Math.min(5 * 2 ** Math.max(0, attempts - 1), 60);

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
      const ahead = new Set<string>();
      try {
        for (let i = 0; i < leaves.length; i += LEAVES_PER_CALL) {
          const answer = await sequencer.append(leaves.slice(i, i + LEAVES_PER_CALL));
          for (const r of answer.refused) console.error(JSON.stringify({ level: "error", message: "log: leaf refused", log, ...r }));
          for (const r of answer.ahead) ahead.add(`${r.sid}/${r.seq}`);
        }
      } catch (err) {
        console.error(JSON.stringify({ level: "error", message: "log: sequencer unavailable; retrying", log, leaves: leaves.length, error: String(err) }));
        for (const m of messages) m.retry({ delaySeconds: aheadDelaySeconds(m.attempts) });
        return;
      }
      for (const m of messages) {
        const waits = m.body.leaves.some((l) => ahead.has(`${l?.sid}/${l?.n ?? (l?.leaf as { seq?: number } | undefined)?.seq}`));
        if (waits) m.retry({ delaySeconds: aheadDelaySeconds(m.attempts) });
        else m.ack();
      }
    }),
  );
}
