// The agent's row in the object's journal: a mark made whole from the record when the batch is
// built, so an entry's size no longer grows with the agent's evidence (about 650 bytes a reporter).
import { describe, expect, it } from "vitest";
import { applyReportTo, newRecord, type AgentRecord } from "../../src/domain/agent";
import { agentRow, current, journaled, rollupWrite, scoreColumns, type ShardWrite } from "../../src/db/shard-writes";

const T0 = Date.UTC(2026, 10, 1);
const MINUTE = 60_000;
const DAY_MS = 86_400_000;

/** An agent with one report from each of `reporters` operators. */
function agentWith(reporters: number): AgentRecord {
  let record = newRecord(
    { sid: "SID-0x00000000000000b2", num: 2048, shard: 1, log: 0 },
    { operatorId: 1, name: "B", description: null, config: { modelProvider: "p", modelName: "m", systemPromptHash: null, tools: [], memoryConfig: null }, fingerprint: "f", claimTokenHash: null },
    T0,
  );
  for (let r = 2; r < reporters + 2; r++) {
    record = applyReportTo(
      record,
      { reporter: r, verified: true, at: T0 + r * MINUTE, transactionType: "t", outcome: "success", signals: { quality: 900 }, metadata: null, evidenceFactor: 1, penalty: 1 },
      0,
    ).record;
    record = { ...record, seq: record.seq + 1 };
  }
  return record;
}

const entry: ShardWrite = { kind: "entryStatus", sid: "SID-0x00000000000000b2", n: 3, status: "disputed" };

describe("journaled and current", () => {
  it("keeps the agent's row as a mark a few dozen bytes long, whatever the evidence", () => {
    const small = agentWith(1);
    const large = agentWith(200);
    const at = T0 + DAY_MS;
    expect(JSON.stringify(scoreColumns(large, at)).length).toBeGreaterThan(100_000);
    for (const record of [small, large]) {
      const kept = journaled([entry, scoreColumns(record, at)]);
      expect(kept).toEqual([entry, { kind: "current", sid: record.sid, at, whole: false }]);
      expect(JSON.stringify(kept[1]).length).toBeLessThan(100);
      expect(journaled([agentRow(record, at)])).toEqual([{ kind: "current", sid: record.sid, at, whole: true }]);
    }
  });

  it("makes the marks one write of the record as it stands: whole if any mark was, as of the last mark's time", () => {
    const before = agentWith(3);
    const after = agentWith(5);
    const [t1, t2] = [T0 + DAY_MS, T0 + 2 * DAY_MS];
    // Score columns only: the newest record's, as of the last mark.
    expect(current([...journaled([scoreColumns(before, t1)]), entry, ...journaled([scoreColumns(before, t2)])], after)).toEqual([entry, scoreColumns(after, t2)]);
    // A whole row anywhere among them makes the write whole.
    expect(current([...journaled([agentRow(before, t1)]), ...journaled([scoreColumns(before, t2)])], after)).toEqual([agentRow(after, t2)]);
    // Writes with no mark pass unchanged, as do journal entries from before marks (no `at`).
    const rollup = rollupWrite({ reporter: "2", agent: after.sid, owner: "1", day: 20_400, reports: 1, receipted: 0, established: false, net: { reliability: 0, quality: 1, financial: 0, security: 0, stability: 0 }, receiptedNet: { reliability: 0, quality: 0, financial: 0, security: 0, stability: 0 } });
    const { at: _at, ...older } = scoreColumns(before, t1) as Extract<ShardWrite, { kind: "score" }>;
    expect(journaled([older, rollup])).toEqual([older, rollup]);
    expect(current([older, rollup], after)).toEqual([older, rollup]);
    expect(current([older, ...journaled([scoreColumns(before, t2)])], after)).toEqual([older, scoreColumns(after, t2)]);
  });
});
