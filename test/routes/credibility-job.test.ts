// Reporter credibility from real history, end to end in workerd: the daily rollups the agents'
// objects write, the credibility job that reads them (through the admin route, as the cron does),
// the snapshot it publishes to R2, and the objects that take it up. Time is driven by the test clock:
// every report carries the clock's time, and the job computes for the clock's day.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { CompactSign, importJWK, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import { credibilitySource, forgetSnapshots } from "../../src/db/credibility";
import { forgetModelSettings } from "../../src/db/model-settings";
import { readJobState } from "../../src/db/credibility-job";
import type { AgentState, StandingSnapshot } from "../../src/domain/model";
import { runCredibilityJob } from "../../src/queues/credibility-job";
import type { Env } from "../../src/env";
import type { Agent } from "../agent-under-test";
import { ADMIN, agentConfig, bearer, createOperator, shardOf, testApp } from "../helpers";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const START = Date.parse("2026-11-28T06:00:00Z");

type Op = Awaited<ReturnType<typeof createOperator>>;
interface Job {
  status: string;
  snapshot: { id: string; rollup_rows: number; reporters: number; earned_share: number } | null;
  run: { shard: number } | null;
}

/** The tests of this file share their storage: each starts with no rollups, job, anchors, snapshots or latch. */
async function reset() {
  for (const shard of [env.SHARD_0, env.SHARD_1!]) await shard.prepare("DELETE FROM rollups").run();
  await env.DB.prepare("DELETE FROM model_settings WHERE key IN ('credibility_job', 'anchors', 'bootstrap')").run();
  const listed = await env.MODEL_BUCKET.list({ prefix: "credibility/" });
  if (listed.objects.length > 0) await env.MODEL_BUCKET.delete(listed.objects.map((o) => o.key));
  forgetModelSettings();
  forgetSnapshots();
}

