// How producers group messages for a queue's sendBatch (src/domain/queue-batches.ts): every body
// once and in order, no group over 100 messages or the size bound, unless one body alone is.
import { describe, expect, it } from "vitest";
import { CHARS_PER_SEND, MESSAGES_PER_SEND, sendGroups } from "../../src/domain/queue-batches";

describe("sendGroups", () => {
  it("cuts at 100 messages", () => {
    const bodies = Array.from({ length: 250 }, (_, i) => ({ i }));
    const groups = sendGroups(bodies);
    expect(groups.map((g) => g.length)).toEqual([MESSAGES_PER_SEND, MESSAGES_PER_SEND, 50]);
    expect(groups.flat()).toEqual(bodies);
  });

  it("cuts at the size bound, and gives a body over it a group of its own", () => {
    const mid = { x: "m".repeat(CHARS_PER_SEND / 3) };
    const huge = { x: "h".repeat(CHARS_PER_SEND) };
    const groups = sendGroups([mid, mid, mid, huge, mid]);
    for (const g of groups) if (g.length > 1) expect(JSON.stringify(g).length).toBeLessThanOrEqual(CHARS_PER_SEND + g.length);
    expect(groups).toEqual([[mid, mid], [mid], [huge], [mid]]);
    expect(sendGroups([])).toEqual([]);
  });
});
