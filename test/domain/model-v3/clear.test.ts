// Version 3, R4 to R6: the fast negative path, what clear needs (supporting reporters, the operator
// record), the operator score, whitewashing, and the reasons.

import { describe, expect, it } from "vitest";
import {
  applyInheritance,
  assessAt,
  emptyState,
  independentContribution,
  inheritanceFrom,
  isWhitewashSource,
  operatorScore,
  scoreOf,
} from "../../../src/domain/model/index";
import { Agent, DAY, HOUR, T0, bad, ctx, good, report, standing } from "./helpers";

const FIVE = ["2", "3", "4", "5", "6"];

/** Five credible reporters, 10 good days: clear. */
const clearAgent = () => new Agent().credibility(T0, standing(FIVE)).daily(FIVE, T0, 10);
const AT = T0 + 10 * DAY;

describe("the fast negative path (R4)", () => {
  it("withholds clear (RECENT_FAILURES) at 3 failing voters left after the most credible one, and not at 2", () => {
    const three = clearAgent();
    for (const r of FIVE.slice(0, 3)) three.report(bad(r, AT + HOUR));
    expect(three.score(AT + 2 * HOUR).reasons).not.toContain("RECENT_FAILURES");
    expect(three.score(AT + 2 * HOUR).recommendation).toBe("clear");
    const four = clearAgent();
    for (const r of FIVE.slice(0, 4)) four.report(bad(r, AT + HOUR));
    const s = four.score(AT + 2 * HOUR);
    expect(s.reasons).toContain("RECENT_FAILURES");
    expect(s.recommendation).not.toBe("clear");
  });

  it("needs the failing voters' c to be 2/3 of the voting c", () => {
    const seven = ["2", "3", "4", "5", "6", "7", "8", "9"];
    const a = new Agent().credibility(T0, standing(seven)).daily(seven, T0, 10);
    for (const r of seven.slice(0, 5)) a.report(bad(r, AT + HOUR)); // 4 of 7 left: below 2/3
    expect(a.score(AT + 2 * HOUR).reasons).not.toContain("RECENT_FAILURES");
    a.report(bad("7", AT + HOUR)); // 5 of 7
    expect(a.score(AT + 2 * HOUR).reasons).toContain("RECENT_FAILURES");
  });

  it("votes only with a last report under 48 hours old", () => {
    const a = clearAgent();
    for (const r of FIVE.slice(0, 4)) a.report(bad(r, AT + HOUR));
    expect(assessAt(a.state, AT + 48 * HOUR).assessment.recentFailures).toBe(true);
    expect(assessAt(a.state, AT + 50 * HOUR).assessment.recentFailures).toBe(false);
  });

  it("makes fast caution when the failing voters with 2 failures in 72 hours sum to 1.5 and 3/4 of the voting c", () => {
    const once = clearAgent();
    for (const r of FIVE) once.report(bad(r, AT + HOUR));
    expect(once.score(AT + 2 * HOUR).recommendation).not.toBe("caution");
    const twice = clearAgent();
    for (const r of FIVE) twice.report(bad(r, AT + HOUR)).report(bad(r, AT + 3 * HOUR));
    expect(assessAt(twice.state, AT + 3 * HOUR).assessment.fastCaution).toBe(true);
    expect(twice.score(AT + 3 * HOUR).recommendation).toBe("caution");
  });
});

describe("clear (R5)", () => {
  it("is given to five credible reporters' good record", () => {
    expect(clearAgent().score(AT).recommendation).toBe("clear");
  });

  it("needs 3 supporting reporters: credible reporters that are negative do not count toward it", () => {
    // Two credible supporters, and credible reporters negative on security only.
    const mixed = new Agent().credibility(T0, standing(["2", "3", "4"])).daily(["2", "3"], T0, 10).daily(["4"], T0, 10, (r, at) => good(r, at, { signals: { reliability: 950, quality: 950, financial: 950, security: 300 } }));
    const s = assessAt(mixed.state, AT).assessment;
    expect(s.credible).toBe(3);
    expect(s.supporting).toBe(2);
    expect(mixed.score(AT).recommendation).not.toBe("clear");
    expect(mixed.score(AT).reasons).toContain("FEW_INDEPENDENT_REPORTERS");
  });

  it("needs the supporting reporters to be 2/3 of the credible reporters present, established or not", () => {
    const a = clearAgent();
    const arriving = ["20", "21", "22"]; // credible, reporting failures, not yet established
    a.credibility(AT, standing(arriving));
    for (const r of arriving) a.report(bad(r, AT + HOUR));
    const s = assessAt(a.state, AT + HOUR).assessment;
    expect(s.supporting).toBe(5);
    expect(s.present).toBe(8);
    expect(a.score(AT + HOUR).recommendation).not.toBe("clear");
  });

  it("is withheld by the owner's operator score below 400 (OPERATOR_RECORD) and needs an owner", () => {
    const a = clearAgent();
    expect(a.score(AT, { operatorScore: 399 }).recommendation).toBe("review");
    expect(a.score(AT, { operatorScore: 399 }).reasons).toContain("OPERATOR_RECORD");
    expect(a.score(AT, { operatorScore: 400 }).recommendation).toBe("clear");
    expect(scoreOf(clearAgent().state, ctx(AT, { ownerId: null })).recommendation).toBe("review");
  });

  it("is never reached by the owner alone: 1,000 self-reports stay below 700", () => {
    const a = new Agent();
    for (let i = 0; i < 1000; i++) a.report(report("1", T0 + i * 60_000, { evidence: 1.5 }));
    const s = a.score(T0 + 1000 * 60_000, { identityLevel: 2 });
    expect(s.composite).toBeLessThanOrEqual(700);
    expect(s.recommendation).toBe("review");
  });
});

