// When time alone changes an agent's face (confidence, recommendation): the moment the object's
// alarm is set for.
import { describe, expect, it } from "vitest";
import { applyCredibilityTo, applyReportTo, faceAt as face, newRecord, nextFaceChange, type AgentRecord } from "../../src/domain/agent";

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;

/**
 * An agent with a good report a day for eight days from each of three verified reporters, credible
 * (c = 1, the bootstrap latch's floor) from their first reports: medium confidence. Version 3 counts
 * only reporters established on the agent (reports on two days) towards confidence.
 */
function reportedAgent(): AgentRecord {
  let record = newRecord(
    { sid: "SID-0x00000000000000a1", num: 1024, shard: 0, log: 0 },
    { operatorId: 1, name: "A", description: null, config: { modelProvider: "p", modelName: "m", systemPromptHash: null, tools: [], memoryConfig: null }, fingerprint: "f", claimTokenHash: null },
    T0 - 8 * DAY,
  );
  for (let day = 8; day >= 1; day--) {
    for (const reporter of [2, 3, 4]) {
      const at = T0 - day * DAY + reporter * MINUTE;
      record = applyReportTo(
        record,
        { reporter, verified: true, at, transactionType: "t", outcome: "success", signals: { quality: 950, reliability: 950 }, metadata: null, evidenceFactor: 1, penalty: 1 },
        0,
      ).record;
    }
    if (day === 8) record = applyCredibilityTo(record, { at: T0 - day * DAY + 5 * MINUTE, values: Object.fromEntries([2, 3, 4].map((r) => [String(record.locals[r]), 1])), bootstrap: true });
  }
  return record;
}

describe("nextFaceChange", () => {
  const record = reportedAgent();
  // The first day on which time alone shows another face.
  let day = 1;
  while (face(record, T0 + day * DAY) === face(record, T0) && day < 1000) day++;

  it("finds a change of face within the horizon, to the minute", () => {
    expect(day).toBeLessThan(1000);
    const from = T0 + (day - 1) * DAY;
    const at = nextFaceChange(record, from, DAY);
    expect(at).toBeGreaterThan(from);
    expect(at).toBeLessThanOrEqual(from + DAY);
    expect(face(record, at)).not.toBe(face(record, from));
    expect(face(record, at - MINUTE)).toBe(face(record, from));
    // Nothing earlier: the face holds at every hour before it.
    for (let t = from; t < at - MINUTE; t += HOUR) expect(face(record, t)).toBe(face(record, from));
  });

  it("answers the horizon when the face holds through it", () => {
    const from = T0 + HOUR;
    expect(day).toBeGreaterThan(2);
    expect(nextFaceChange(record, from, DAY)).toBe(from + DAY);
  });
});
