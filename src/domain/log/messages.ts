// The trust-log queue's messages: leaves from agents' objects for log `log`'s sequencer. One
// message may carry many leaves (of one agent's outbox, or of several agents of the same log).

import { sendAll, type Producer } from "../queue-batches";
import type { Leaf } from "./leaf";

/**
 * A leaf with what the sequencer checks it by (never published): the agent, the entry number and,
 * for a tagged leaf, the owner epoch its tag is keyed by. Messages sent before tagged leaves carry
 * no `n` (the legacy leaf's `seq` is it).
 */
export interface LeafItem {
  sid: string;
  n?: number;
  epoch?: number;
  leaf: Leaf;
}

export interface LogMessage {
  log: number;
  leaves: LeafItem[];
}

/** A leaf on its way to its agent's log. */
export interface LogItem extends LeafItem {
  log: number;
}

/** At most this many leaves go in one message (about 250 bytes each at most; a queue message holds 128 KB). */
export const LEAVES_PER_MESSAGE = 200;
/** The messages carrying `items`: one per log, or more past LEAVES_PER_MESSAGE, each log's leaves in the order given. */
export function logMessages(items: readonly LogItem[]): LogMessage[] {
  const byLog = new Map<number, LeafItem[]>();
  for (const { log, ...item } of items) {
    const leaves = byLog.get(log) ?? [];
    leaves.push(item);
    byLog.set(log, leaves);
  }
  const messages: LogMessage[] = [];
  for (const [log, leaves] of byLog) {
    for (let i = 0; i < leaves.length; i += LEAVES_PER_MESSAGE) messages.push({ log, leaves: leaves.slice(i, i + LEAVES_PER_MESSAGE) });
  }
  return messages;
}

/** The trust-log queue's producer. */
export type LogQueue = Producer<LogMessage>;

/** Sends `items` to the log queue in as few calls as the queue's limits allow (a batch of reports' leaves go in one or two). */
export async function sendLeaves(queue: LogQueue, items: readonly LogItem[]): Promise<void> {
  await sendAll(queue, logMessages(items));
}

/** The name of log n's sequencer object. */
export const sequencerName = (n: number) => `log:${n}`;
