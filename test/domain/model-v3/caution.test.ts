// Version 3, R2 and R3: establishment, the lone dissenter, credible negatives, the two caution
// clauses, the caution episode (tenure, newcomers without standing), the idle hold, and what may end
// a caution.

import { describe, expect, it } from "vitest";
import { MODEL, applyConfigChange, assessAt, forgetTo, heldAt } from "../../../src/domain/model/index";
import { Agent, DAY, HOUR, T0, allSignals, bad, good, report, standing } from "./helpers";

const THREE = ["2", "3", "4"];

describe("establishment (R2)", () => {
  it("counts a reporter toward R_c after reports on 2 UTC days, the first at least 24 hours old", () => {
    const noon = T0 + 12 * HOUR;
    const a = new Agent().credibility(T0, standing(THREE)).daily(THREE, noon, 1);
    expect(a.score(noon + HOUR).independentReporters).toBe(0);
    a.daily(THREE, noon + DAY - HOUR, 1); // the next UTC day, but less than 24 hours later
    expect(a.score(noon + DAY - 30 * 60_000).independentReporters).toBe(0);
    expect(a.score(noon + DAY + 10 * 60_000).independentReporters).toBe(3);
  });
});

describe("the lone dissenter (R2)", () => {
  // Two credible reporters at their caps, positive; one credible slanderer at its cap (receipts).
  const TWO = ["2", "3"];
  const receipted = (make: typeof good) => (r: string, at: number) => make(r, at, { evidence: 1.5 });
  const agent = () => new Agent().credibility(T0, standing([...TWO, "9", "10"])).daily(TWO, T0, 8, receipted(good)).daily(["9"], T0, 8, receipted(bad));
  const at = T0 + 8 * DAY;
  /** The reliability score with the slanderer's pair scaled by f. */
  const expected = (s: ReturnType<typeof forgetTo>, ids: string[], f: number) => {
    let alpha = 3 + f * s.reporters["9"].dims.reliability.a;
    let beta = 3 + f * s.reporters["9"].dims.reliability.b;
    for (const id of ids) {
      alpha += s.reporters[id].dims.reliability.a;
      beta += s.reporters[id].dims.reliability.b;
    }
    return Math.round((1000 * alpha) / (alpha + beta));
  };

  it("is scaled to 0.25 × (the others' weighted evidence + 6) on a dimension where its sign is alone", () => {
    const s = forgetTo(agent().state, at);
    const others = TWO.map((id) => s.reporters[id].record.reliability).reduce((t, p) => t + p.a + p.b, 0);
    const own = s.reporters["9"].record.reliability;
    const f = (0.25 * (others + 6)) / (own.a + own.b);
    expect(f).toBeLessThan(0.7);
    expect(assessAt(agent().state, at).assessment.shown.dimensions.reliability).toBe(expected(s, TWO, f));
  });

  it("is not scaled once another reporter of its sign has reported 2 of that sign there", () => {
    const allied = agent().daily(["10"], T0 + 6 * DAY, 2, receipted(bad));
    const s = forgetTo(allied.state, at);
    expect(s.reporters["10"].seen.reliability.b).toBeGreaterThanOrEqual(2);
    expect(assessAt(allied.state, at).assessment.shown.dimensions.reliability).toBe(expected(s, [...TWO, "10"], 1));
  });
});

describe("credible negatives (R3)", () => {
  it("need 2 of negative evidence reported (seen b): one failure is a muted first complaint", () => {
    const a = new Agent().credibility(T0, standing(["2"])).report(bad("2", T0)).report(good("2", T0 + 2 * DAY, { outcome: "success" }));
    expect(assessAt(a.state, T0 + 2 * DAY).assessment.objectors).toBe(0);
    a.report(bad("2", T0 + 4 * DAY)).report(bad("2", T0 + 6 * DAY));
    expect(assessAt(a.state, T0 + 6 * DAY).assessment.objectors).toBe(1);
  });

  it("corroborate a bad look at max(1.5, R_c / 3) of c: one credible reporter is not enough, six seeds are", () => {
    const one = new Agent().credibility(T0, standing(["2"])).daily(["2"], T0, 5, bad);
    expect(one.score(T0 + 5 * DAY).recommendation).not.toBe("caution");
    const seeds = ["2", "3", "4", "5", "6", "7"];
    const six = new Agent().daily(seeds, T0, 5, bad); // verified seeds: 6 × 0.25 = 1.5
    expect(six.score(T0 + 5 * DAY).recommendation).toBe("caution");
    const five = new Agent().daily(seeds.slice(0, 5), T0, 5, bad);
    expect(five.score(T0 + 5 * DAY).recommendation).not.toBe("caution");
  });

  it("make caution without a bad look when they are more than half of R_c", () => {
    // Three credible reporters, every report a success rated 1000 except security, rated 450.
    const mild = (r: string, at: number) => report(r, at, { signals: { ...allSignals(1000), security: 450 } });
    const a = new Agent().credibility(T0, standing(THREE)).daily(THREE, T0, 5, mild);
    const { assessment, caution } = assessAt(a.state, T0 + 5 * DAY);
    expect(assessment.looksBad).toBe(false);
    expect(assessment.objectors).toBe(3);
    expect(caution).toBe(true);
    // With three more credible reporters that find no fault, they are not a majority.
    const b = new Agent().credibility(T0, standing([...THREE, "5", "6", "7"])).daily(THREE, T0, 5, mild).daily(["5", "6", "7"], T0, 5);
    expect(assessAt(b.state, T0 + 5 * DAY).caution).toBe(false);
  });
});

