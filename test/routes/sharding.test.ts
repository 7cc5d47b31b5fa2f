// Agents and their history on shards: routing, replay, migration from before sharding, time.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { forgetSnapshot } from "../../src/db/snapshot";
import { readEntries } from "../../src/db/history";
import { locateTransaction, SEQUENCE_SPACE } from "../../src/domain/agent";
import { replayOf } from "../../src/domain/replay";
import type { Agent } from "../agent-under-test";
import { ADMIN, agentConfig, bearer, call, createOperator, freshIp, publishCredibility, registerAgent, reportRows, shardOf, testApp, T_CALL } from "../helpers";

const shards = () => [env.SHARD_0, env.SHARD_1!];
const agentObject = (sid: string) => env.AGENT.getByName(sid);
const inspect = (sid: string) => runInDurableObject(agentObject(sid), (o) => (o as Agent).inspect());
const shardNumber = async (sid: string) =>
  (await env.DB.prepare("SELECT shard FROM agent_directory WHERE sid = ?").bind(sid).first<number>("shard"))!;

async function unlimited(id: number) {
  await call(`/admin/operators/${id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100000, rate_limit_per_day: 1000000 } });
}

/** Registers agents until one lands on each shard. */
async function onEveryShard(key: string): Promise<string[]> {
  const found = new Map<number, string>();
  for (let i = 0; i < 64 && found.size < 2; i++) {
    const { sid } = await registerAgent(key);
    const n = await shardNumber(sid);
    if (!found.has(n)) found.set(n, sid);
  }
  expect(found.size).toBe(2);
  return [found.get(0)!, found.get(1)!];
}

afterEach(() => forgetSnapshot());

describe("routing by shard", () => {
  it("every route that touches an agent reads and writes the agent's own shard", async () => {
    const owner = await createOperator({ name: "Shard Owner" });
    const reporter = await createOperator({ verified: true });
    // A credible reporter, so its report moves the score read back from the agent's shard.
    await publishCredibility({ [reporter.id]: 1 }, T_CALL);
    const lookups: string[] = [];
    const h = testApp({
      now: T_CALL,
      resolve: async (host) => (lookups.push(host), ["93.184.216.34"]),
      fetchOutbound: async (_url, init) => {
        token = JSON.parse(String(init!.body)).challenge_token;
        return new Response(null, { status: 204 });
      },
    });
    let token = "";
    const sids = await onEveryShard(owner.key);
    for (const [n, sid] of sids.entries()) {
      const other = shards()[1 - n];
      const tx = await h.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 900 } });
      expect(tx.status).toBe(201);
      const { transaction_id } = (await tx.json()) as { transaction_id: number };
      // Entry 1 is the registration, entry 2 the credibility in force for the reporter; the first report is entry 3.
      expect(locateTransaction(transaction_id)).toMatchObject({ legacy: false, seq: 3 });
      expect(await shards()[n].prepare("SELECT count(*) AS n FROM entries WHERE sid = ? AND kind = 'report'").bind(sid).first("n")).toBe(1);
      expect(await other.prepare("SELECT count(*) AS n FROM entries WHERE sid = ?").bind(sid).first("n")).toBe(0);
      expect(await other.prepare("SELECT count(*) AS n FROM agents WHERE sid = ?").bind(sid).first("n")).toBe(0);

      expect((await h.request(`/agents/${sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, modelName: "other" } })).status).toBe(200);
      expect(await shards()[n].prepare("SELECT count(*) AS n FROM config_history WHERE sid = ?").bind(sid).first("n")).toBe(2);

      const score = (await (await h.request(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as { quality: number; operator: { name: string } };
      expect(score.quality).toBeGreaterThan(500);
      expect(score.operator.name).toBe("Shard Owner");
      expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).status).toBe(200);
      const report = (await (await h.request(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as { score_history: unknown[]; config_history: unknown[] };
      expect(report.score_history).toHaveLength(2);
      expect(report.config_history).toHaveLength(2);
      expect((await h.request(`/badge/${sid}.json`, { headers: { "cf-connecting-ip": freshIp() } })).status).toBe(200);
      const listed = (await (await h.request(`/agents/${sid}/transactions`, { headers: bearer(owner.key) })).json()) as { transactions: { transaction_id: number }[] };
      expect(listed.transactions.map((t) => t.transaction_id)).toEqual([transaction_id]);

      expect((await h.request(`/agents/${sid}/verify`, { headers: bearer(owner.key), body: { callbackUrl: "https://agent.example.com/cb" } })).status).toBe(202);
      expect((await h.request(`/agents/${sid}/verify/confirm`, { headers: bearer(owner.key), body: { challenge_token: token } })).status).toBe(200);
      expect(await shards()[n].prepare("SELECT identity_level FROM agents WHERE sid = ?").bind(sid).first("identity_level")).toBe(1);

      expect((await h.request(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
      expect(await shards()[n].prepare("SELECT status FROM agents WHERE sid = ?").bind(sid).first("status")).toBe("suspended");
    }
    // /me combines the shards, in registration order.
    const me = (await (await h.request("/me", { headers: bearer(owner.key) })).json()) as { agents: { sid: string }[] };
    const mine = me.agents.map((a) => a.sid);
    expect(mine).toEqual(expect.arrayContaining(sids));
    expect(mine.indexOf(sids[0]) < mine.indexOf(sids[1])).toBe((await numOf(sids[0])) < (await numOf(sids[1])));
  });

  it("a self-registered agent is claimed on its own shard, and its directory entry names the new owner", async () => {
    const claimer = await createOperator();
    const res = await call("/register/self", { body: { name: "Self", ...agentConfig }, headers: { "cf-connecting-ip": freshIp() } });
    const { sid, claim_token } = (await res.json()) as { sid: string; claim_token: string };
    expect((await call(`/agents/${sid}/claim`, { headers: bearer(claimer.key), body: { claim_token } })).status).toBe(200);
    expect(await (await shardOf(sid)).prepare("SELECT operator_id FROM agents WHERE sid = ?").bind(sid).first("operator_id")).toBe(claimer.id);
    expect(await env.DB.prepare("SELECT operator_id FROM agent_directory WHERE sid = ?").bind(sid).first("operator_id")).toBe(claimer.id);
  });

  it("deals new agents to the shards in turn", async () => {
    const { key } = await createOperator();
    const shards: number[] = [];
    for (let i = 0; i < 40; i++) shards.push(await shardNumber((await registerAgent(key)).sid));
    expect([shards.filter((s) => s === 0).length, shards.filter((s) => s === 1).length]).toEqual([20, 20]);
    for (let i = 1; i < shards.length; i++) expect(shards[i]).not.toBe(shards[i - 1]);
  });
});

const numOf = async (sid: string) => (await env.DB.prepare("SELECT num FROM agent_directory WHERE sid = ?").bind(sid).first<number>("num"))!;

describe("replayable history", () => {
  it("replaying the shard's history after random reports and configuration changes equals the live state, and an emptied object rebuilds it", async () => {
    const owner = await createOperator();
    const reporters = [owner, await createOperator({ verified: true }), await createOperator(), await createOperator({ verified: true })];
    for (const r of reporters) await unlimited(r.id);
    const h = testApp({ now: T_CALL });
    const { sid } = await registerAgent(owner.key);
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const outcomes = ["success", "partial", "failure", "timeout", "error"];
    const providers = ["anthropic", "openai", "mistral"];
    for (let i = 0; i < 60; i++) {
      h.clock.now += Math.floor(random() * 9 * 3_600_000);
      if (random() < 0.1) {
        const res = await h.request(`/agents/${sid}/config`, {
          headers: bearer(owner.key),
          body: { ...agentConfig, modelProvider: providers[Math.floor(random() * 3)], tools: random() < 0.5 ? ["a"] : ["b"] },
        });
        expect(res.status).toBe(200);
        continue;
      }
      const signals = { qualitySignal: Math.floor(random() * 1001), ...(random() < 0.3 ? { securitySignal: Math.floor(random() * 1001) } : {}) };
      const reporter = reporters[Math.floor(random() * reporters.length)];
      const res = await h.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: outcomes[Math.floor(random() * 5)], ...signals } });
      expect(res.status).toBe(201);
    }
    const shard = await shardOf(sid);
    const live = (await inspect(sid)).record!;
    const replayed = replayOf((await readEntries(shard, sid)).map((e) => ({ entry: e.entry, who: e.operator })), Date.parse(live.createdAt));
    expect(replayed.state.model).toEqual(live.evidence);

    // A new life of the object, nothing in memory, reads the same working state from the shard.
    await evictDurableObject(agentObject(sid));
    const rebuilt = (await inspect(sid)).record!;
    expect(rebuilt.evidence).toEqual(live.evidence);
    expect(rebuilt.seq).toBe(live.seq);
    expect(rebuilt.outcomes).toEqual(live.outcomes);
    expect(rebuilt.config).toEqual(live.config);
  });
});

