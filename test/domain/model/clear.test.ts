// Version 4: clear (S ≥ 700, credible positive mass ≥ 3, no dimension below 450, owned, operator score
// ≥ 400, no recent failures), RECENT_FAILURES with the 30-day double weight (a slow drip of failures),
// confidence and reasons.

import { describe, expect, it } from "vitest";
import { MODEL_V4 } from "../../../src/domain/model/index";
import { Agent, DAY, HOUR, OWNER, T0, credible, ids } from "./helpers";

const THREE = ids(2, 3);

describe("clear", () => {
  it("comes with S ≥ 700 and credible positive mass ≥ 3", () => {
    const a = new Agent().credibility(T0, credible(ids(2, 4))).all(["2", "3"], T0);
    expect(a.score(T0 + HOUR).s).toBeGreaterThanOrEqual(700);
    expect(a.score(T0 + HOUR).recommendation).toBe("review");
    expect(a.score(T0 + HOUR).reasons).toContain("FEW_INDEPENDENT_REPORTERS");
    a.report("4", T0 + HOUR);
    expect(a.score(T0 + 2 * HOUR).recommendation).toBe("clear");
  });

  it("needs S ≥ 700", () => {
    // Six credible positives at c = 0.5 (mass 3): S = 500 + 500 · 3 / 5 = 800; with two failures in, 667.
    const a = new Agent().credibility(T0, credible(ids(2, 8), 0.5)).all(ids(2, 6), T0);
    expect(a.score(T0 + HOUR).recommendation).toBe("clear");
    a.all(["8", "9"], T0 + HOUR, "failure");
    const v = a.score(T0 + 2 * HOUR);
    expect(v.s).toBe(667);
    expect(v.positive).toBe(3);
    expect(v.reasons).toEqual(["INSUFFICIENT_EVIDENCE"]);
    expect(v.recommendation).toBe("review");
  });

  it("needs every dimension at 450 or more", () => {
    const a = new Agent().credibility(T0, credible(ids(2, 4))).all(THREE, T0, "success", { security: 0 });
    expect(a.score(T0 + HOUR).dimensions.security).toBeLessThan(450);
    expect(a.score(T0 + HOUR).recommendation).toBe("review");
    expect(a.score(T0 + HOUR).reasons[0]).toBe("LOW_SECURITY");
  });

  it("needs an owner, and the owner's operator score at 400 or more", () => {
    const unowned = new Agent(T0, null).credibility(T0, credible(THREE)).all(THREE, T0);
    expect(unowned.score(T0 + HOUR).recommendation).toBe("review");
    expect(unowned.score(T0 + HOUR).reasons).toContain("NO_OWNER");
    const a = new Agent().credibility(T0, credible(THREE)).all(THREE, T0);
    expect(a.score(T0 + HOUR, { operatorScore: 399 }).recommendation).toBe("review");
    expect(a.score(T0 + HOUR, { operatorScore: 399 }).reasons).toContain("OPERATOR_RECORD");
    expect(a.score(T0 + HOUR, { operatorScore: 400 }).recommendation).toBe("clear");
  });

  it("is never given by the owner's own praise, nor by reporters without credibility", () => {
    const a = new Agent();
    for (let i = 0; i < 1000; i++) a.report(OWNER, T0 + i * 60_000, "success", { reliability: 1000, quality: 1000, security: 1000, financial: 1000 }, true);
    for (const r of ids(100, 10)) a.report(r, T0 + DAY, "success", {}, true);
    const v = a.score(T0 + 2 * DAY);
    expect(v.recommendation).toBe("review");
    expect(v.composite).toBeLessThanOrEqual(700);
  });
});

describe("RECENT_FAILURES", () => {
  // Ten credible reporters praise on day 0; they stop. Then distinct credible reporters fail one every 49 hours.
  const drip = (failures: number) => {
    const a = new Agent().credibility(T0, credible([...ids(2, 10), ...ids(50, 10)])).all(ids(2, 10), T0);
    for (let i = 0; i < failures; i++) a.report(String(50 + i), T0 + 10 * DAY + i * 49 * HOUR, "failure");
    return a;
  };

  it("withdraws clear on a slow drip of failures: a failing vote newer than 30 days counts double", () => {
    const one = drip(1);
    expect(one.score(T0 + 10 * DAY + HOUR).recommendation).toBe("clear");
    const two = drip(2);
    const at = T0 + 10 * DAY + 49 * HOUR + HOUR;
    // S stays clear of 700 and no fast caution (49 hours apart): only the 30-day test sees them.
    expect(two.facts(at).s).toBeGreaterThanOrEqual(700);
    expect(two.facts(at).fastCaution).toBe(false);
    expect(two.facts(at).recentFailures).toBe(true);
    expect(two.score(at).recommendation).toBe("review");
    expect(two.score(at).reasons).toContain("RECENT_FAILURES");
  });

  it("weighs the failing votes against the other votes of the last 48 hours", () => {
    const a = drip(2);
    // Eight of the ten praise again within the window: 2 × 2 failing against 8 others is under 2/3.
    a.all(ids(2, 8), T0 + 10 * DAY + 50 * HOUR);
    expect(a.facts(T0 + 10 * DAY + 51 * HOUR).recentFailures).toBe(false);
  });

  it("forgets a failing vote after 30 days", () => {
    const a = drip(2);
    expect(a.facts(T0 + 10 * DAY + 49 * HOUR + 31 * DAY).recentFailures).toBe(false);
  });
});

describe("confidence and reasons", () => {
  it("is high with credible mass ≥ 5 and ≥ 100 reports, medium with ≥ 2 and ≥ 20; identity level 0 caps it at medium", () => {
    const a = new Agent().credibility(T0, credible(ids(2, 5)));
    for (let i = 0; i < 19; i++) a.report(String(2 + (i % 2)), T0 + i * HOUR);
    expect(a.score(T0 + DAY).confidence).toBe("low");
    a.report("2", T0 + DAY);
    expect(a.score(T0 + DAY + HOUR).confidence).toBe("medium");
    for (let i = 0; i < 80; i++) a.report(String(2 + (i % 5)), T0 + 2 * DAY + i * HOUR);
    expect(a.score(T0 + 10 * DAY).confidence).toBe("high");
    expect(a.score(T0 + 10 * DAY, { identityLevel: 0 }).confidence).toBe("medium");
  });

  it("lists at most 4, most important first", () => {
    const a = new Agent(T0, null).credibility(T0, credible(["2"])).report("2", T0, "failure", { reliability: 0, security: 100 });
    const v = a.score(T0 + HOUR, { identityLevel: 0, operatorScore: 300 });
    expect(v.reasons).toEqual(["LOW_RELIABILITY", "LOW_STABILITY", "LOW_SECURITY", "NO_OWNER"]);
    expect(MODEL_V4.maxReasons).toBe(4);
  });
});
