// The shard is the agent's record: a change is one D1 batch on it, and the agent's object keeps no
// durable copy. What happens when that batch fails, when it commits but its answer is lost, when two
// instances of the object write one agent, and when the object dies between its batch and its outbox.

import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Agent } from "../agent-under-test";
import { holdQueues } from "../queues";
import { ADMIN, bearer, call, createOperator, registerAgent, reportRows, shardOf, testApp, T_CALL } from "../helpers";
import type { LogMessage } from "../../src/domain/log/messages";

const report = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call("/transactions", { headers: bearer(key, headers), body: { transactionType: "task", outcome: "success", ...body } });

const faults = (sid: string, set: Partial<Agent["faults"]>) => runInDurableObject(env.AGENT.getByName(sid), (o) => void Object.assign((o as Agent).faults, set));

async function unlimited(id: number) {
  await call(`/admin/operators/${id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100000, rate_limit_per_day: 1000000 } });
}

const row = async (sid: string) =>
  (await shardOf(sid)).prepare("SELECT seq, published, contract, chain_hash FROM agents WHERE sid = ?").bind(sid).first<{ seq: number; published: number; contract: number; chain_hash: string }>();

describe("a change is one batch on the agent's shard", () => {
  it("the agent's object keeps nothing in its own storage: no table, only an alarm", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    expect((await report(owner.key, { sid }, { "idempotency-key": "k-1" })).status).toBe(201);
    const tables = await runInDurableObject(env.AGENT.getByName(sid), (_o, state) =>
      state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'").toArray(),
    );
    expect(tables).toEqual([]);
    const r = await row(sid);
    expect(r).toMatchObject({ seq: 2, contract: 3 });
    // The keyed answer lives in the entry that recorded it: a new object life replays it.
    await evictDurableObject(env.AGENT.getByName(sid));
    const again = await report(owner.key, { sid }, { "idempotency-key": "k-1" });
    expect(again.status).toBe(201);
    expect((await row(sid))!.seq).toBe(2);
  });

  it("an error before the batch reaches the shard: 503 with Retry-After in both forms, nothing written, and the repeat with its key is recorded once", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    await faults(sid, { failBeforeBatch: 2 });
    const a = await report(owner.key, { sid }, { "idempotency-key": "retry-me" });
    expect(a.status).toBe(503);
    expect(a.headers.get("retry-after")).toBe("5");
    expect(((await a.json()) as { error: string }).error).toBe("Service temporarily unavailable");
    const b = await report(owner.key, { sid }, { "idempotency-key": "retry-me", "api-version": "B" });
    expect(b.status).toBe(503);
    expect(((await b.json()) as { error: { code: string } }).error.code).toBe("unavailable");
    expect(await reportRows(sid)).toHaveLength(0);
    expect((await row(sid))!.seq).toBe(1);
    const ok = await report(owner.key, { sid }, { "idempotency-key": "retry-me" });
    expect(ok.status).toBe(201);
    const repeat = await report(owner.key, { sid }, { "idempotency-key": "retry-me" });
    expect(await repeat.json()).toEqual(await ok.json());
    expect(await reportRows(sid)).toHaveLength(1);
  });

  it("an error after the batch committed: the object reads the shard, finds its entries there, and every waiting request gets its answer", async () => {
    const owner = await createOperator();
    await unlimited(owner.id);
    const { sid } = await registerAgent(owner.key);
    expect((await report(owner.key, { sid })).status).toBe(201);
    await faults(sid, { failAfterBatch: 1 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => report(owner.key, { sid, qualitySignal: 100 * i }, { "idempotency-key": `late-${i}` })));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(201));
    const ids = await Promise.all(answers.map(async (r) => ((await r.json()) as { transaction_id: number }).transaction_id));
    expect(new Set(ids).size).toBe(10);
    const rows = await reportRows(sid);
    expect(rows).toHaveLength(11);
    expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining(ids));
  });

  it("a duplicate key inside a group of ten is answered with its first's answer and its neighbours commit", async () => {
    const owner = await createOperator();
    await unlimited(owner.id);
    const { sid } = await registerAgent(owner.key);
    const keys = ["a", "b", "c", "a", "d", "e", "f", "g", "h", "a"];
    const answers = await Promise.all(keys.map((k) => report(owner.key, { sid }, { "idempotency-key": k })));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(201));
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<{ transaction_id: number }>));
    expect(bodies[3]).toEqual(bodies[0]);
    expect(bodies[9]).toEqual(bodies[0]);
    expect(await reportRows(sid)).toHaveLength(8);
  });

  it("two instances of one agent's object: the stale one's batch collides on its entry numbers, rolls back whole, and runs again after the live one's", async () => {
    const owner = await createOperator();
    const reporter = await createOperator();
    const { sid } = await registerAgent(owner.key);
    expect((await report(reporter.key, { sid })).status).toBe(201);
    const ref = await call(`/score/${sid}`, { headers: bearer(owner.key) });
    expect(ref.status).toBe(200);
    const stub = env.AGENT.getByName(sid);
    // A second instance beside the live one (as after a network split), which has read the agent.
    const { second, at } = await runInDurableObject(stub, async (live, state) => {
      const other = new Agent(state, env);
      const entry = await env.DB.prepare("SELECT num, shard, log FROM agent_directory WHERE sid = ?").bind(sid).first<{ num: number; shard: number; log: number }>();
      const where = { sid, num: entry!.num, shard: entry!.shard, log: entry!.log };
      await other.inspect();
      // The live instance writes first; the stale one still believes entry 4 is free.
      const first = await (live as Agent).reportTransaction(where, { reporter: reporter.id, at: T_CALL, transactionType: "t", outcome: "success", signals: {}, metadata: null });
      expect(first.ok).toBe(true);
      return { second: other, at: where };
    });
    const late = await runInDurableObject(stub, () =>
      second.reportTransaction(at, { reporter: reporter.id, at: T_CALL + 1, transactionType: "t", outcome: "failure", signals: {}, metadata: null }),
    );
    expect(late.ok).toBe(true);
    const rows = await reportRows(sid);
    expect(rows.map((r) => r.outcome)).toEqual(["success", "success", "failure"]);
    const r = await row(sid);
    const entries = await (await shardOf(sid)).prepare("SELECT n, hash FROM entries WHERE sid = ? ORDER BY n").bind(sid).all<{ n: number; hash: string }>();
    expect(entries.results.map((e) => e.n)).toEqual(entries.results.map((_, i) => i + 1));
    expect(r!.seq).toBe(entries.results.length);
    expect(r!.chain_hash).toBe(entries.results.at(-1)!.hash);
  });

  it("a crash between the batch and the outbox: the alarm, within a minute, sends what the row still calls unsent, and the next batch moves the cursor", async () => {
    const queues = holdQueues({}, { log: true });
    try {
      const owner = await createOperator();
      const { sid } = await registerAgent(owner.key);
      queues.pending.length = 0;
      await faults(sid, { crashBeforeSend: 1 });
      const res = await report(owner.key, { sid });
      expect(res.status).toBe(201);
      const leaves = () => queues.pending.filter((m) => m.queue === "trust-log").flatMap((m) => (m.body as LogMessage).leaves.map((l) => l.n));
      expect(leaves()).toEqual([]);
      const stub = env.AGENT.getByName(sid);
      const alarm = await runInDurableObject(stub, (_o, state) => state.storage.getAlarm());
      expect(alarm).not.toBeNull();
      expect(alarm! - Date.now()).toBeLessThanOrEqual(60_000);
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect(leaves()).toContain(2);
      // The alarm writes no row: the cursor moves with the agent's next batch, past what was sent.
      expect((await row(sid))!.published).toBe(1);
      expect((await report(owner.key, { sid })).status).toBe(201);
      expect((await row(sid))!.published).toBe(2);
      expect(leaves()).toContain(3);
    } finally {
      queues.release();
    }
  });

  it("keyed answers are replayed for 24 hours, and a key used again after them records a new report", async () => {
    const h = testApp({ now: T_CALL });
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const send = () => h.request("/transactions", { headers: bearer(owner.key, { "idempotency-key": "daily" }), body: { sid, transactionType: "t", outcome: "success" } });
    const first = (await (await send()).json()) as { transaction_id: number };
    h.clock.now = T_CALL + 23 * 3_600_000;
    expect(((await (await send()).json()) as { transaction_id: number }).transaction_id).toBe(first.transaction_id);
    h.clock.now = T_CALL + 25 * 3_600_000;
    expect(((await (await send()).json()) as { transaction_id: number }).transaction_id).not.toBe(first.transaction_id);
    expect(await reportRows(sid)).toHaveLength(2);
  });
  it("a keyed answer is stored packed in its entry, and an object that lost its memory replays it to the byte", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const send = () => report(owner.key, { sid, metadata: { note: "x".repeat(200) } }, { "idempotency-key": "packed-1" });
    const first = await send();
    expect(first.status).toBe(201);
    const stored = await (await shardOf(sid))
      .prepare("SELECT typeof(answer) AS type, length(answer) AS bytes FROM entries WHERE sid = ? AND idem IS NOT NULL")
      .bind(sid)
      .first<{ type: string; bytes: number }>();
    expect(stored!.type).toBe("blob");
    const body = await first.text();
    expect(stored!.bytes).toBeLessThan(body.length / 2);
    await evictDurableObject(env.AGENT.getByName(sid));
    const again = await send();
    expect(again.status).toBe(201);
    expect(await again.text()).toBe(body);
    expect(await reportRows(sid)).toHaveLength(1);
  });
});
