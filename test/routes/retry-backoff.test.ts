// A shard that keeps failing is not hammered: the agent's object tries again at its alarm, later
// after each failure in a row (RETRY_MS doubled up to MAX_RETRY_MS, spread by the agent), and back
// at RETRY_MS once a write went through.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ACK_WAIT_MS, Handouts, MAX_RETRY_MS, RETRY_MS, retryDelay } from "../../src/durable/agent/host";
import type { Agent } from "../agent-under-test";
import { ADMIN, bearer, call, createOperator, registerAgent, reportRows, settled } from "../helpers";

describe("retryDelay", () => {
  it("waits RETRY_MS after one failure, then about twice as long per failure in a row, up to MAX_RETRY_MS", () => {
    const sids = Array.from({ length: 200 }, (_, i) => `agt_${i.toString(36).padStart(8, "0")}`);
    for (const sid of sids) {
      expect(retryDelay(1, sid)).toBe(RETRY_MS);
      for (let n = 2; n <= 14; n++) {
        const wait = Math.min(RETRY_MS * 2 ** (n - 1), MAX_RETRY_MS);
        expect(retryDelay(n, sid)).toBeGreaterThanOrEqual(wait * 0.8);
        expect(retryDelay(n, sid)).toBeLessThanOrEqual(wait * 1.2);
        expect(retryDelay(n, sid)).toBe(retryDelay(n, sid));
      }
    }
    // Objects that failed together come back apart: the fifth waits of 200 agents spread over the band.
    const fifth = sids.map((sid) => retryDelay(5, sid));
    expect(new Set(fifth).size).toBeGreaterThan(150);
    expect(Math.max(...fifth) - Math.min(...fifth)).toBeGreaterThan(0.3 * RETRY_MS * 16);
    // An hour of a shard down: about 17 tries from each waiting object, not 720.
    let tries = 0;
    for (let t = 0; t < 3_600_000; t += retryDelay(++tries, sids[0]));
    expect(tries).toBeLessThan(20);
  });
});

describe("Handouts", () => {
  it("awaits acknowledgements up to the greatest hand-out, and is due ACK_WAIT_MS after the oldest still waiting", () => {
    const h = new Handouts();
    expect([h.covered(), h.deadline()]).toEqual([0, null]);
    h.add(3, 1_000);
    h.add(5, 4_000);
    h.add(9, 6_000);
    expect([h.covered(), h.deadline()]).toEqual([9, 1_000 + ACK_WAIT_MS]);
    // Acknowledgements can come out of order: each settles every hand-out up to what it names.
    h.settle(5);
    expect([h.covered(), h.deadline()]).toEqual([9, 6_000 + ACK_WAIT_MS]);
    h.settle(9);
    expect([h.covered(), h.deadline()]).toEqual([0, null]);
    // A failed batch (or the object's own flush) answers every hand-out up to it, not those after.
    h.add(12, 7_000);
    h.add(14, 8_000);
    h.settle(12);
    expect([h.covered(), h.deadline()]).toEqual([14, 8_000 + ACK_WAIT_MS]);
  });
});

/** Time between the object setting its alarm and the test reading it; the waits it tells apart differ by more. */
const SLACK = 2_500;

/** That the object's alarm was just set `wait` ahead: at most that far, at least that far less SLACK. */
async function expectAlarmIn(stub: DurableObjectStub, wait: number) {
  const ahead = await runInDurableObject(stub, async (_o, state) => ((await state.storage.getAlarm()) ?? Infinity) - Date.now());
  expect(ahead).toBeLessThanOrEqual(wait);
  expect(ahead).toBeGreaterThan(wait - SLACK);
}