describe("concurrency across shards", () => {
  it("concurrent reports on many agents of both shards are neither lost nor doubled", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    await unlimited(reporter.id);
    const sids = [...(await onEveryShard(owner.key)), ...(await Promise.all(Array.from({ length: 8 }, async () => (await registerAgent(owner.key)).sid)))];
    const reports = sids.flatMap((sid) => Array.from({ length: 6 }, () => call("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success" } })));
    const statuses = (await Promise.all(reports)).map((r) => r.status);
    expect(statuses.every((s) => s === 201)).toBe(true);
    for (const sid of sids) {
      expect(await reportRows(sid)).toHaveLength(6);
      // Registration and six reports.
      expect((await inspect(sid)).record!.seq).toBe(7);
    }
  });
});

describe("transaction ids", () => {
  it("are numbers routable without the SID: the agent's number × 2^22 + its sequence", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const num = await numOf(sid);
    const ids = [];
    for (let i = 0; i < 3; i++) {
      ids.push(((await (await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "success" } })).json()) as { transaction_id: number }).transaction_id);
    }
    // Entry 1 is the registration: the owner's reports are entries 2 to 4.
    expect(ids).toEqual([2, 3, 4].map((seq) => num * SEQUENCE_SPACE + seq));
    expect(ids.every(Number.isSafeInteger)).toBe(true);
    expect(locateTransaction(ids[2])).toEqual({ legacy: false, num, seq: 4 });
    expect(locateTransaction(1234)).toEqual({ legacy: true });
  });
});

describe("the control database per report", () => {
  it("gets no statement at all once keys and directory entries are cached", async () => {
    const { metering, meterReading, resetMeter } = await import("../../src/d1-meter");
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    await unlimited(reporter.id);
    const sids = await onEveryShard(owner.key);
    const h = testApp({ now: T_CALL, env: metering({ ...env, D1_METER: "true" }) });
    for (const sid of sids) await h.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success" } });
    resetMeter();
    for (let i = 0; i < 10; i++) {
      const res = await h.request("/transactions", { headers: bearer(reporter.key), body: { sid: sids[i % 2], transactionType: "t", outcome: "success" } });
      expect(res.status).toBe(201);
    }
    expect(meterReading().DB, JSON.stringify(meterReading())).toBeUndefined();
    // The metered reads of the same run do reach the shards: the meter sees what it should.
    await h.request(`/score/${sids[0]}`, { headers: bearer(reporter.key) });
    expect(meterReading()[`SHARD_${await shardNumber(sids[0])}`]?.statements).toBeGreaterThan(0);
  });
});