describe("the caution episode (R3)", () => {
  /** In caution from its third day: three credible reporters find it bad. */
  const cautioned = () => new Agent().credibility(T0, standing(THREE)).daily(THREE, T0, 6, bad);

  it("remembers when the caution began", () => {
    const a = cautioned();
    expect(a.score(T0 + 6 * DAY).recommendation).toBe("caution");
    expect(a.state.episode.open).toBe(true);
    expect(a.state.episode.since).toBeLessThan(T0 + 3 * DAY);
  });

  it("keeps newcomers with standing out for 30 days of tenure, then counts them", () => {
    const newcomers = ["20", "21", "22", "23", "24", "25", "26", "27"];
    const a = cautioned().credibility(T0 + 6 * DAY, standing(newcomers)).daily(newcomers, T0 + 6 * DAY, 29);
    expect(a.score(T0 + 35 * DAY).recommendation).toBe("caution");
    a.daily(newcomers, T0 + 36 * DAY, 2);
    expect(a.score(T0 + 38 * DAY).recommendation).not.toBe("caution");
  });

  it("never counts newcomers without standing (at their seed), however long they stay", () => {
    const newcomers = Array.from({ length: 40 }, (_, i) => String(100 + i)); // 40 × 0.25 = 10 of c
    const a = cautioned().daily(newcomers, T0 + 6 * DAY, 60);
    expect(a.score(T0 + 66 * DAY).recommendation).toBe("caution");
  });

  it("lets incumbents lift a caution at once", () => {
    const a = cautioned().daily(THREE, T0 + 6 * DAY, 8);
    expect(a.score(T0 + 14 * DAY).recommendation).not.toBe("caution");
  });

  it("spans cautions less than 90 days apart: a newcomer stays one though the caution lapses and returns", () => {
    const a = cautioned().daily(THREE, T0 + 6 * DAY, 8); // lifted by the incumbents
    const since = a.state.episode.since;
    a.daily(THREE, T0 + 14 * DAY, 8, bad); // back in caution
    expect(a.score(T0 + 22 * DAY).recommendation).toBe("caution");
    expect(a.state.episode.since).toBe(since);
  });
});

describe("what ends a caution (R3)", () => {
  /** In caution by the fast path only: four credible reporters fail twice in a day, after a good record. */
  const fast = () => {
    const four = ["2", "3", "4", "5"];
    const a = new Agent().credibility(T0, standing(four)).daily(four, T0, 10);
    for (const r of four) a.report(bad(r, T0 + 10 * DAY + HOUR)).report(bad(r, T0 + 10 * DAY + 2 * HOUR));
    return a;
  };

  it("forgetting alone never lifts a caution before 365 days without a report", () => {
    const a = fast();
    const last = T0 + 10 * DAY + 2 * HOUR;
    expect(a.score(last).recommendation).toBe("caution");
    expect(assessAt(a.state, last + 3 * DAY).assessment.caution).toBe(false); // the rules alone no longer hold
    expect(heldAt(a.state, last + 3 * DAY)).toBe(true);
    expect(a.score(last + 364 * DAY).recommendation).toBe("caution");
    expect(a.score(last + MODEL.idleHoldMs).recommendation).not.toBe("caution");
  });

  it("a failing report keeps a held caution; a success from an incumbent whose rules no longer hold lifts it", () => {
    const last = T0 + 10 * DAY + 2 * HOUR;
    const failing = fast().report(bad("2", last + 5 * DAY));
    expect(failing.score(last + 5 * DAY).recommendation).toBe("caution");
    const lifted = fast().report(good("2", last + 5 * DAY));
    expect(lifted.score(last + 5 * DAY).recommendation).not.toBe("caution");
  });

  it("a configuration change never does", () => {
    const a = fast();
    const at = T0 + 13 * DAY;
    for (let i = 1; i <= 4; i++) a.state = applyConfigChange(a.state, ["provider_change"], at + i * HOUR);
    expect(a.score(at + 5 * HOUR).recommendation).toBe("caution");
  });

  it("a credibility entry does when the reporters behind it lose their c", () => {
    const slanderers = ["7", "8"];
    const a = new Agent().credibility(T0, standing(slanderers)).daily(slanderers, T0, 5, bad);
    expect(a.score(T0 + 5 * DAY).recommendation).toBe("caution");
    a.credibility(T0 + 5 * DAY, { "7": 0.1, "8": 0.1 });
    expect(a.score(T0 + 5 * DAY).recommendation).not.toBe("caution");
  });
});
