// Disputes: an owner's remedy against a report it believes false. The reporter answers within 14
// days; silence goes to the admins (the report keeps counting), never to deletion. A withdrawn
// report leaves the agent exactly as if it had never been made.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { forgetSnapshot } from "../../src/db/snapshot";
import type { Agent } from "../agent-under-test";
import { ADMIN, agentConfig, bearer, call, createOperator, emptyAgentObject, publishCredibility, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:00:30Z");
const HOUR = 3_600_000;
const DAY = 86_400_000;

type App = ReturnType<typeof testApp>;

afterEach(() => forgetSnapshot());
type DisputeJson = Record<string, unknown> & { id: number; status: string; outcome: string | null; role: string; respond_by: string };

const credible: Record<number, number> = {};

/** An operator the credibility job trusts (c = 1): its reports move scores. */
async function operator(verified = false) {
  const o = await createOperator({ verified });
  await call(`/admin/operators/${o.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100_000 } });
  credible[o.id] = 1;
  await publishCredibility(credible, T0);
  return o;
}

async function register(h: App, key: string) {
  const res = await h.request("/register", { headers: bearer(key), body: { name: "Disputed", ...agentConfig } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { sid: string }).sid;
}

async function report(h: App, key: string, sid: string, outcome: string, signal: number) {
  const res = await h.request("/transactions", {
    headers: bearer(key),
    body: { sid, transactionType: "task", outcome, reliabilitySignal: signal, qualitySignal: signal, securitySignal: signal },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { transaction_id: number }).transaction_id;
}

const dispute = (h: App, key: string, id: number, body: Record<string, unknown> = { reason: "never happened", statement: "Our logs show no such task." }) =>
  h.request(`/transactions/${id}/dispute`, { headers: bearer(key), body });

const respond = (h: App, key: string, id: number, stand: boolean, note?: string) =>
  h.request(`/disputes/${id}/respond`, { headers: bearer(key), body: { stand, ...(note ? { note } : {}) } });

async function score(h: App, key: string, sid: string) {
  const res = await h.request(`/score/${sid}`, { headers: bearer(key) });
  expect(res.status).toBe(200);
  const { sid: _sid, last_updated: _at, ...rest } = (await res.json()) as Record<string, unknown>;
  return rest;
}

async function transactions(h: App, key: string, sid: string) {
  const res = await h.request(`/agents/${sid}/transactions?limit=100`, { headers: bearer(key) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { transactions: { transaction_id: number; status: string }[] }).transactions;
}

const agentObject = (sid: string) => env.AGENT.get(env.AGENT.idFromName(sid));

/** Runs the agent object's alarm as if it were `at`. */
async function alarmAt(sid: string, at: number) {
  await runInDurableObject(agentObject(sid), (o) => {
    (o as Agent).clock = () => at;
  });
  await runInDurableObject(agentObject(sid), async (_o, state) => {
    if ((await state.storage.getAlarm()) === null) await state.storage.setAlarm(Date.now() + DAY);
  });
  expect(await runDurableObjectAlarm(agentObject(sid))).toBe(true);
}

/** An agent of `owner` with two praises and one failure by `reporter`; the failure is returned. */
async function disputedSetup() {
  const h = testApp({ now: T0 });
  const owner = await operator();
  const reporter = await operator(true);
  const sid = await register(h, owner.key);
  await report(h, reporter.key, sid, "success", 900);
  h.clock.now += HOUR;
  const failure = await report(h, reporter.key, sid, "failure", 50);
  h.clock.now += HOUR;
  await report(h, reporter.key, sid, "success", 900);
  h.clock.now += HOUR;
  return { h, owner, reporter, sid, failure };
}

describe("opening a dispute", () => {
  it("is the owner's alone, once per report; the reporter's identity never reaches the owner", async () => {
    const { h, owner, reporter, sid, failure } = await disputedSetup();
    const stranger = await operator(true);
    for (const key of [reporter.key, stranger.key]) {
      const res = await dispute(h, key, failure);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: "Forbidden: you do not own this agent", request_id: expect.any(String) });
    }
    const opened = await dispute(h, owner.key, failure);
    expect(opened.status).toBe(201);
    const body = (await opened.json()) as { dispute: DisputeJson };
    expect(body.dispute).toEqual({
      id: failure,
      transaction_id: failure,
      sid,
      status: "open",
      reason: "never happened",
      statement: "Our logs show no such task.",
      opened_at: new Date(h.clock.now).toISOString(),
      respond_by: new Date(h.clock.now + 14 * DAY).toISOString(),
      resolved_at: null,
      outcome: null,
      resolved_by: null,
      reporter_note: null,
      admin_note: null,
      role: "owner",
    });
    const again = await dispute(h, owner.key, failure);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: "This report was already disputed: one dispute per report", request_id: expect.any(String) });
    const missing = await dispute(h, owner.key, failure + 1000);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "Transaction not found", request_id: expect.any(String) });

    // Each side sees its own, in its own role; nothing names the reporter to the owner.
    const ownerList = (await (await h.request("/disputes", { headers: bearer(owner.key) })).json()) as { disputes: DisputeJson[] };
    expect(ownerList.disputes).toEqual([expect.objectContaining({ id: failure, role: "owner" })]);
    expect(JSON.stringify(ownerList)).not.toContain(String(reporter.id) + ",");
    expect(Object.keys(ownerList.disputes[0])).not.toContain("reporter_operator_id");
    const reporterList = (await (await h.request("/disputes?role=reporter", { headers: bearer(reporter.key) })).json()) as { disputes: DisputeJson[] };
    expect(reporterList.disputes).toEqual([expect.objectContaining({ id: failure, role: "reporter", statement: "Our logs show no such task." })]);
    expect(((await (await h.request("/disputes", { headers: bearer(stranger.key) })).json()) as { disputes: unknown[] }).disputes).toEqual([]);

    // The report keeps counting, marked disputed; the report view shows the dispute and the statement.
    expect((await transactions(h, owner.key, sid)).find((t) => t.transaction_id === failure)?.status).toBe("disputed");
    const view = (await (await h.request(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as { disputes: unknown[] };
    expect(view.disputes).toEqual([
      { id: failure, transaction_id: failure, status: "open", reason: "never happened", statement: "Our logs show no such task.", opened_at: expect.any(String), respond_by: body.dispute.respond_by },
    ]);
  });

  it("refuses reports older than 90 days, a sixth open dispute on one agent, and bad input", async () => {
    const h = testApp({ now: T0 });
    const owner = await operator();
    const reporter = await operator(true);
    const sid = await register(h, owner.key);
    const old = await report(h, reporter.key, sid, "failure", 100);
    h.clock.now += 91 * DAY;
    const late = await dispute(h, owner.key, old);
    expect(late.status).toBe(409);
    expect(await late.json()).toEqual({ error: "A report can be disputed within 90 days of it", request_id: expect.any(String) });
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await report(h, reporter.key, sid, "failure", 100));
    for (const id of ids.slice(0, 5)) expect((await dispute(h, owner.key, id)).status).toBe(201);
    const sixth = await dispute(h, owner.key, ids[5]);
    expect(sixth.status).toBe(409);
    expect(await sixth.json()).toEqual({ error: "An agent has at most 5 open disputes", request_id: expect.any(String) });
    const noReason = await dispute(h, owner.key, ids[5], { statement: "x" });
    expect(noReason.status).toBe(400);
    const hex = await h.request("/transactions/0x10/dispute", { headers: bearer(owner.key), body: { reason: "x" } });
    expect(hex.status).toBe(400);
    // Resolving one frees a slot.
    expect((await respond(h, reporter.key, ids[0], false)).status).toBe(200);
    expect((await dispute(h, owner.key, ids[5])).status).toBe(201);
  });
});

describe("the reporter's answer", () => {
  it("withdrawn: the agent's scores equal a twin's that never got the report, through the API", async () => {
    const h = testApp({ now: T0 });
    const owner = await operator();
    const reporter = await operator(true);
    const other = await operator(true);
    const disputed = await register(h, owner.key);
    const twin = await register(h, owner.key);
    // The same reports at the same instants to both, but the twin never gets the false failure.
    const script: [string, string, number, boolean][] = [
      [reporter.key, "success", 850, true],
      [other.key, "success", 700, true],
      [reporter.key, "failure", 20, false],
      [reporter.key, "success", 900, true],
      [other.key, "partial", 500, true],
      [reporter.key, "success", 950, true],
    ];
    let falseReport = 0;
    for (const [key, outcome, signal, toTwin] of script) {
      const id = await report(h, key, disputed, outcome, signal);
      if (toTwin) await report(h, key, twin, outcome, signal);
      else falseReport = id;
      h.clock.now += 5 * HOUR;
    }
    expect(await score(h, owner.key, disputed)).not.toEqual(await score(h, owner.key, twin));
    expect((await dispute(h, owner.key, falseReport)).status).toBe(201);
    h.clock.now += 2 * DAY;
    const answered = await respond(h, reporter.key, falseReport, false, "Logged against the wrong agent.");
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { dispute: DisputeJson }).dispute).toMatchObject({
      status: "resolved",
      outcome: "withdrawn",
      resolved_by: "reporter",
      reporter_note: "Logged against the wrong agent.",
      resolved_at: new Date(h.clock.now).toISOString(),
      role: "reporter",
    });
    expect(await score(h, owner.key, disputed)).toEqual(await score(h, owner.key, twin));
    // And both keep moving alike.
    h.clock.now += HOUR;
    await report(h, other.key, disputed, "success", 800);
    await report(h, other.key, twin, "success", 800);
    expect(await score(h, owner.key, disputed)).toEqual(await score(h, owner.key, twin));

    // The history and the owner's list show it withdrawn; a second answer is refused.
    expect((await transactions(h, owner.key, disputed)).find((t) => t.transaction_id === falseReport)?.status).toBe("withdrawn");
    const view = (await (await h.request(`/report/${disputed}`, { headers: bearer(owner.key) })).json()) as { score_history: { event_type: string }[]; disputes: unknown[] };
    expect(view.score_history.map((e) => e.event_type)).toContain("dispute:withdrawn");
    expect(view.disputes).toEqual([]);
    const twice = await respond(h, reporter.key, falseReport, true);
    expect(twice.status).toBe(409);
    expect(await twice.json()).toEqual({ error: "The dispute is already resolved", request_id: expect.any(String) });
  });

  it("is still the reporter's to give after the agent's object lost its storage and rebuilt", async () => {
    const { h, owner, reporter, sid, failure } = await disputedSetup();
    expect((await dispute(h, owner.key, failure)).status).toBe(201);
    await emptyAgentObject(sid);
    const answered = await respond(h, reporter.key, failure, true, "It failed.");
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { dispute: DisputeJson }).dispute).toMatchObject({ status: "resolved", outcome: "kept", resolved_by: "reporter", reporter_note: "It failed." });
  });

  it("stays once per report after the agent's object lost its storage: a resolved dispute is not opened again", async () => {
    const { h, owner, reporter, sid, failure } = await disputedSetup();
    expect((await dispute(h, owner.key, failure)).status).toBe(201);
    expect((await respond(h, reporter.key, failure, true, "It failed.")).status).toBe(200);
    await emptyAgentObject(sid);
    const again = await dispute(h, owner.key, failure);
    expect(again.status).toBe(409);
    const stored = await env.DB.prepare("SELECT status, outcome FROM disputes WHERE id = ?").bind(failure).first();
    expect(stored).toEqual({ status: "resolved", outcome: "kept" });
  });

  it("stood by: the report keeps counting, and only the reporter may answer", async () => {
    const { h, owner, reporter, sid, failure } = await disputedSetup();
    const before = await score(h, owner.key, sid);
    expect((await dispute(h, owner.key, failure)).status).toBe(201);
    // The owner cannot answer its own dispute: to anyone but the reporter it does not exist.
    const byOwner = await respond(h, owner.key, failure, false);
    expect(byOwner.status).toBe(404);
    expect(await byOwner.json()).toEqual({ error: "Dispute not found", request_id: expect.any(String) });
    const stood = await respond(h, reporter.key, failure, true, "The task failed; here is why.");
    expect(stood.status).toBe(200);
    expect(((await stood.json()) as { dispute: DisputeJson }).dispute).toMatchObject({ status: "resolved", outcome: "kept", resolved_by: "reporter" });
    expect(await score(h, owner.key, sid)).toEqual(before);
    expect((await transactions(h, owner.key, sid)).find((t) => t.transaction_id === failure)?.status).toBe("active");
    const ownerView = (await (await h.request("/disputes?status=resolved", { headers: bearer(owner.key) })).json()) as { disputes: DisputeJson[] };
    expect(ownerView.disputes[0]).toMatchObject({ outcome: "kept", reporter_note: "The task failed; here is why." });
  });
});

describe("an unanswered dispute", () => {
  it("goes to the admins at day 14 on the agent's alarm, and keeps counting until they decide", async () => {
    const { h, owner, reporter, sid, failure } = await disputedSetup();
    const before = await score(h, owner.key, sid);
    const opened = ((await (await dispute(h, owner.key, failure)).json()) as { dispute: DisputeJson }).dispute;
    const deadline = Date.parse(opened.respond_by);
    const alarm = await runInDurableObject(agentObject(sid), async (_o, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(deadline);

    // An admin cannot decide before the reporter's time is up.
    const early = await h.request(`/admin/disputes/${failure}/decide`, { headers: ADMIN, body: { outcome: "withdraw" } });
    expect(early.status).toBe(409);
    expect(await early.json()).toEqual({ error: "Admins decide disputes the reporter did not answer in time", request_id: expect.any(String) });

    await alarmAt(sid, deadline - 1000);
    expect((await h.request("/admin/disputes?status=escalated", { headers: ADMIN }).then((r) => r.json())) as { disputes: DisputeJson[] }).not.toMatchObject({
      disputes: expect.arrayContaining([expect.objectContaining({ id: failure })]),
    });
    await alarmAt(sid, deadline);
    const queue = (await (await h.request("/admin/disputes?status=escalated&limit=100", { headers: ADMIN })).json()) as { disputes: DisputeJson[] };
    expect(queue.disputes.find((d) => d.id === failure)).toMatchObject({ status: "escalated", role: "admin" });

    // Too late for the reporter; the report still counts.
    h.clock.now = deadline + HOUR;
    const late = await respond(h, reporter.key, failure, false);
    expect(late.status).toBe(409);
    expect(await late.json()).toEqual({ error: "The 14 days to answer have passed: the dispute is with the admins", request_id: expect.any(String) });
    h.clock.now = T0 + 3 * HOUR;
    expect(await score(h, owner.key, sid)).toEqual(before);

    // The admin withdraws it: the evidence goes.
    h.clock.now = deadline + 2 * HOUR;
    const decided = await h.request(`/admin/disputes/${failure}/decide`, { headers: ADMIN, body: { outcome: "withdraw", note: "No trace of the task." } });
    expect(decided.status).toBe(200);
    expect(((await decided.json()) as { dispute: DisputeJson }).dispute).toMatchObject({ status: "resolved", outcome: "withdrawn", resolved_by: "admin", admin_note: "No trace of the task." });
    h.clock.now = T0 + 3 * HOUR;
    const after = await score(h, owner.key, sid);
    expect(after.composite_score).toBeGreaterThan(before.composite_score as number);
    expect((await transactions(h, owner.key, sid)).find((t) => t.transaction_id === failure)?.status).toBe("withdrawn");
  });

  it("survives the loss of the agent object's storage: rebuilt from the control database, it still escalates at day 14", async () => {
    const { h, owner, reporter, sid, failure } = await disputedSetup();
    const opened = ((await (await dispute(h, owner.key, failure)).json()) as { dispute: DisputeJson }).dispute;
    const deadline = Date.parse(opened.respond_by);
    await emptyAgentObject(sid);
    // The next change rebuilds the object; the open dispute's deadline is its alarm again.
    await report(h, reporter.key, sid, "success", 900);
    const alarm = await runInDurableObject(agentObject(sid), async (_o, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThanOrEqual(deadline);
    await alarmAt(sid, deadline);
    const queue = (await (await h.request("/admin/disputes?status=escalated&limit=100", { headers: ADMIN })).json()) as { disputes: DisputeJson[] };
    expect(queue.disputes.find((d) => d.id === failure)).toMatchObject({ status: "escalated" });
    // And the admins can decide it.
    const kept = await h.request(`/admin/disputes/${failure}/decide`, { headers: ADMIN, body: { outcome: "keep" } });
    expect(kept.status).toBe(200);
  });

  it("is admin-only to decide, and an admin may keep the report", async () => {
    const { h, owner, sid, failure } = await disputedSetup();
    const opened = ((await (await dispute(h, owner.key, failure)).json()) as { dispute: DisputeJson }).dispute;
    await alarmAt(sid, Date.parse(opened.respond_by));
    const byOwner = await h.request(`/admin/disputes/${failure}/decide`, { headers: bearer(owner.key), body: { outcome: "withdraw" } });
    expect(byOwner.status).toBe(401);
    const kept = await h.request(`/admin/disputes/${failure}/decide`, { headers: ADMIN, body: { outcome: "keep" } });
    expect(kept.status).toBe(200);
    expect(((await kept.json()) as { dispute: DisputeJson }).dispute).toMatchObject({ outcome: "kept", resolved_by: "admin" });
    expect((await transactions(h, owner.key, sid)).find((t) => t.transaction_id === failure)?.status).toBe("active");
    const bad = await h.request(`/admin/disputes/${failure}/decide`, { headers: ADMIN, body: { outcome: "erase" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe("outcome must be withdraw or keep");
  });
});
