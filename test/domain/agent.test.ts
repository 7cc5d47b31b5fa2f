// What each change does to an agent's record under the model the service serves: the record's
// number and counts move with each entry, a report moves only its reporter's pair, a configuration
// change never raises a score, and clear needs an owner whose operator score is at least 400.
import { describe, expect, it } from "vitest";
import { applyConfigTo, applyCredibilityTo, applyReportTo, newRecord, scoreOfRecord, transactionIdOf, type AgentRecord } from "../../src/domain/agent";
import type { PairState } from "../../src/domain/model";

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const config = { modelProvider: "p", modelName: "m", systemPromptHash: null, tools: [], memoryConfig: null };

function agent(operatorId: number | null = 1): AgentRecord {
  return newRecord({ sid: "SID-0x00000000000000a1", num: 1024, shard: 0, log: 0 }, { operatorId, name: "A", description: null, config, fingerprint: "f", claimTokenHash: null }, T0);
}

/** Three reporters credited with c = 1, then `n` good reports from each. */
function praised(record: AgentRecord, n: number): { record: AgentRecord; pairs: Map<string, PairState> } {
  const pairs = new Map<string, PairState>();
  const credited = applyCredibilityTo(record, pairs, { at: T0 + 1, values: { r2: 1, r3: 1, r4: 1 } });
  for (const p of credited.pairs) pairs.set(p.reporter, p);
  let next = credited.record;
  for (let i = 0; i < n; i++) {
    for (const [op, key] of [[2, "r2"], [3, "r3"], [4, "r4"]] as const) {
      const at = T0 + (i + 1) * HOUR + op;
      const applied = applyReportTo(next, { reporter: op, at, transactionType: "t", outcome: "success", signals: { quality: 950, reliability: 950 }, metadata: null, receipt: true }, pairs.get(key) ?? null, { reporter: key, owner: "owner" });
      pairs.set(key, applied.pair);
      next = applied.record;
    }
  }
  return { record: next, pairs };
}

describe("an agent's record under the model", () => {
  it("numbers each entry, counts outcomes and names a report's transaction by the agent's number and the entry's", () => {
    const before = agent();
    const applied = applyReportTo(before, { reporter: 2, at: T0 + HOUR, transactionType: "t", outcome: "failure", signals: {}, metadata: null, receipt: false }, null, { reporter: "r2", owner: "owner" });
    expect(applied.record.seq).toBe(1);
    expect(applied.recorded.id).toBe(transactionIdOf(1024, 1));
    expect(applied.record.outcomes).toEqual({ failure: 1 });
    expect(applied.pair).toMatchObject({ reporter: "r2", reports: 1, failing: true, level: 0 });
    // A reporter with no credibility moves nothing: the score stays where a new agent's is.
    expect(applied.score.composite).toBe(500);
  });

  it("clears an agent three credible reporters praise, only with an owner whose operator score is 400 or more", () => {
    const { record } = praised(agent(), 3);
    const now = T0 + 4 * HOUR;
    expect(scoreOfRecord(record, now).recommendation).toBe("clear");
    expect(scoreOfRecord(record, now, 399).recommendation).toBe("review");
    const unowned = praised(agent(null), 3).record;
    expect(scoreOfRecord(unowned, now).recommendation).toBe("review");
    expect(scoreOfRecord(unowned, now).reasons).toContain("NO_OWNER");
  });

  it("decays what was earned on a configuration change, never raising a score", () => {
    const { record, pairs } = praised(agent(), 3);
    const at = T0 + 5 * HOUR;
    const before = scoreOfRecord(record, at);
    const changed = applyConfigTo(record, { ...config, modelName: "m2" }, "f2", at, pairs)!;
    expect(changed.changeType).toBe("model_swap");
    expect(changed.pairs.length).toBe(3);
    expect(changed.score.composite).toBeLessThan(before.composite);
    for (const d of ["reliability", "quality", "financial", "security", "stability"] as const) expect(changed.score.dimensions[d]).toBeLessThanOrEqual(before.dimensions[d]);
    expect(changed.record.seq).toBe(record.seq + 1);
    expect(applyConfigTo(record, config, "f", at, pairs)).toBeNull();
  });
});
