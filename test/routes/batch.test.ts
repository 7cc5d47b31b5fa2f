import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AgentRef } from "../../src/domain/agent";
import type { ReportInput } from "../../src/durable/agent";
import { ACK_WAIT_MS, RETRY_MS } from "../../src/durable/agent/host";
import type { Agent } from "../agent-under-test";
import { ADMIN, bearer, call, createOperator, registerAgent, reportRows, settled, shardOf } from "../helpers";

const MALFORMED = "transactions must be an array of 1 to 100 reports";
type Result = { status: number; transaction_id?: number; error?: unknown; log_promise?: string; updated_scores?: unknown };

const batch = (key: string, transactions: unknown, headers: Record<string, string> = {}) =>
  call("/transactions/batch", { headers: bearer(key, headers), body: { transactions } });
const results = async (res: Response) => ((await res.json()) as { results: Result[] }).results;
const item = (sid: string, key: string, extra: Record<string, unknown> = {}) => ({ sid, transactionType: "t", outcome: "success", idempotency_key: key, ...extra });

async function limited(id: number, perMinute: number) {
  await call(`/admin/operators/${id}`, { headers: ADMIN, body: { rate_limit_per_minute: perMinute, rate_limit_per_day: 100_000 } });
}

/** An agent and a reporter, for tests that play the batch route's part with the agent's object itself. */
async function handingOut() {
  const owner = await createOperator();
  const reporter = await createOperator({ verified: true });
  const { sid } = await registerAgent(owner.key);
  const stub = env.AGENT.getByName(sid);
  const dir = await env.DB.prepare("SELECT num, shard, log FROM agent_directory WHERE sid = ?").bind(sid).first<{ num: number; shard: number; log: number }>();
  const ref: AgentRef = { sid, num: dir!.num, shard: dir!.shard, log: dir!.log };
  const input = (key: string): ReportInput => ({
    reporter: reporter.id, verified: true, at: Date.now(), transactionType: "t", outcome: "success", signals: { quality: 800 }, metadata: null, penalty: 1,
    idempotency: { key, requestHash: key },
  });
  const alarm = () => runInDurableObject(stub, async (_o, state) => (await state.storage.getAlarm()) ?? Infinity);
  return { sid, reporter, stub, ref, input, alarm };
}

