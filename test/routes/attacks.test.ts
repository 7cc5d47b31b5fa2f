// The headline attacks on the scoring model, end to end through the API (docs/scoring.md has the
// simulation that measures them on a whole population).
import { afterEach, describe, expect, it } from "vitest";
import { forgetSnapshot } from "../../src/db/snapshot";
import { ADMIN, agentConfig, bearer, call, createOperator, publishCredibility, registerAgent, testApp, T_CALL } from "../helpers";

const HOUR = 3_600_000;

type Scores = { composite_score: number; recommendation: string; confidence: string };

async function operator(verified = true) {
  const o = await createOperator({ verified });
  await call(`/admin/operators/${o.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100_000, rate_limit_per_day: 1_000_000 } });
  return o;
}

function world() {
  const h = testApp({ now: T_CALL });
  const report = async (key: string, sid: string, body: Record<string, unknown>) => {
    h.clock.now += HOUR;
    const res = await h.request("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", ...body } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { updated_scores: { composite_score: number; recommendation: string } }).updated_scores;
  };
  const score = async (key: string, sid: string) => (await (await h.request(`/score/${sid}`, { headers: bearer(key) })).json()) as Scores;
  return { h, report, score };
}

const praise = { outcome: "success", reliabilitySignal: 1000, qualitySignal: 1000, securitySignal: 1000, financialSignal: 1000 };
const blame = { outcome: "failure", reliabilitySignal: 0, qualitySignal: 0, securitySignal: 0, financialSignal: 0 };

/** Gives each operator full credibility (as if each earned it from the job), from `now` on. */
const credible = (ops: { id: number }[], now: number) => publishCredibility(Object.fromEntries(ops.map((o) => [o.id, 1])), now);

describe("attacks on the score", () => {
  afterEach(() => forgetSnapshot());

  it("two colluding operators cannot make a new agent clear, whatever the volume", async () => {
    const { report, score } = world();
    const owner = await operator();
    const colluders = [await operator(), await operator()];
    // Even with full credibility each: two are short of the credible mass clear needs.
    await credible(colluders, T_CALL);
    const { sid } = await registerAgent(owner.key);
    for (let i = 0; i < 120; i++) {
      const s = await report(colluders[i % 2].key, sid, praise);
      expect(s.recommendation).not.toBe("clear");
    }
    const final = await score(owner.key, sid);
    expect(final.recommendation).toBe("review");
    // One pair, one vote: the score sits at what two votes give against the prior, far from 1000.
    expect(final.composite_score).toBeLessThan(900);
    expect(final.composite_score).toBeGreaterThan(700); // their votes did weigh
  });

  it("one competitor cannot make a new agent caution, nor an agent with a hundred honest reports", async () => {
    const { report, score } = world();
    const owner = await operator();
    const competitor = await operator();
    const honest = [await operator(), await operator(), await operator(), await operator()];
    // Everyone credible: no one reporter's credible mass is enough to caution.
    await credible([competitor, ...honest], T_CALL);
    const fresh = await registerAgent(owner.key);
    for (let i = 0; i < 40; i++) expect((await report(competitor.key, fresh.sid, blame)).recommendation).not.toBe("caution");
    expect((await score(owner.key, fresh.sid)).recommendation).toBe("review");

    const established = await registerAgent(owner.key);
    for (let i = 0; i < 100; i++) await report(honest[i % 4].key, established.sid, { ...praise, qualitySignal: 850 });
    for (let i = 0; i < 40; i++) expect((await report(competitor.key, established.sid, blame)).recommendation).not.toBe("caution");
  });

  it("four provider flips never raise a caution agent", async () => {
    const { h, report, score } = world();
    const owner = await operator();
    const critics = [await operator(), await operator(), await operator()];
    await credible(critics, T_CALL);
    const { sid } = await registerAgent(owner.key);
    for (let i = 0; i < 30; i++) await report(critics[i % 3].key, sid, { ...blame, outcome: i % 4 === 0 ? "success" : "failure" });
    let before = await score(owner.key, sid);
    expect(before.recommendation).toBe("caution");
    for (const provider of ["openai", "anthropic", "openai", "anthropic"]) {
      h.clock.now += HOUR;
      const res = await h.request(`/agents/${sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, modelProvider: provider } });
      expect(((await res.json()) as { change_type: string }).change_type).toBe("provider_change");
      const after = await score(owner.key, sid);
      expect(after.recommendation).toBe("caution");
      expect(after.composite_score).toBeLessThanOrEqual(before.composite_score);
      before = after;
    }
  });

  it("an owner's self-reports keep its own agent below 700 and never clear", async () => {
    const { report, score } = world();
    const owner = await operator();
    const { sid } = await registerAgent(owner.key);
    for (let i = 0; i < 150; i++) {
      const s = await report(owner.key, sid, praise);
      expect(s.composite_score).toBeLessThanOrEqual(700);
      expect(s.recommendation).not.toBe("clear");
    }
    const final = await score(owner.key, sid);
    expect(final.composite_score).toBeLessThanOrEqual(700);
    expect(final.confidence).toBe("low");
  });

  it("a self-registered agent's future owner gains nothing from reports it sent before claiming it", async () => {
    const { h, report, score } = world();
    const claimer = await operator();
    // Credible as a counterparty: its reports weigh fully while it is not the owner.
    await credible([claimer], T_CALL);
    const res = await h.request("/register/self", { body: { name: "Self", ...agentConfig }, headers: { "cf-connecting-ip": "192.0.2.91" } });
    const { sid, claim_token } = (await res.json()) as { sid: string; claim_token: string };
    for (let i = 0; i < 40; i++) await report(claimer.key, sid, praise);
    const unclaimed = await score(claimer.key, sid);
    expect(unclaimed.recommendation).not.toBe("clear");
    expect((await h.request(`/agents/${sid}/claim`, { headers: bearer(claimer.key), body: { claim_token } })).status).toBe(200);
    const claimed = await score(claimer.key, sid);
    // Re-weighted as the owner's own vote: c = 0.25 against the prior, in no mass.
    expect(claimed.composite_score).toBeLessThan(unclaimed.composite_score);
    expect(claimed.composite_score).toBeLessThanOrEqual(700);
  });
});