describe("the operator score (R5)", () => {
  it("counts an agent only when its R_c is at least 2: one friend cannot feed a dummy", () => {
    const friend = new Agent().credibility(T0, standing(["2"])).daily(["2"], T0, 10);
    expect(independentContribution(friend.state, AT).evidence).toBe(0);
    expect(operatorScore([independentContribution(friend.state, AT)])).toBe(500);
    const two = new Agent().credibility(T0, standing(["2", "3"])).daily(["2", "3"], T0, 10);
    const c = independentContribution(two.state, AT);
    expect(c.credible).toBe(2);
    expect(c.evidence).toBeGreaterThan(50);
    expect(operatorScore([c])).toBeGreaterThan(700);
  });

  it("weighs each agent's non-owner evidence by c and leaves the owner's out", () => {
    const a = new Agent().credibility(T0, { "2": 1, "3": 0.5 }).daily(["2", "3"], T0, 10).daily(["1"], T0, 10, bad);
    const c = independentContribution(a.state, AT);
    const half = new Agent().credibility(T0, { "2": 1, "3": 0.5 }).daily(["2", "3"], T0, 10);
    expect(c).toEqual(independentContribution(half.state, AT));
  });
});

describe("whitewashing (R6)", () => {
  const cautioned = () => new Agent().credibility(T0, standing(["2", "3", "4"])).daily(["2", "3", "4"], T0, 6, bad).daily(["5", "6"], T0, 6);

  it("passes on the negative pairs only, with their days, times and c, and starts the new agent in caution", () => {
    const old = cautioned();
    const at = T0 + 6 * DAY;
    expect(isWhitewashSource(old.state, { now: at, suspended: false })).toBe(true);
    const entry = inheritanceFrom(old.state, at)!;
    expect(Object.keys(entry.reporters).sort()).toEqual(["2", "3", "4"]);
    expect(entry.reporters["2"]).toMatchObject({ days: 6, credibility: 1, firstAt: old.state.reporters["2"].firstAt });
    expect(entry.caution).toBe(true);
    const copy = applyInheritance(emptyState(at), entry);
    expect(scoreOf(copy, ctx(at)).recommendation).toBe("caution");
    expect(copy.reporters["5"]).toBeUndefined();
  });

  it("needs a source in caution (or suspended) with a report in the last 90 days: a healthy fleet passes on nothing", () => {
    const healthy = clearAgent();
    expect(isWhitewashSource(healthy.state, { now: AT, suspended: false })).toBe(false);
    expect(isWhitewashSource(healthy.state, { now: AT, suspended: true })).toBe(true);
    expect(isWhitewashSource(cautioned().state, { now: T0 + 6 * DAY + 91 * DAY, suspended: false })).toBe(false);
  });

  it("only names a match across owners (SIMILAR_TO_CAUTIONED), never changing the recommendation", () => {
    const s = clearAgent().score(AT, { similarToCautioned: true });
    expect(s.recommendation).toBe("clear");
    expect(s.reasons).toEqual(["SIMILAR_TO_CAUTIONED"]);
  });
});

describe("reasons", () => {
  it("list LOW_* first, then RECENT_FAILURES, SIMILAR_TO_CAUTIONED, RECENT_CONFIG_CHANGE, NO_OWNER, OPERATOR_RECORD, FEW_INDEPENDENT_REPORTERS, INSUFFICIENT_EVIDENCE, IDENTITY_UNVERIFIED, at most 4", () => {
    const fresh = new Agent().score(T0, { identityLevel: 0, operatorScore: 300, ownerId: null, similarToCautioned: true });
    expect(fresh.reasons).toEqual(["SIMILAR_TO_CAUTIONED", "NO_OWNER", "OPERATOR_RECORD", "FEW_INDEPENDENT_REPORTERS"]);
    const failing = clearAgent();
    for (const r of FIVE.slice(0, 4)) failing.report(bad(r, AT + HOUR));
    expect(failing.score(AT + HOUR, { similarToCautioned: true }).reasons.slice(0, 2)).toEqual(["RECENT_FAILURES", "SIMILAR_TO_CAUTIONED"]);
  });
});
