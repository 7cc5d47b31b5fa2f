// Version 4 through the API on a fresh service (the configuration a new deployment gets): one model
// from the first start, credibility that only the anchors' trust and the job give, and the decisions
// it makes: new or verified accounts never clear an agent, three anchors do, their failures caution,
// one competitor does not, a repeated caution agent starts in caution, a configuration change never
// raises a score.
import { afterEach, describe, expect, it } from "vitest";
import { forgetSnapshot } from "../../src/db/snapshot";
import { ADMIN, agentConfig, bearer, createOperator, testApp, T_CALL } from "../helpers";

const HOUR = 3_600_000;

type Score = { composite_score: number; stability: number; recommendation: string; reasons: string[]; model: { version: number; snapshot: string | null } };

afterEach(() => forgetSnapshot());

async function service() {
  const app = testApp({ now: T_CALL });
  const register = async (key: string, overrides: Record<string, unknown> = {}) => {
    const res = await app.request("/register", { headers: bearer(key), body: { name: "Agent", ...agentConfig, ...overrides } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { sid: string }).sid;
  };
  const report = async (key: string, sid: string, outcome: string, signals: Record<string, number> = {}) => {
    app.clock.now += 60_000;
    const res = await app.request("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome, ...signals } });
    expect(res.status).toBe(201);
  };
  const reader = await createOperator();
  const score = async (sid: string) => {
    const res = await app.request(`/score/${sid}`, { headers: bearer(reader.key) });
    expect(res.status).toBe(200);
    return (await res.json()) as Score;
  };
  /** Names the anchors and runs the credibility job to its publication. */
  const anchorsAndJob = async (anchors: number[]) => {
    expect((await app.request("/admin/model/anchors", { method: "PUT", headers: ADMIN, body: { operators: anchors } })).status).toBe(200);
    const run = await app.request("/admin/model/credibility/run", { headers: ADMIN, body: { force: true } });
    expect(run.status).toBe(200);
    const job = (await run.json()) as { status: string; snapshot: { id: string } | null };
    expect(job.status).toBe("published");
    forgetSnapshot();
    return job.snapshot!.id;
  };
  return { app, register, report, score, anchorsAndJob };
}

describe("scoring model version 4 through the API", () => {
  it("serves version 4 from the first start, to every agent registered", async () => {
    const s = await service();
    const owner = await createOperator();
    const sid = await s.register(owner.key);
    const score = await s.score(sid);
    expect(score.model).toEqual({ version: 4, snapshot: null });
    expect(score.composite_score).toBe(500);
    expect(score.recommendation).toBe("review");
  });

  it("never clears a new agent on the praise of three new accounts, nor of three verified accounts that are not anchors, before or after the job", async () => {
    const s = await service();
    const owner = await createOperator();
    const anchor = await createOperator();
    for (const verified of [false, true]) {
      const sid = await s.register(owner.key, { name: `Praised ${verified}` });
      const praisers = await Promise.all([1, 2, 3].map(() => createOperator({ verified })));
      for (const p of praisers) for (let i = 0; i < 3; i++) await s.report(p.key, sid, "success", { qualitySignal: 990, reliabilitySignal: 990 });
      expect((await s.score(sid)).recommendation).toBe("review");
      await s.anchorsAndJob([anchor.id]);
      for (const p of praisers) await s.report(p.key, sid, "success", { qualitySignal: 990 });
      const after = await s.score(sid);
      expect(after.recommendation).toBe("review");
      expect(after.composite_score).toBe(500);
    }
  });

  it("clears a new agent on one good report from each of three anchors after the job ran, and cautions another on two failures from each", async () => {
    const s = await service();
    const owner = await createOperator();
    const anchors = await Promise.all([1, 2, 3].map(() => createOperator()));
    const snapshot = await s.anchorsAndJob(anchors.map((a) => a.id));
    const good = await s.register(owner.key, { name: "Good" });
    for (const a of anchors) await s.report(a.key, good, "success", { qualitySignal: 900, reliabilitySignal: 900 });
    const cleared = await s.score(good);
    expect(cleared.recommendation).toBe("clear");
    expect(cleared.model).toEqual({ version: 4, snapshot });

    const bad = await s.register(owner.key, { name: "Bad", modelName: "other-model" });
    for (const a of anchors) for (let i = 0; i < 2; i++) await s.report(a.key, bad, "failure");
    expect((await s.score(bad)).recommendation).toBe("caution");
  });

  it("does not caution an agent on one new competitor's failures and one honest timeout", async () => {
    const s = await service();
    const owner = await createOperator();
    const anchors = await Promise.all([1, 2, 3].map(() => createOperator()));
    await s.anchorsAndJob(anchors.map((a) => a.id));
    const sid = await s.register(owner.key);
    for (const a of anchors) await s.report(a.key, sid, "success", { qualitySignal: 900 });
    const competitor = await createOperator();
    for (let i = 0; i < 5; i++) await s.report(competitor.key, sid, "failure");
    await s.report(anchors[0].key, sid, "timeout");
    expect((await s.score(sid)).recommendation).not.toBe("caution");
  });

  it("starts a re-registered caution agent (the same owner and configuration) in caution", async () => {
    const s = await service();
    const owner = await createOperator();
    const anchors = await Promise.all([1, 2, 3].map(() => createOperator()));
    await s.anchorsAndJob(anchors.map((a) => a.id));
    const first = await s.register(owner.key, { name: "First" });
    for (const a of anchors) for (let i = 0; i < 2; i++) await s.report(a.key, first, "failure");
    expect((await s.score(first)).recommendation).toBe("caution");
    const again = await s.register(owner.key, { name: "Again" });
    expect((await s.score(again)).recommendation).toBe("caution");
    // Another configuration of the same owner starts fresh.
    const other = await s.register(owner.key, { name: "Other", modelName: "another-model" });
    expect((await s.score(other)).recommendation).toBe("review");
  });

  it("never raises a score on a configuration change, whatever the votes", async () => {
    const s = await service();
    const owner = await createOperator();
    const anchors = await Promise.all([1, 2, 3].map(() => createOperator()));
    await s.anchorsAndJob(anchors.map((a) => a.id));
    const sid = await s.register(owner.key);
    await s.report(anchors[0].key, sid, "success", { qualitySignal: 950, securitySignal: 100 });
    await s.report(anchors[1].key, sid, "failure", { qualitySignal: 200, reliabilitySignal: 900 });
    await s.report(anchors[2].key, sid, "partial", { financialSignal: 300 });
    const before = await s.score(sid);
    s.app.clock.now += HOUR;
    const changed = await s.app.request(`/agents/${sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, modelName: "claude-opus", tools: ["search"] } });
    expect(changed.status).toBe(200);
    const after = (await s.score(sid)) as Score & Record<string, number>;
    expect(after.composite_score).toBeLessThanOrEqual(before.composite_score);
    for (const d of ["reliability", "quality", "financial", "security", "stability"]) expect(after[d]).toBeLessThanOrEqual((before as Score & Record<string, number>)[d]);
    // What was earned decays: at least one dimension above 500 came down.
    expect(after.composite_score).toBeLessThan(before.composite_score);
  });
});
