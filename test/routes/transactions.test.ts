import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { forgetSnapshot } from "../../src/db/snapshot";
import { readEntries } from "../../src/db/history";
import { replayOf } from "../../src/domain/replay";
import type { Outcome } from "../../src/domain/model";
import type { Agent } from "../agent-under-test";
import { ADMIN, agentConfig, bearer, call, createOperator, publishCredibility, registerAgent, reportRow, reportRows, shardOf, T_CALL } from "../helpers";

type Recorded = {
  success: boolean;
  transaction_id: number;
  updated_scores: { composite_score: number; dimensions: Record<string, number>; confidence: string; recommendation: string };
  message: string;
};

const report = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call("/transactions", { headers: bearer(key, headers), body: { transactionType: "task_completion", outcome: "success", ...body } });

async function unlimited(id: number) {
  await call(`/admin/operators/${id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100000, rate_limit_per_day: 1000000 } });
}

afterEach(() => forgetSnapshot());

describe("POST /transactions", () => {
  it("records with 201 and the Form A response", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    // A reporter the credibility job trusts: its report moves the scores.
    await publishCredibility({ [reporter.id]: 1 }, T_CALL);
    const { sid } = await registerAgent(owner.key);
    const res = await report(reporter.key, { sid, qualitySignal: 900, metadata: { order: 1 } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Recorded;
    expect(body).toEqual({
      success: true,
      transaction_id: expect.any(Number),
      updated_scores: {
        composite_score: expect.any(Number),
        dimensions: { reliability: 500, quality: expect.any(Number), financial: 500, security: 500, stability: expect.any(Number) },
        confidence: "low",
        recommendation: "review",
      },
      log_promise: expect.stringMatching(/^ey[\w-]+\.[\w-]+\.[\w-]+$/),
      message: expect.any(String),
    });
    expect(body.updated_scores.dimensions.quality).toBeGreaterThan(500);
    expect(body.updated_scores.dimensions.stability).toBeGreaterThan(500);
    const row = await reportRow(sid, body.transaction_id);
    expect({ reporter: row?.reporter, metadata: row?.metadata }).toEqual({ reporter: reporter.id, metadata: { order: 1 } });
    const rep = (await (await call(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as {
      score_history: { event_type: string }[];
      transaction_summary: unknown;
    };
    expect(rep.score_history[0].event_type).toBe("transaction:success");
    expect(rep.transaction_summary).toEqual({ total: 1, outcomes: { success: 1 } });
  });

  it.each([
    [{}, "Missing required fields: sid, transactionType, outcome"],
    [{ sid: "SID-0x0123456789abcdef" }, "Missing required fields: transactionType, outcome"],
    [{ sid: "SID-0x0123456789abcdef", transactionType: "t" }, "Missing required fields: outcome"],
    [{ transactionType: "t", outcome: "success" }, "Missing required fields: sid"],
    [{ sid: "SID-0x0123456789abcdef", transactionType: "t", outcome: "great" }, "Invalid outcome. Expected one of: success, partial, failure, timeout, error"],
    [{ sid: "bad", transactionType: "t", outcome: "success" }, "Invalid SID format. Expected: SID-0x[16 hex chars]"],
    [{ sid: "SID-0x0123456789abcdef", transactionType: "t", outcome: "success", qualitySignal: 1001 }, "qualitySignal must be a number between 0 and 1000"],
    [{ sid: "SID-0x0123456789abcdef", transactionType: "t", outcome: "success", reliabilitySignal: -1 }, "reliabilitySignal must be a number between 0 and 1000"],
    [{ sid: "SID-0x0123456789abcdef", transactionType: "t", outcome: "success", securitySignal: "high" }, "securitySignal must be a number between 0 and 1000"],
    [{ sid: "SID-0x0123456789abcdef", transactionType: "t", outcome: "success", metadata: { x: "y".repeat(9000) } }, "metadata must be at most 8 KiB of JSON"],
    [{ sid: "SID-0x0123456789abcdef", transactionType: "x".repeat(101), outcome: "success" }, "transactionType must be at most 100 characters"],
  ])("refuses %j with 400", async (body, error) => {
    const { key } = await createOperator();
    const res = await call("/transactions", { headers: bearer(key), body });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error, request_id: expect.any(String) });
  });

  it("answers 404 for an unknown agent and 409 for a suspended one", async () => {
    const { key } = await createOperator();
    const missing = await report(key, { sid: "SID-0x0123456789abcdef" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "Agent not found", request_id: expect.any(String) });
    const { sid } = await registerAgent(key);
    await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } });
    const suspended = await report(key, { sid });
    expect(suspended.status).toBe(409);
    const count = await reportRows(sid);
    expect(count.length).toBe(0);
  });

  it("a self-report moves a score less than an independent report", async () => {
    const owner = await createOperator();
    const independent = await createOperator({ verified: true });
    // Both credible: the owner's own vote still weighs only the owner's fixed 0.25.
    await publishCredibility({ [owner.id]: 1, [independent.id]: 1 }, T_CALL);
    const a = await registerAgent(owner.key);
    const b = await registerAgent(owner.key);
    const self = (await (await report(owner.key, { sid: a.sid, qualitySignal: 1000 })).json()) as Recorded;
    const other = (await (await report(independent.key, { sid: b.sid, qualitySignal: 1000 })).json()) as Recorded;
    expect(self.updated_scores.dimensions.quality - 500).toBeGreaterThan(0);
    expect(other.updated_scores.dimensions.quality - 500).toBeGreaterThan(2 * (self.updated_scores.dimensions.quality - 500));
  });

  it("gives one reporter one vote: repeated reports move its vote, never add weight", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    await publishCredibility({ [reporter.id]: 1 }, T_CALL);
    const { sid } = await registerAgent(owner.key);
    const quality: number[] = [];
    for (let i = 0; i < 4; i++) quality.push(((await (await report(reporter.key, { sid, qualitySignal: 1000 })).json()) as Recorded).updated_scores.dimensions.quality);
    // The same vote (1000) each time: the score stays where one report put it.
    expect(new Set(quality).size).toBe(1);
    expect(quality[0]).toBeGreaterThan(500);
    const pairs = await (await shardOf(sid)).prepare("SELECT reporter, pair FROM pairs WHERE sid = ?").bind(sid).all<{ pair: string }>();
    expect(pairs.results.map((p) => (JSON.parse(p.pair) as { reports: number }).reports)).toEqual([4]);
  });
});

describe("POST /agents/{sid}/config", () => {
  it("detects nothing when only the order of tools differs", async () => {
    const { key } = await createOperator();
    const { sid, fingerprint } = await registerAgent(key);
    const res = await call(`/agents/${sid}/config`, { headers: bearer(key), body: { ...agentConfig, tools: ["email", "search"] } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      change_detected: false,
      change_type: null,
      updated_scores: { composite_score: 500, dimensions: expect.any(Object), confidence: "low", recommendation: "review" },
      fingerprint_hash: fingerprint,
      message: expect.any(String),
    });
  });

  it("a model swap pulls every dimension above 500 toward 500 without crossing it, and keeps the ones below", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    await publishCredibility({ [reporter.id]: 1 }, T_CALL);
    await unlimited(reporter.id);
    const { sid, fingerprint } = await registerAgent(owner.key);
    for (let i = 0; i < 6; i++) await report(reporter.key, { sid, qualitySignal: 950, reliabilitySignal: 100, securitySignal: 900 });
    const before = (await (await call(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as Record<string, number>;
    // Both kinds are there, so the checks below for each one run.
    const dims = ["reliability", "quality", "financial", "security", "stability"].map((d) => before[d] - 500);
    expect(dims.some((was) => was > 10) && dims.some((was) => was < 0)).toBe(true);
    const res = await call(`/agents/${sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, modelName: "claude-opus" } });
    const body = (await res.json()) as { change_detected: boolean; change_type: string; fingerprint_hash: string; updated_scores: { dimensions: Record<string, number> } };
    expect(body.change_detected).toBe(true);
    expect(body.change_type).toBe("model_swap");
    expect(body.fingerprint_hash).not.toBe(fingerprint);
    for (const d of ["reliability", "quality", "financial", "security", "stability"]) {
      const was = before[d] - 500;
      const now = body.updated_scores.dimensions[d] - 500;
      expect(Math.abs(now)).toBeLessThanOrEqual(Math.abs(was));
      expect(Math.sign(now) === Math.sign(was) || now === 0).toBe(true);
      // Decay only of what was earned: a bad record cannot be shed by swapping models.
      if (was > 10) expect(now).toBeLessThan(was);
      if (was < 0) expect(now).toBe(was);
    }
    const rep = (await (await call(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as {
      score_history: { event_type: string }[];
      config_history: { change_type: string | null; model_name: string }[];
    };
    expect(rep.score_history[0].event_type).toBe("config_change:model_swap");
    expect(rep.config_history.map((c) => c.change_type)).toEqual(["model_swap", null]);
    expect(rep.config_history[0].model_name).toBe("claude-opus");
    const again = (await (await call(`/agents/${sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, modelName: "claude-opus" } })).json()) as {
      change_detected: boolean;
    };
    expect(again.change_detected).toBe(false);
  });

  it("answers 404 for an unknown agent, 400 for missing fields", async () => {
    const { key } = await createOperator();
    const missing = await call("/agents/SID-0x0123456789abcdef/config", { headers: bearer(key), body: agentConfig });
    expect(missing.status).toBe(404);
    const { sid } = await registerAgent(key);
    const bad = await call(`/agents/${sid}/config`, { headers: bearer(key), body: { tools: [] } });
    expect(await bad.json()).toEqual({ error: "Missing required fields: modelProvider, modelName", request_id: expect.any(String) });
  });
});

describe("idempotency", () => {
  it("replays the first response for the same key and body, and changes nothing", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const headers = { "idempotency-key": "order-42" };
    const first = await report(owner.key, { sid, qualitySignal: 800 }, headers);
    const second = await report(owner.key, { sid, qualitySignal: 800 }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(await second.json()).toEqual(await first.json());
    const count = await reportRows(sid);
    expect(count.length).toBe(1);
    const different = await report(owner.key, { sid, qualitySignal: 100 }, headers);
    expect(different.status).toBe(422);
    // Keys are scoped per operator: another operator's same key is a new request.
    const other = await createOperator();
    expect((await report(other.key, { sid, qualitySignal: 800 }, headers)).status).toBe(201);
  });

  it("concurrent reports with one key apply once, and do not fail the reports queued with them", async () => {
    const owner = await createOperator();
    await unlimited(owner.id);
    const { sid } = await registerAgent(owner.key);
    const same = Array.from({ length: 3 }, () => report(owner.key, { sid, qualitySignal: 640 }, { "idempotency-key": "dup-1" }));
    const others = Array.from({ length: 8 }, (_, i) => report(owner.key, { sid, qualitySignal: i * 100 }));
    const [sameRes, otherRes] = await Promise.all([Promise.all(same), Promise.all(others)]);
    expect([...sameRes, ...otherRes].map((r) => r.status).every((s) => s === 201)).toBe(true);
    const sameBodies = (await Promise.all(sameRes.map((r) => r.json()))) as Recorded[];
    for (const b of sameBodies) expect(b).toEqual(sameBodies[0]);
    const otherIds = ((await Promise.all(otherRes.map((r) => r.json()))) as Recorded[]).map((b) => b.transaction_id);
    expect(new Set([...otherIds, sameBodies[0].transaction_id]).size).toBe(9);
    const count = await reportRows(sid);
    expect(count.length).toBe(9);
  });

  it("replays configuration updates too, and concurrent duplicates apply once", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const body = { ...agentConfig, modelProvider: "openai" };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call(`/agents/${sid}/config`, { headers: bearer(key, { "idempotency-key": "cfg-1" }), body })),
    );
    const bodies = await Promise.all(results.map((r) => r.json()));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    expect((bodies[0] as { change_type: string }).change_type).toBe("provider_change");
    const history = await (await shardOf(sid)).prepare("SELECT count(*) AS n FROM config_history WHERE sid = ?").bind(sid).first<{ n: number }>();
    expect(history?.n).toBe(2);
    expect((await call(`/agents/${sid}/config`, { headers: bearer(key, { "idempotency-key": "cfg-1" }), body: agentConfig })).status).toBe(422);
  });
});

describe("concurrency", () => {
  it("50+ concurrent reports on one agent are neither lost nor doubled", async () => {
    const owner = await createOperator();
    const reporters = await Promise.all([createOperator({ verified: true }), createOperator(), createOperator({ verified: true })]);
    for (const r of [owner, ...reporters]) await unlimited(r.id);
    const { sid } = await registerAgent(owner.key);
    const outcomes: Outcome[] = ["success", "partial", "failure", "timeout", "error"];
    const plan = Array.from({ length: 60 }, (_, i) => ({
      key: [owner, ...reporters][i % 4].key,
      outcome: outcomes[i % 5],
      qualitySignal: (i * 37) % 1001,
    }));
    const responses = await Promise.all(plan.map((p) => report(p.key, { sid, outcome: p.outcome, qualitySignal: p.qualitySignal })));
    expect(responses.map((r) => r.status).every((s) => s === 201)).toBe(true);
    const ids = (await Promise.all(responses.map((r) => r.json() as Promise<Recorded>))).map((b) => b.transaction_id);
    expect(new Set(ids).size).toBe(60);

    const rep = (await (await call(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as {
      transaction_summary: { total: number; outcomes: Record<string, number> };
      score_history: unknown[];
    };
    expect(rep.transaction_summary).toEqual({ total: 60, outcomes: { success: 12, partial: 12, failure: 12, timeout: 12, error: 12 } });
    expect(await reportRows(sid)).toHaveLength(60);

    // Replaying the stored history under the model gives exactly the evidence the object keeps,
    // and the same evidence its row shows.
    const shard = await shardOf(sid);
    const row = await shard.prepare("SELECT evidence, created_at, operator_id FROM agents WHERE sid = ?").bind(sid).first<{ evidence: string; created_at: string; operator_id: number }>();
    const replayed = replayOf((await readEntries(shard, sid)).map((e) => ({ entry: e.entry, who: e.operator })), Date.parse(row!.created_at));
    const live = await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect());
    expect(replayed.state.model).toEqual(live.record!.evidence);
    expect(JSON.parse(row!.evidence)).toEqual(live.record!.evidence);
    // And each reporter's pair on the shard is the one the replay gives.
    const pairs = await shard.prepare("SELECT reporter, pair FROM pairs WHERE sid = ?").bind(sid).all<{ reporter: string; pair: string }>();
    expect(pairs.results.length).toBe(replayed.state.pairs.size);
    for (const r of pairs.results) expect({ ...JSON.parse(r.pair), reporter: r.reporter }).toEqual(replayed.state.pairs.get(r.reporter));
  });

  it("reports on different agents do not wait on each other", async () => {
    const owner = await createOperator();
    await unlimited(owner.id);
    const [held, free] = await Promise.all([registerAgent(owner.key), registerAgent(owner.key)]);
    // Hold the first agent's scorer queue shut.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await runInDurableObject(env.AGENT.getByName(held.sid), (o) => (o as Agent).hold(gate));
    let heldDone = false;
    const waiting = report(owner.key, { sid: held.sid }).then((r) => ((heldDone = true), r));

    // The other agent's reports go through while the first agent's report still waits.
    for (let i = 0; i < 3; i++) expect((await report(owner.key, { sid: free.sid })).status).toBe(201);
    expect(heldDone).toBe(false);

    release();
    expect((await waiting).status).toBe(201);
  });
});
