// Scoring model version 3 through the API, end to end in workerd: credibility instead of counted
// accounts, the fast negative path, whitewashing, configuration changes, replay by rebuild, and the
// `model` every full score and report carries. The clock is frozen and moved by the tests.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AgentRef } from "../../src/domain/agent";
import type { Agent } from "../agent-under-test";
import { ADMIN, agentConfig, bearer, createOperator, testApp } from "../helpers";
import { readEntries, whoOf } from "../../src/db/history";
import { replayOf } from "../../src/domain/replay";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const START = Date.parse("2026-11-23T08:00:00Z");

interface Score {
  composite_score: number;
  recommendation: string;
  reasons: string[];
  model: { version: number; snapshot: string | null; bootstrap: boolean };
  reliability: number;
  quality: number;
  financial: number;
  security: number;
  stability: number;
}

async function setup(now = START) {
  const t = testApp({ now });
  const unlimited = (id: number) => t.request(`/admin/operators/${id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100000, rate_limit_per_day: 1000000 } });
  const operator = async (verified: boolean) => {
    const op = await createOperator({ verified });
    await unlimited(op.id);
    return op;
  };
  const register = async (key: string, overrides: Record<string, unknown> = {}) => {
    const res = await t.request("/register", { headers: bearer(key), body: { name: "Agent", ...agentConfig, ...overrides } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { sid: string }).sid;
  };
  const report = async (key: string, sid: string, body: Record<string, unknown> = {}) => {
    const res = await t.request("/transactions", { headers: bearer(key), body: { sid, transactionType: "task", outcome: "success", ...body } });
    expect(res.status).toBe(201);
    return (await res.json()) as { transaction_id: number };
  };
  const score = async (sid: string, key: string) => {
    const res = await t.request(`/score/${sid}`, { headers: bearer(key) });
    expect(res.status).toBe(200);
    return (await res.json()) as Score;
  };
  return { t, operator, register, report, score };
}

const praise = { reliabilitySignal: 1000, qualitySignal: 1000, securitySignal: 1000, financialSignal: 1000 };
const good = { reliabilitySignal: 900, qualitySignal: 880 };

async function refOf(sid: string): Promise<AgentRef> {
  const row = await env.DB.prepare("SELECT num, shard, log FROM agent_directory WHERE sid = ?").bind(sid).first<{ num: number; shard: number; log: number }>();
  return { sid, num: row!.num, shard: row!.shard, log: row!.log };
}

describe("scoring model version 3 in the service", () => {
  it("a good agent whose counterparties start failing loses clear within a handful of failed reports, saying RECENT_FAILURES", async () => {
    const { t, operator, register, report, score } = await setup();
    const owner = await operator(false);
    const reporters = await Promise.all([1, 2, 3, 4, 5].map(() => operator(true)));
    const sid = await register(owner.key);
    for (let day = 0; day < 6; day++) {
      for (const [i, r] of reporters.entries()) {
        t.clock.now = START + day * DAY + i * HOUR;
        await report(r.key, sid, good);
      }
    }
    const before = await score(sid, owner.key);
    expect(before.recommendation).toBe("clear");
    expect(before.model).toEqual({ version: 3, snapshot: null, bootstrap: true });
    let failed = 0;
    let after = before;
    for (const [i, r] of reporters.entries()) {
      t.clock.now = START + 6 * DAY + i * HOUR;
      await report(r.key, sid, { outcome: "failure" });
      failed++;
      after = await score(sid, owner.key);
      if (after.recommendation !== "clear") break;
    }
    expect(after.recommendation).not.toBe("clear");
    expect(failed).toBeLessThanOrEqual(5);
    expect(after.reasons).toContain("RECENT_FAILURES");
  });

  it("a configuration change never raises a score, and a rebuild from the shard reproduces it exactly", async () => {
    const { t, operator, register, report, score } = await setup();
    const owner = await operator(false);
    const reporters = await Promise.all([1, 2, 3, 4].map(() => operator(true)));
    const competitor = await operator(true);
    const sid = await register(owner.key);
    for (let day = 0; day < 4; day++) {
      for (const [i, r] of reporters.entries()) {
        t.clock.now = START + day * DAY + i * HOUR;
        await report(r.key, sid, good);
      }
      t.clock.now = START + day * DAY + 6 * HOUR;
      await report(competitor.key, sid, { outcome: "failure", reliabilitySignal: 0, qualitySignal: 0 });
    }
    const before = await score(sid, owner.key);
    for (const change of [{ modelName: "claude-opus" }, { modelProvider: "openai", modelName: "gpt" }, { systemPromptHash: "b".repeat(64) }]) {
      t.clock.now += HOUR;
      const res = await t.request(`/agents/${sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, ...change } });
      expect(res.status).toBe(200);
      const after = await score(sid, owner.key);
      expect(after.composite_score).toBeLessThanOrEqual(before.composite_score);
      for (const d of ["reliability", "quality", "financial", "security", "stability"] as const) expect(after[d]).toBeLessThanOrEqual(before[d]);
      expect(after.reasons).toContain("RECENT_CONFIG_CHANGE");
    }

    // A replay of the chain on the shard, credibility entries included, gives the live evidence.
    const live = await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect());
    const ref = await refOf(sid);
    const stored = await readEntries((env as unknown as Record<string, D1Database>)[`SHARD_${ref.shard}`], sid);
    expect(replayOf(stored.map((e) => ({ entry: e.entry, who: whoOf(e) })), Date.parse(live.record!.createdAt), t.clock.now).evidence).toEqual(live.record!.evidence);
    const shard = (env as unknown as Record<string, D1Database>)[`SHARD_${ref.shard}`];
    const credibility = await shard.prepare("SELECT COUNT(*) AS n FROM entries WHERE sid = ? AND kind = 'credibility'").bind(sid).first<{ n: number }>();
    expect(credibility!.n).toBeGreaterThan(0);
  });

  it("full scores and reports carry the model, in both wire forms", async () => {
    const { t, operator, register } = await setup();
    const owner = await operator(false);
    const sid = await register(owner.key);
    const a = (await (await t.request(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as Score;
    expect(a.model).toEqual({ version: 3, snapshot: null, bootstrap: false });
    const b = (await (await t.request(`/score/${sid}`, { headers: bearer(owner.key, { "API-Version": "B" }) })).json()) as Score;
    expect(b.model.version).toBe(3);
    const report = (await (await t.request(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as Score;
    expect(report.model.version).toBe(3);
    const reportB = (await (await t.request(`/report/${sid}`, { headers: bearer(owner.key, { "API-Version": "B" }) })).json()) as Score;
    expect(reportB.model.version).toBe(3);
  });

  it("a re-registered caution agent (same owner and configuration) starts in caution; another owner's copy only says SIMILAR_TO_CAUTIONED", async () => {
    const { t, operator, register, report, score } = await setup();
    const owner = await operator(false);
    const other = await operator(false);
    const reporters = await Promise.all([1, 2, 3, 4, 5, 6].map(() => operator(true)));
    const config = { systemPromptHash: "c".repeat(64) };
    const sid = await register(owner.key, config);
    for (let day = 0; day < 4; day++) {
      for (const [i, r] of reporters.entries()) {
        t.clock.now = START + day * DAY + i * HOUR;
        await report(r.key, sid, { outcome: "failure", reliabilitySignal: 100, qualitySignal: 200 });
      }
    }
    expect((await score(sid, owner.key)).recommendation).toBe("caution");
    t.clock.now += HOUR;
    const again = await register(owner.key, config);
    const repeated = await score(again, owner.key);
    expect(repeated.recommendation).toBe("caution");
    const copy = await register(other.key, config);
    const copied = await score(copy, other.key);
    expect(copied.recommendation).toBe("review");
    expect(copied.reasons).toContain("SIMILAR_TO_CAUTIONED");
    // A different configuration of the same owner starts clean.
    const fresh = await score(await register(owner.key, { systemPromptHash: "d".repeat(64) }), owner.key);
    expect(fresh.recommendation).toBe("review");
    expect(fresh.reasons).not.toContain("SIMILAR_TO_CAUTIONED");
  });

  // Last: it closes the bootstrap latch for good.
  it("three new accounts praising a new agent never make it clear (bootstrap latch closed)", async () => {
    const { t, operator, register, report, score } = await setup();
    const closed = await t.request("/admin/model/bootstrap", { method: "PUT", headers: ADMIN, body: { ends_at: new Date(START).toISOString() } });
    expect(closed.status).toBe(200);
    expect(((await closed.json()) as { bootstrap: { on: boolean } }).bootstrap.on).toBe(false);
    const owner = await operator(false);
    const ring = await Promise.all([1, 2, 3].map(() => operator(true)));
    const sid = await register(owner.key);
    const seen = new Set<string>();
    for (let day = 0; day < 20; day++) {
      for (const [i, r] of ring.entries()) {
        for (let k = 0; k < 3; k++) {
          t.clock.now = START + day * DAY + i * HOUR + k * 60_000;
          await report(r.key, sid, praise);
        }
      }
      const s = await score(sid, owner.key);
      seen.add(s.recommendation);
      expect(s.model).toEqual({ version: 3, snapshot: null, bootstrap: false });
    }
    expect(seen.has("clear")).toBe(false);
    const last = await score(sid, owner.key);
    expect(last.composite_score).toBeGreaterThan(700);
    expect(last.reasons).toContain("FEW_INDEPENDENT_REPORTERS");
  });
});
