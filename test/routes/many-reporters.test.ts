// An agent with 20,000 reporters: its row stays small (the aggregates), each reporter's vote is a
// row of its own, and a report reads and writes only its reporter's pair, so the agent goes on
// accepting reports at any number of reporters. A configuration change, which moves every pair,
// writes them all in its one batch (test/db/pairs.test.ts counts the statements).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ReportInput } from "../../src/durable/agent/reports";
import type { Agent } from "../agent-under-test";
import { bearer, call, createOperator, registerAgent, shardOf, T_CALL } from "../helpers";

const REPORTERS = 20_000;
const GROUP = 100;

describe("an agent with 20,000 reporters", () => {
  it("accepts reports from each, keeps one pair row per reporter and a row of bounded size, and goes on accepting them", { timeout: 600_000 }, async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const entry = await env.DB.prepare("SELECT num, shard, log FROM agent_directory WHERE sid = ?")
      .bind(sid)
      .first<{ num: number; shard: number; log: number }>();
    const ref = { sid, num: entry!.num, shard: entry!.shard, log: entry!.log };
    // Reporters 100,000 … 119,999 (operator ids the object knows only by their commitments), a group of 100 reports a call.
    for (let from = 0; from < REPORTERS; from += GROUP) {
      const inputs: ReportInput[] = Array.from({ length: GROUP }, (_, i) => ({
        reporter: 100_000 + from + i,
        at: T_CALL + from + i,
        transactionType: "t",
        outcome: (from + i) % 10 === 0 ? "failure" : "success",
        signals: { quality: 800 },
        metadata: null,
      }));
      const results = await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).reportMany(ref, inputs));
      expect(results.every((r) => r.ok)).toBe(true);
    }
    const shard = await shardOf(sid);
    expect((await shard.prepare("SELECT count(*) AS n FROM pairs WHERE sid = ?").bind(sid).first<{ n: number }>())!.n).toBe(REPORTERS);
    const row = await shard
      .prepare("SELECT seq, length(evidence) AS evidence, length(state) AS state FROM agents WHERE sid = ?")
      .bind(sid)
      .first<{ seq: number; evidence: number; state: number }>();
    expect(row!.seq).toBe(1 + REPORTERS);
    // The row holds aggregates, not reporters: a few kilobytes at most, whatever their number.
    expect(row!.evidence + row!.state).toBeLessThan(8_192);
    // The agent goes on: a report through the API from one more reporter, and a repeat from the first.
    const late = await createOperator();
    const lateCall = await call("/transactions", { headers: bearer(late.key), body: { sid, transactionType: "t", outcome: "success" } });
    expect(lateCall.status).toBe(201);
    const lateReport = (await lateCall.json()) as { transaction_id: number };
    const again = await runInDurableObject(env.AGENT.getByName(sid), (o) =>
      (o as Agent).reportTransaction(ref, {
        reporter: 100_000,
        at: T_CALL + REPORTERS + 1,
        transactionType: "t",
        outcome: "success",
        signals: {},
        metadata: null,
      }),
    );
    expect(again.ok).toBe(true);
    expect((await shard.prepare("SELECT count(*) AS n FROM pairs WHERE sid = ?").bind(sid).first<{ n: number }>())!.n).toBe(REPORTERS + 1);
    const first = await shard.prepare("SELECT pair FROM pairs WHERE sid = ? AND operator_id = 100000").bind(sid).first<{ pair: string }>();
    expect((JSON.parse(first!.pair) as { reports: number }).reports).toBe(2);

    // The late reporter withdraws its report, disputed by the owner: the history is replayed without
    // it, and the change replaces every pair of the agent in its one batch (test/db/pairs.test.ts
    // counts the statements).
    const disputed = await call(`/transactions/${lateReport.transaction_id}/dispute`, { headers: bearer(owner.key), body: { reason: "never happened" } });
    expect(disputed.status).toBe(201);
    const withdrawn = await call(`/disputes/${lateReport.transaction_id}/respond`, { headers: bearer(late.key), body: { stand: false } });
    expect(withdrawn.status).toBe(200);
    expect((await shard.prepare("SELECT count(*) AS n FROM pairs WHERE sid = ?").bind(sid).first<{ n: number }>())!.n).toBe(REPORTERS);
    expect((await shard.prepare("SELECT count(*) AS n FROM pairs WHERE sid = ? AND operator_id < 100000").bind(sid).first<{ n: number }>())!.n).toBe(0);
    const replayed = await shard.prepare("SELECT pair FROM pairs WHERE sid = ? AND operator_id = 100000").bind(sid).first<{ pair: string }>();
    expect(replayed!.pair).toBe(first!.pair);
  });
});
