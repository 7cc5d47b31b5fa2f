// A queue's sendBatch takes at most 100 messages and 256 KB in all (a message at most 128 KB):
// every producer here sends through `sendAll`, so no fan-out, resend or put-back can outgrow a
// call, whatever the number of endpoints, leaves or dead letters.

/** Messages in one sendBatch, at most. */
export const MESSAGES_PER_SEND = 100;
/** Characters of JSON in one sendBatch, at most: under 256 KB with room for each message's envelope. */
export const CHARS_PER_SEND = 192 * 1024;

/** `bodies` in order, in groups each within both limits (a body over the size alone is a group of its own). */
export function sendGroups<T>(bodies: readonly T[]): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let size = 0;
  for (const body of bodies) {
    const chars = JSON.stringify(body).length;
    if (group.length > 0 && (group.length === MESSAGES_PER_SEND || size + chars > CHARS_PER_SEND)) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(body);
    size += chars;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** A queue's producer, as much of it as is used here (the code also runs where workers' types are not loaded). */
export interface Producer<T> {
  sendBatch(messages: { body: T; contentType: "json"; delaySeconds?: number }[]): Promise<unknown>;
}

/**
 * Sends `bodies` as JSON messages, in order, in as few calls as the limits allow. A failed call
 * throws after the groups before it went: a caller that retries sends those twice, so its
 * consumers must be idempotent (every consumer here is).
 */
export async function sendAll<T>(queue: Producer<T>, bodies: readonly T[], delaySeconds?: number): Promise<void> {
  for (const group of sendGroups(bodies)) {
    await queue.sendBatch(
      group.map((body) => (delaySeconds === undefined ? { body, contentType: "json" as const } : { body, contentType: "json" as const, delaySeconds })),
    );
  }
}
