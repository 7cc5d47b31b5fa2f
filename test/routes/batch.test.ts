import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Agent } from "../agent-under-test";
import { ADMIN, bearer, call, createOperator, registerAgent, reportRows, shardOf } from "../helpers";

const MALFORMED = "transactions must be an array of 1 to 100 reports";
type Result = { status: number; transaction_id?: number; error?: unknown; log_promise?: string; updated_scores?: unknown };

const batch = (key: string, transactions: unknown, headers: Record<string, string> = {}) =>
  call("/transactions/batch", { headers: bearer(key, headers), body: { transactions } });
const results = async (res: Response) => ((await res.json()) as { results: Result[] }).results;
const item = (sid: string, key: string, extra: Record<string, unknown> = {}) => ({ sid, transactionType: "t", outcome: "success", idempotency_key: key, ...extra });

async function limited(id: number, perMinute: number) {
  await call(`/admin/operators/${id}`, { headers: ADMIN, body: { rate_limit_per_minute: perMinute, rate_limit_per_day: 100_000 } });
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
    // Registration and two reports (no snapshot names the reporter: no credibility entry before them).
    expect(live.record!.seq).toBe(3);
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

  it("reports its shard could not take are answered 503, record nothing, and give their share of the tier limit back", async () => {
    const owner = await createOperator();
    await limited(owner.id, 12);
    // Two registrations count 2 of the minute's 12.
    const [down, up] = [await registerAgent(owner.key), await registerAgent(owner.key)];
    await runInDurableObject(env.AGENT.getByName(down.sid), (o) => void ((o as Agent).faults.failBeforeBatch = 1));
    const first = await results(await batch(owner.key, [...Array.from({ length: 5 }, (_, i) => item(down.sid, `d${i}`)), item(up.sid, "u0")]));
    expect(first.map((r) => r.status)).toEqual([503, 503, 503, 503, 503, 201]);
    expect(await reportRows(down.sid)).toHaveLength(0);
    // 6 counted, 5 given back: 9 of the minute's 12 remain (without the 5, 4 would).
    const next = await batch(owner.key, Array.from({ length: 9 }, (_, i) => item(down.sid, `d${i}`)));
    expect(next.status).toBe(200);
    expect((await results(next)).every((r) => r.status === 201)).toBe(true);
    expect(await reportRows(down.sid)).toHaveLength(9);
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
});