describe("the agent object's retries of a failing shard", () => {
  it("sets its alarm RETRY_MS on after the first failure, longer after each next one, and RETRY_MS again after a success", async () => {
    const owner = await createOperator();
    const reporter = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const stub = env.AGENT.getByName(sid);
    const pending = () => runInDurableObject(stub, async (o) => (await (o as Agent).inspect()).pending);

    await runInDurableObject(stub, (o) => void ((o as Agent).faults.failShardBatch = 3));
    const res = await call("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 800 } });
    expect(res.status).toBe(201);
    expect(await pending()).toBeGreaterThan(0);
    await expectAlarmIn(stub, RETRY_MS);

    // The alarm's try fails too (the second in a row), then the third: each sets the alarm further on.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await expectAlarmIn(stub, retryDelay(2, sid));
    expect(retryDelay(2, sid)).toBeGreaterThan(RETRY_MS);
    // An object evicted between its retries (idle ones go within minutes) keeps the count: it is in storage.
    await evictDurableObject(stub);
    await runInDurableObject(stub, (o) => void ((o as Agent).faults.failShardBatch = 1));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await expectAlarmIn(stub, retryDelay(3, sid));
    expect(await pending()).toBeGreaterThan(0);

    // The fourth try goes through: the journal reaches the shard, and the count of failures starts over.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await pending()).toBe(0);
    expect(await reportRows(sid)).toHaveLength(1);
    await runInDurableObject(stub, (o) => void ((o as Agent).faults.failShardBatch = 1));
    const again = await call("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 700 } });
    expect(again.status).toBe(201);
    expect(await pending()).toBeGreaterThan(0);
    await expectAlarmIn(stub, RETRY_MS);
  });

  it("starts the count over when a batch route applies its journal on the shard and says so", async () => {
    const owner = await createOperator();
    const reporter = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const stub = env.AGENT.getByName(sid);
    const pending = () => runInDurableObject(stub, async (o) => (await (o as Agent).inspect()).pending);
    const report = { sid, transactionType: "t", outcome: "success", qualitySignal: 800 };

    // Two failures in a row: the next try waits retryDelay(2).
    await runInDurableObject(stub, (o) => void ((o as Agent).faults.failShardBatch = 2));
    expect((await call("/transactions", { headers: bearer(reporter.key), body: report })).status).toBe(201);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await expectAlarmIn(stub, retryDelay(2, sid));

    // A batch takes the journal (the failed change's entry with its own) to the shard in the route's
    // batch, and acknowledges it after the answer: that write passed, so the count starts over.
    const res = await call("/transactions/batch", { headers: bearer(reporter.key), body: { transactions: [{ ...report, idempotency_key: "reset-1" }] } });
    expect(((await res.json()) as { results: { status: number }[] }).results[0].status).toBe(201);
    await settled();
    expect(await pending()).toBe(0);
    expect(await reportRows(sid)).toHaveLength(2);

    // The next failure is a first again: RETRY_MS, not retryDelay(3).
    await runInDurableObject(stub, (o) => void ((o as Agent).faults.failShardBatch = 1));
    expect((await call("/transactions", { headers: bearer(reporter.key), body: { ...report, qualitySignal: 700 } })).status).toBe(201);
    expect(await pending()).toBeGreaterThan(0);
    await expectAlarmIn(stub, RETRY_MS);
  });

  it("backs off the same way when the events queue refuses, and starts over once an events send passes", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const stub = env.AGENT.getByName(sid);
    const outbox = () => runInDurableObject(stub, (_o, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n);
    const refusing = { sendBatch: () => Promise.reject(new Error("queue down")) };
    await runInDurableObject(stub, (o) => void ((o as Agent).vars = { EVENTS: refusing as never }));

    // The suspension's agent.status_changed event cannot go: the outbox keeps it.
    expect((await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
    expect(await outbox()).toBe(1);
    await expectAlarmIn(stub, RETRY_MS);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await outbox()).toBe(1);
    await expectAlarmIn(stub, retryDelay(2, sid));

    // The queue is back: the event goes at the alarm, and the count starts over, so the next failure
    // (here the shard's, before any other write passes) waits RETRY_MS again.
    await runInDurableObject(stub, (o) => void ((o as Agent).vars = {}));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await outbox()).toBe(0);
    await runInDurableObject(stub, (o) => void ((o as Agent).faults.failShardBatch = 1));
    expect((await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "active" } })).status).toBe(200);
    await expectAlarmIn(stub, RETRY_MS);
  });
});