describe("POST /transactions/batch", () => {
  it("answers each report as POST /transactions would have, in order; a bad report never fails its neighbours", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    await limited(reporter.id, 10_000);
    const [a, b] = [await registerAgent(owner.key), await registerAgent(owner.key)];
    await call(`/admin/agents/${b.sid}`, { headers: ADMIN, body: { status: "suspended" } });
    const sent = [
      item(a.sid, "k1", { qualitySignal: 900 }),
      { sid: a.sid, idempotency_key: "k2" },
      item(a.sid, "k3", { outcome: "great" }),
      item("SID-0x0123456789abcdef", "k4"),
      item(b.sid, "k5"),
      item(a.sid, "k6", { qualitySignal: 1001 }),
      { ...item(a.sid, "k7"), idempotency_key: "" },
      item(a.sid, "k8", { outcome: "failure" }),
    ];
    const res = await batch(reporter.key, sent);
    expect(res.status).toBe(200);
    const out = await results(res);
    expect(out.map((r) => r.status)).toEqual([201, 400, 400, 404, 409, 400, 400, 201]);
    // The single route's texts, item by item.
    for (const [i, body] of sent.entries()) {
      if (out[i].status === 201) continue;
      if (i === 6) {
        expect(out[i].error).toBe("idempotency_key must be a string of 1 to 255 characters");
        continue;
      }
      const { idempotency_key: _key, ...single } = body as Record<string, unknown>;
      const alone = await call("/transactions", { headers: bearer(reporter.key), body: single });
      expect(alone.status).toBe(out[i].status);
      expect(out[i].error, `item ${i}`).toBe(((await alone.json()) as { error: string }).error);
    }
    expect(out[0]).toMatchObject({ transaction_id: expect.any(Number), log_promise: expect.any(String), updated_scores: expect.any(Object) });
    const rows = await reportRows(a.sid);
    expect(rows.map((r) => r.id)).toEqual([out[0].transaction_id, out[7].transaction_id]);
    expect(rows.map((r) => r.outcome)).toEqual(["success", "failure"]);
    // The agent's object holds what its shard holds.
    const live = await runInDurableObject(env.AGENT.getByName(a.sid), (o) => (o as Agent).inspect());
    // Registration, the reporter's credibility entry (version 3, before its first report), two reports.
    expect(live.record!.seq).toBe(4);
  });

  it("answers Form B clients in Form B, item by item", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const res = await batch(owner.key, [item(sid, "b1", { qualitySignal: 800 }), item(sid, "b2", { outcome: "great" })], { "api-version": "B" });
    const out = await results(res);
    expect(out[0].status).toBe(201);
    expect((out[0].updated_scores as { dimensions: { quality: number } }).dimensions.quality).toBeLessThanOrEqual(1);
    expect(out[1]).toEqual({ status: 400, error: { code: "invalid_request", message: "Invalid outcome. Expected one of: success, partial, failure, timeout, error" } });
  });

  it("refuses a malformed batch as one 400, writing nothing", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    for (const transactions of [[], "x", { a: 1 }, Array.from({ length: 101 }, (_, i) => item(sid, `m${i}`))]) {
      const res = await batch(owner.key, transactions);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: MALFORMED, request_id: expect.any(String) });
    }
    expect(await reportRows(sid)).toHaveLength(0);
  });

  it("reserves every report against the tier limit first: when fewer remain, 429 and nothing written", async () => {
    const owner = await createOperator();
    await limited(owner.id, 30);
    const { sid } = await registerAgent(owner.key);
    const first = await batch(owner.key, Array.from({ length: 25 }, (_, i) => item(sid, `r${i}`)));
    expect(first.status).toBe(200);
    // 30 a minute: the registration and 25 reports leave 4.
    expect(first.headers.get("x-ratelimit-remaining")).toBe("4");
    const over = await batch(owner.key, Array.from({ length: 5 }, (_, i) => item(sid, `s${i}`)));
    expect(over.status).toBe(429);
    expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await reportRows(sid)).toHaveLength(25);
    const fits = await batch(owner.key, Array.from({ length: 4 }, (_, i) => item(sid, `t${i}`)));
    expect(fits.status).toBe(200);
    expect(await reportRows(sid)).toHaveLength(29);
  });

  it("changes nothing when retried, and one idempotency key is one report whether sent alone or in a batch", async () => {
    const owner = await createOperator();
    const reporter = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const alone = await call("/transactions", { headers: bearer(reporter.key, { "idempotency-key": "same" }), body: { sid, transactionType: "t", outcome: "success" } });
    const aloneId = ((await alone.json()) as { transaction_id: number }).transaction_id;
    const sent = [item(sid, "same"), item(sid, "other", { outcome: "partial" }), item(sid, "x", { outcome: "failure" })];
    const first = await results(await batch(reporter.key, sent));
    expect(first[0].transaction_id).toBe(aloneId);
    const again = await results(await batch(reporter.key, sent));
    expect(again).toEqual(first);
    expect(await reportRows(sid)).toHaveLength(3);
    // The same key with another report: 422, as the single route answers.
    const changed = await results(await batch(reporter.key, [item(sid, "other", { outcome: "error" })]));
    expect(changed[0]).toEqual({ status: 422, error: expect.any(String) });
  });

  it("takes a body up to 1 MiB and refuses a larger one with 413", async () => {
    const owner = await createOperator();
    await limited(owner.id, 10_000);
    const { sid } = await registerAgent(owner.key);
    const metadata = { note: "x".repeat(7_000) };
    const big = await batch(owner.key, Array.from({ length: 100 }, (_, i) => item(sid, `big${i}`, { metadata })));
    expect(big.status).toBe(200);
    expect((await results(big)).every((r) => r.status === 201)).toBe(true);
    const res = await call("/transactions/batch", { headers: bearer(owner.key), body: JSON.stringify({ transactions: [item(sid, "huge", { metadata: { note: "y".repeat(1_100_000) } })] }) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "Request body too large", request_id: expect.any(String) });
  });

  it("writes each agent's own row when several agents of one shard are in the batch", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    await limited(reporter.id, 10_000);
    // Three agents on two shards: at least two share one.
    const agents = [await registerAgent(owner.key), await registerAgent(owner.key), await registerAgent(owner.key)];
    const sent = agents.flatMap((a, i) => Array.from({ length: i + 1 }, (_, j) => item(a.sid, `rows-${i}-${j}`, { outcome: i === 1 ? "failure" : "success", reliabilitySignal: 100 + 400 * i })));
    const out = await results(await batch(reporter.key, sent));
    expect(out.every((r) => r.status === 201)).toBe(true);
    for (const [i, a] of agents.entries()) {
      const row = await (await shardOf(a.sid)).prepare("SELECT sid, seq, composite, outcome_counts FROM agents WHERE sid = ?").bind(a.sid).first<{ seq: number; composite: number; outcome_counts: string }>();
      const last = out[sent.findLastIndex((t) => t.sid === a.sid)] as { updated_scores: { composite_score: number } };
      expect(JSON.parse(row!.outcome_counts), `agent ${i}`).toEqual({ [i === 1 ? "failure" : "success"]: i + 1 });
      expect(row!.composite, `agent ${i}`).toBe(last.updated_scores.composite_score);
    }
  });

  it("moves the alarm set for a missing acknowledgement to the next time something is due once the acknowledgement came", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    const stub = env.AGENT.getByName(sid);
    const alarm = () => runInDurableObject(stub, (_o, state) => state.storage.getAlarm());
    const out = await results(await batch(reporter.key, [item(sid, "ack-1")]));
    expect(out[0].status).toBe(201);
    // Until the acknowledgement (after the answer), the alarm is the retry's, 5 seconds on.
    const before = Date.now();
    await settled();
    expect(await runInDurableObject(stub, (o) => (o as Agent).inspect())).toMatchObject({ pending: 0 });
    // Not the retry's any more: the log check a minute on comes first (a full alarm every 5 seconds of a batch stream was waste).
    expect(await alarm()).toBeGreaterThanOrEqual(before + 50_000);
  });

  it("tells the objects of a shard whose batch failed: their alarms apply the journals a retry's wait on, not an acknowledgement's", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    const stub = env.AGENT.getByName(sid);
    const shard = await shardOf(sid);
    await shard.exec("CREATE TRIGGER fail_batch BEFORE INSERT ON entries WHEN NEW.kind = 'report' BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
    try {
      // The reports are committed in the object: answered, though the route's shard batch failed.
      expect((await results(await batch(reporter.key, [item(sid, "fail-1")])))[0].status).toBe(201);
      await settled();
      expect(await reportRows(sid)).toHaveLength(0);
      const ahead = await runInDurableObject(stub, async (_o, state) => ((await state.storage.getAlarm()) ?? Infinity) - Date.now());
      expect(ahead).toBeLessThanOrEqual(RETRY_MS);
      expect(RETRY_MS).toBeLessThan(ACK_WAIT_MS);
    } finally {
      await shard.exec("DROP TRIGGER fail_batch");
    }
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await reportRows(sid)).toHaveLength(1);
    expect((await runInDurableObject(stub, (o) => (o as Agent).inspect())).pending).toBe(0);
  });

  it("in a stream of batches, an acknowledgement moves the retry's alarm to the oldest hand-out still waiting for one", async () => {
    const { stub, ref, input, alarm } = await handingOut();
    // Two batches' hand-outs, the second 3 seconds after the first, and the first acknowledged after
    // the second was handed out (as a route's acknowledgement, after its answer, often is).
    const first = await runInDurableObject(stub, (o) => (o as Agent).reportMany(ref, [input("stream-1")], true));
    await scheduler.wait(3_000);
    const handedAt = Date.now();
    const second = await runInDurableObject(stub, (o) => (o as Agent).reportMany(ref, [input("stream-2")], true));
    expect(await alarm()).toBeLessThan(handedAt + ACK_WAIT_MS - 2_000); // the first hand-out's wait
    await runInDurableObject(stub, (o) => (o as Agent).acknowledge(first.deferred!.upTo));
    // The second still waits for its acknowledgement: the alarm that would apply it twice moved on.
    expect(await alarm()).toBeGreaterThanOrEqual(handedAt + ACK_WAIT_MS - 500);
    expect(await alarm()).toBeLessThanOrEqual(Date.now() + ACK_WAIT_MS);
    await runInDurableObject(stub, (o) => (o as Agent).acknowledge(second.deferred!.upTo));
    expect((await runInDurableObject(stub, (o) => (o as Agent).inspect())).pending).toBe(0);
    // Nothing waits now: the alarm is the log's check, a minute on.
    expect(await alarm()).toBeGreaterThan(Date.now() + 40_000);
  });

  it("drops the retry's alarm once the object's own batch applied what it had handed out", async () => {
    const { sid, reporter, stub, ref, input, alarm } = await handingOut();
    // A hand-out whose request never acknowledges: the retry's alarm waits ACK_WAIT_MS.
    await runInDurableObject(stub, (o) => (o as Agent).reportMany(ref, [input("idle-1")], true));
    expect(await alarm()).toBeLessThanOrEqual(Date.now() + ACK_WAIT_MS);
    // A single report's batch applies it with its own: nothing waits, and the alarm is the log's check a minute on,
    // not one that would fire before the next hand-out's acknowledgement.
    expect((await call("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success" } })).status).toBe(201);
    expect(await reportRows(sid)).toHaveLength(2);
    expect(await alarm()).toBeGreaterThan(Date.now() + 40_000);
  });
});