async function world() {
  await reset();
  const t = testApp({ now: START });
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const secret = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JWK;
  const signing = await importJWK(secret, "EdDSA");
  const operator = async (verified = true) => {
    const op = await createOperator({ verified });
    await t.request(`/admin/operators/${op.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100000, rate_limit_per_day: 1000000 } });
    return op;
  };
  const agent = async (owner: Op) => {
    const res = await t.request("/register", { headers: bearer(owner.key), body: { name: "Agent", ...agentConfig } });
    expect(res.status).toBe(201);
    const { sid } = (await res.json()) as { sid: string };
    const keyed = await t.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body: { jwk: { kty: secret.kty, crv: secret.crv, x: secret.x } } });
    expect(keyed.status).toBe(201);
    return sid;
  };
  /**
   * Moves the clock to `day` (at least a minute past the last report): reports go in time order, and
   * a day after the first starts 6 hours in, so a reporter's reports a day apart are 24 hours apart.
   */
  const at = (day: number) => {
    t.clock.now = Math.max(t.clock.now + 60_000, START + day * DAY + (day > 0 ? 6 * HOUR : 0));
    return t.clock.now;
  };
  /** A receipted report of `reporter` on `sid` on `day`. */
  const deal = async (reporter: Op, sid: string, day: number, body: Record<string, unknown> = {}) => {
    const now = at(day);
    const claims = { sub: sid, aud: String(reporter.id), jti: crypto.randomUUID(), iat: Math.floor(now / 1000) - 60, txn: "order" };
    const receipt = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: "EdDSA", typ: "trust-receipt+jwt" }).sign(signing);
    const res = await t.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 900, receipt, ...body } });
    expect(res.status).toBe(201);
    const recorded = (await res.json()) as { transaction_id: number; receipt?: { accepted: boolean } };
    expect(recorded.receipt).toEqual({ accepted: true });
    return recorded.transaction_id;
  };
  const anchors = async (ops: Op[]) => {
    const res = await t.request("/admin/model/anchors", { method: "PUT", headers: ADMIN, body: { operators: ops.map((o) => o.id) } });
    expect(res.status).toBe(200);
  };
  /** The job through the admin route, a few pages a call, until it publishes. */
  const runJob = async (pages = 1000): Promise<Job> => {
    for (let call = 0; call < 100; call++) {
      const res = await t.request("/admin/model/credibility/run", { headers: ADMIN, body: { force: call === 0, max_pages: pages } });
      expect(res.status).toBe(200);
      const job = (await res.json()) as Job;
      if (job.status === "published") return job;
      expect(job.status).toBe("in_progress");
    }
    throw new Error("the job never published");
  };
  const state = async (id: string) => (await (await env.MODEL_BUCKET.get(`credibility/snapshots/${id}/state.json`))!.json()) as StandingSnapshot;
  /** c of `reporter` on an agent of `owner` as the objects get it now. */
  const credibility = async (reporter: Op, owner: Op, verified = true) => {
    const source = await credibilitySource(env, t.clock.now, [String(reporter.id)]);
    return source.credibility(String(reporter.id), String(owner.id), verified);
  };
  /** Closes the bootstrap latch now (its floor would hide the standing under test). */
  const closeLatch = async () => {
    const res = await t.request("/admin/model/bootstrap", { method: "PUT", headers: ADMIN, body: { ends_at: new Date(t.clock.now).toISOString() } });
    expect(res.status).toBe(200);
  };
  return { t, operator, agent, at, deal, anchors, runJob, state, credibility, closeLatch };
}

/** The agent's state in its object, and the local number of an operator on it. */
async function inObject(sid: string) {
  return runInDurableObject(env.AGENT.getByName(sid), async (o) => {
    const { record } = await (o as unknown as Agent).inspect();
    return { evidence: record!.evidence as AgentState, locals: record!.locals };
  });
}

describe("the credibility job", () => {
  it("writes one rollup row per reporter, agent and day, and the job turns receipted dealings vouched by anchors into standing", async () => {
    const w = await world();
    const [a1, a2, r, q, o1, o2, o3] = [await w.operator(), await w.operator(), await w.operator(), await w.operator(), await w.operator(false), await w.operator(false), await w.operator(false)];
    await w.anchors([a1, a2]);
    const x = [await w.agent(o1), await w.agent(o2), await w.agent(o3)];
    for (let day = 0; day <= 10; day++) {
      for (const sid of x) {
        if (day < 2) for (const anchor of [a1, a2]) await w.deal(anchor, sid, day);
        await w.deal(r, sid, day);
        await w.deal(r, sid, day, { outcome: "partial" });
      }
      await w.deal(q, x[0], day);
    }
    // Rollups: two reports a day make one row, with both counted.
    const rows = await (await shardOf(x[0])).prepare("SELECT day, reporter, reports, receipted, established, net FROM rollups WHERE sid = ? AND reporter = ? ORDER BY day").bind(x[0], r.id).all<{ day: number; reports: number; receipted: number; established: number; net: string }>();
    expect(rows.results).toHaveLength(11);
    expect(rows.results.map((row) => [row.reports, row.receipted, row.established])).toEqual([[2, 2, 0], ...Array.from({ length: 10 }, () => [2, 2, 1])]);
    // Quality 900 twice (2 × 0.8), stability success and partial (1 + 0).
    const net = JSON.parse(rows.results[0].net) as number[];
    [0, 1.6, 0, 0, 1].forEach((v, i) => expect(net[i]).toBeCloseTo(v, 12));

    const job = await w.runJob();
    expect(job.snapshot).toMatchObject({ reporters: 4 });
    const snapshot = await w.state(job.snapshot!.id);
    // r: days 1-10 established with 3 owners' agents, vouched by the two anchors: 30 pairs, full standing.
    expect(snapshot.reporters[String(r.id)]).toMatchObject({ standing: 1, exclusions: { [o1.id]: 20 / 30, [o2.id]: 20 / 30, [o3.id]: 20 / 30 } });
    // q's standing comes from o1 alone: it gains nothing on o1's agents.
    expect(snapshot.reporters[String(q.id)]).toMatchObject({ standing: 10 / 30, exclusions: { [o1.id]: 0 } });
    expect(await w.credibility(q, o1)).toBe(0.25);
    expect(await w.credibility(q, o2)).toBe(10 / 30);
    // Earned standing among the active reporters is (1 + 1 + 1 + 1/3) / 4 > 0.7: the latch closes for good.
    expect(job.snapshot!.earned_share).toBeCloseTo((3 + 1 / 3) / 4, 10);
    const settings = (await (await w.t.request("/admin/model", { headers: ADMIN })).json()) as { bootstrap: { on: boolean; closed_at: string | null } };
    expect(settings.bootstrap).toMatchObject({ on: false, closed_at: new Date(w.t.clock.now).toISOString() });

    // An object takes the snapshot up at its alarm: one credibility entry naming it, and the score says so.
    const y = await w.agent(o2);
    await w.deal(q, y, 11);
    const before = await inObject(y);
    expect(before.evidence.credibility[String(before.locals[q.id])]).toBe(10 / 30);
    expect(before.evidence.snapshot).toBe(job.snapshot!.id);
    const score = (await (await w.t.request(`/score/${y}`, { headers: bearer(o2.key) })).json()) as { model: { snapshot: string | null; bootstrap: boolean } };
    expect(score.model).toEqual({ version: 3, snapshot: job.snapshot!.id, bootstrap: false });
  });

  it("gives a ring's new members no standing from the dummies it deals with, while an honest newcomer vouched by anchors earns it", { timeout: 120_000 }, async () => {
    const w = await world();
    const [a1, a2, honest] = [await w.operator(), await w.operator(), await w.operator()];
    const ring = [await w.operator(), await w.operator(), await w.operator()];
    const [d1, d2, d3, o1, o2, o3] = [await w.operator(false), await w.operator(false), await w.operator(false), await w.operator(false), await w.operator(false), await w.operator(false)];
    await w.anchors([a1, a2]);
    const dummies = [await w.agent(d1), await w.agent(d2), await w.agent(d3)];
    const real = [await w.agent(o1), await w.agent(o2), await w.agent(o3)];
    for (let day = 0; day <= 12; day++) {
      for (const sid of dummies) for (const member of ring) await w.deal(member, sid, day);
      for (const sid of real) {
        if (day < 2) for (const anchor of [a1, a2]) await w.deal(anchor, sid, day);
        await w.deal(honest, sid, day);
      }
      // Daily runs: yesterday's standing vouches today, so a ring member with any would spread it.
      if (day >= 10) await w.runJob();
    }
    const last = await w.state((await readJobState(env)).last!.id);
    for (const member of ring) expect(last.reporters[String(member.id)]).toMatchObject({ standing: 0 });
    expect(last.reporters[String(honest.id)].standing).toBe(1);
  });

  it("lowers a serial slanderer's credibility once the consensus that followed its reports is in", { timeout: 120_000 }, async () => {
    const w = await world();
    const [a1, a2, slanderer] = [await w.operator(), await w.operator(), await w.operator()];
    const owners = [await w.operator(false), await w.operator(false), await w.operator(false), await w.operator(false)];
    await w.anchors([a1, a2, slanderer]);
    await w.closeLatch();
    const victims = [await w.agent(owners[0]), await w.agent(owners[1]), await w.agent(owners[2])];
    for (let day = 0; day <= 32; day++) {
      for (const sid of victims) {
        for (const anchor of [a1, a2]) await w.deal(anchor, sid, day);
        if (day < 3) await w.deal(slanderer, sid, day, { outcome: "failure", qualitySignal: 0 });
      }
    }
    const job = await w.runJob();
    const entry = (await w.state(job.snapshot!.id)).reporters[String(slanderer.id)];
    // Established on day 2, it stopped: its vote (day 2) is judged by the 30 days after it.
    // Three votes against the consensus: E = 1/5, agreement 2E = 0.4; its c falls from 1 to 0.4.
    expect(entry).toMatchObject({ standing: 1, agree: 0, disagree: 3, agreement: 0.4 });
    expect(await w.credibility(slanderer, owners[3])).toBe(0.4);
    expect(await w.credibility(a1, owners[3])).toBe(1);
  });

  it("lets the bootstrap floor fall as earned standing rises, and end at its end date", async () => {
    const w = await world();
    const [a1, newcomer, o1, o2] = [await w.operator(), await w.operator(), await w.operator(false), await w.operator(false)];
    const idle = [await w.operator(), await w.operator()];
    await w.anchors([a1]);
    const x = [await w.agent(o1), await w.agent(o2)];
    // Before any snapshot: the floor is 1 for a verified operator, the seed for an unverified one.
    expect(await w.credibility(newcomer, o1)).toBe(1);
    expect(await w.credibility(newcomer, o1, false)).toBe(0.1);
    for (let day = 0; day <= 2; day++) for (const sid of x) for (const r of [a1, newcomer, ...idle]) await w.deal(r, sid, day);
    const job = await w.runJob();
    // One anchor among four active reporters: share 0.25, at or below 0.3, so the floor is still 1.
    expect(job.snapshot!.earned_share).toBe(0.25);
    expect(await w.credibility(newcomer, o1)).toBe(1);
    // A second anchor vouches: the others earn standing from their established days (1 and 2).
    await w.anchors([a1, idle[0]]);
    const later = await w.runJob();
    const share = later.snapshot!.earned_share;
    expect(share).toBeCloseTo((2 + 4 / 30 + 4 / 30) / 4, 12);
    expect(await w.credibility(newcomer, o1)).toBeCloseTo((0.7 - share) / 0.4, 12);
    // The end date: the floor is gone, whatever the share.
    const end = w.t.clock.now + DAY;
    expect((await w.t.request("/admin/model/bootstrap", { method: "PUT", headers: ADMIN, body: { ends_at: new Date(end).toISOString() } })).status).toBe(200);
    w.t.clock.now = end + 1;
    expect(await w.credibility(newcomer, o1)).toBe(0.25);
  });

  it("resumes a run killed halfway without counting a page twice", async () => {
    const w = await world();
    const [a1, a2, r, o1, o2] = [await w.operator(), await w.operator(), await w.operator(), await w.operator(false), await w.operator(false)];
    await w.anchors([a1, a2]);
    const x = [await w.agent(o1), await w.agent(o2)];
    for (let day = 0; day <= 8; day++) for (const sid of x) for (const op of day < 2 ? [a1, a2, r] : [r]) await w.deal(op, sid, day);
    const clean = await runCredibilityJob(env, w.t.clock.now, { force: true });
    expect(clean.status).toBe("published");
    // A bucket that dies at its fourth write: the run stops after staging three pages of two rows.
    let puts = 0;
    const dying = new Proxy(env.MODEL_BUCKET, {
      get(target, p) {
        if (p === "put") return (...args: Parameters<R2Bucket["put"]>) => (++puts === 4 ? Promise.reject(new Error("killed")) : target.put(...args));
        const v = Reflect.get(target, p);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    // A window larger than one pass computes: the run waits, read, and the snapshot in force stays.
    const large = await runCredibilityJob(env, w.t.clock.now, { force: true, maxRows: 5 });
    expect(large.status).toBe("too_large");
    expect(large.state.last!.id).toBe(clean.state.last!.id);
    expect((await runCredibilityJob(env, w.t.clock.now, { maxRows: 5 })).status).toBe("too_large");
    // Raised (CREDIBILITY_MAX_PASS_ROWS), the same run goes on from what it read.
    const raised = await runCredibilityJob(env, w.t.clock.now, { maxRows: 1_000_000 });
    expect(raised).toMatchObject({ status: "published", read: { rows: 0 } });
    expect((await w.state(raised.state.last!.id)).reporters).toEqual((await w.state(clean.state.last!.id)).reporters);
    await expect(runCredibilityJob({ ...env, MODEL_BUCKET: dying } as Env, w.t.clock.now, { force: true, pageRows: 2 })).rejects.toThrow("killed");
    const halfway = await readJobState(env);
    expect(halfway.run).toMatchObject({ rows: 6 });
    let resumed = await runCredibilityJob(env, w.t.clock.now, { pageRows: 2, pages: 2 });
    while (resumed.status === "in_progress") resumed = await runCredibilityJob(env, w.t.clock.now, { pageRows: 2, pages: 2 });
    expect(resumed.status).toBe("published");
    expect(resumed.state.last!.rows).toBe(clean.state.last!.rows);
    const [a, b] = [await w.state(clean.state.last!.id), await w.state(resumed.state.last!.id)];
    // The resumed run had the clean run as its previous snapshot; its entries are the same.
    expect(b.reporters).toEqual(a.reporters);
    expect(b.earnedShare).toBe(a.earnedShare);
    // The staged pages are gone once published.
    expect((await env.MODEL_BUCKET.list({ prefix: "credibility/runs/" })).objects).toEqual([]);

    // Two runners at once (the cron and an admin): the one that loses a compare-and-set stops; the
    // snapshot they publish is the same as one runner's.
    const runner = async () => {
      let outcome = await runCredibilityJob(env, w.t.clock.now, { force: true, pageRows: 2, pages: 1 });
      while (outcome.status === "in_progress") outcome = await runCredibilityJob(env, w.t.clock.now, { pageRows: 2, pages: 1 });
      return outcome.status;
    };
    const statuses = await Promise.all([runner(), runner()]);
    expect(statuses).toContain("published");
    const raced = await readJobState(env);
    expect((await w.state(raced.last!.id)).reporters).toEqual(a.reporters);

    // A manifest that never got written (a runner died after the state) is written by the next call;
    // an older manifest never replaces a newer one.
    await env.MODEL_BUCKET.delete("credibility/current.json");
    forgetSnapshots();
    expect((await runCredibilityJob(env, w.t.clock.now)).status).toBe("current");
    const manifest = async () => ((await (await env.MODEL_BUCKET.get("credibility/current.json"))!.json()) as { id: string }).id;
    expect(await manifest()).toBe(raced.last!.id);
    const { publishManifest } = await import("../../src/db/credibility");
    expect(await publishManifest(env.MODEL_BUCKET, { id: clean.state.last!.id, day: 0, publishedAt: 0, buckets: 1, earnedShare: 0, reporters: 0 }, w.t.clock.now)).toBe(false);
    expect(await manifest()).toBe(raced.last!.id);
  });

  it("goes on taking reports with the values in force when the snapshot cannot be read", async () => {
    const w = await world();
    const [a1, a2, r, newcomer, o1, o2] = [await w.operator(), await w.operator(), await w.operator(), await w.operator(), await w.operator(false), await w.operator(false)];
    await w.anchors([a1, a2]);
    await w.closeLatch();
    const x = [await w.agent(o1), await w.agent(o2)];
    for (let day = 0; day <= 4; day++) for (const sid of x) for (const op of day < 2 ? [a1, a2, r] : [r]) await w.deal(op, sid, day);
    await w.runJob();
    await w.deal(r, x[0], 5);
    const before = await inObject(x[0]);
    const stub = env.AGENT.getByName(x[0]);
    const broken = { get: () => Promise.reject(new Error("R2 is down")), put: () => Promise.reject(new Error("R2 is down")) };
    // Captured first: the object's env may be the very object the test reads `env` from.
    const working = env.MODEL_BUCKET;
    const swap = (bucket: unknown) => runInDurableObject(stub, (o) => void ((o as unknown as { env: { MODEL_BUCKET: unknown } }).env.MODEL_BUCKET = bucket));
    await swap(broken);
    forgetSnapshots();
    try {
      w.t.clock.now += 2 * 60_000;
      await w.deal(r, x[0], 5);
      await w.deal(newcomer, x[0], 5);
    } finally {
      await swap(working);
    }
    const after = await inObject(x[0]);
    expect(after.evidence.credibility).toEqual(before.evidence.credibility);
    expect(after.evidence.snapshot).toBe(before.evidence.snapshot);
    expect(after.evidence.reporters[String(after.locals[newcomer.id])]).toBeDefined();
  });

  it("takes a withdrawn report out of its day's rollup row", async () => {
    const w = await world();
    const [r, o1] = [await w.operator(), await w.operator(false)];
    const sid = await w.agent(o1);
    const kept = await w.deal(r, sid, 0);
    const disputed = await w.deal(r, sid, 0, { outcome: "failure" });
    const shard = await shardOf(sid);
    const row = async () => shard.prepare("SELECT reports, receipted, net FROM rollups WHERE sid = ? AND reporter = ?").bind(sid, r.id).first<{ reports: number; receipted: number; net: string }>();
    expect(await row()).toMatchObject({ reports: 2, receipted: 2 });
    const opened = await w.t.request(`/transactions/${disputed}/dispute`, { headers: bearer(o1.key), body: { reason: "never happened" } });
    expect(opened.status).toBe(201);
    const { dispute } = (await opened.json()) as { dispute: { id: number } };
    expect((await w.t.request(`/disputes/${dispute.id}/respond`, { headers: bearer(r.key), body: { stand: false } })).status).toBe(200);
    expect(kept).toBeLessThan(disputed);
    // The next report makes the rows again from the history, the withdrawn report left out.
    await w.deal(r, sid, 0);
    const after = await row();
    expect(after).toMatchObject({ reports: 2, receipted: 2 });
    expect(JSON.parse(after!.net)[4]).toBe(2);
  });

});
