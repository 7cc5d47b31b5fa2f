// Version 4: caution on S (no one reporter can caution an agent), fast caution, the caution episode
// (tenure, time alone never lifts a caution), and a configuration change never ending one.

import { describe, expect, it } from "vitest";
import { Agent, DAY, HOUR, T0, credible, ids } from "./helpers";

describe("caution on S", () => {
  it("holds at S ≤ 450 with credible negative mass ≥ 1.0, ≥ 0.5 of it without the most credible", () => {
    const a = new Agent().credibility(T0, { "2": 0.5, "3": 0.5 }).report("2", T0, "failure").report("3", T0 + HOUR, "failure");
    expect(a.score(T0 + 2 * HOUR).recommendation).toBe("caution");
    expect(a.facts(T0 + 2 * DAY).slowCaution).toBe(true);
  });

  it("is never made by one reporter, however credible", () => {
    const a = new Agent().credibility(T0, { "2": 1 }).report("2", T0, "failure");
    expect(a.score(T0 + 3 * DAY).s).toBe(333);
    expect(a.score(T0 + 3 * DAY).recommendation).toBe("review");
    // Two, but the second below 0.5: still one reporter's doing.
    a.credibility(T0 + 3 * DAY, { "3": 0.45 }).report("3", T0 + 3 * DAY, "failure");
    expect(a.score(T0 + 4 * DAY).recommendation).toBe("review");
  });

  it("needs credible negative mass of 1.0", () => {
    const a = new Agent().credibility(T0, { "2": 0.45, "3": 0.5 }).all(["2", "3"], T0, "failure");
    expect(a.facts(T0 + 3 * DAY).s).toBeLessThanOrEqual(450);
    expect(a.score(T0 + 3 * DAY).recommendation).toBe("review");
  });

  it("needs S ≤ 450: credible praise outweighs the negatives", () => {
    const a = new Agent().credibility(T0, credible(ids(2, 5))).all(["4", "5", "6"], T0).all(["2", "3"], T0 + HOUR, "failure");
    expect(a.facts(T0 + 3 * DAY).negative.mass).toBe(40);
    expect(a.facts(T0 + 3 * DAY).s).toBeGreaterThan(450);
    expect(a.score(T0 + 3 * DAY).recommendation).toBe("review");
  });
});

describe("fast caution", () => {
  // Four credible reporters praise on day 0; on day 10 three of them fail within a day.
  const agent = () => new Agent().credibility(T0, credible(ids(2, 4))).all(ids(2, 4), T0).all(["2", "3", "4"], T0 + 10 * DAY, "failure");

  it("holds when, among votes under 48 hours old, ≥ 2 fail with ≥ 1.0 of mass without the largest and ≥ 3/4 of the recent mass", () => {
    const a = agent();
    const f = a.facts(T0 + 10 * DAY + HOUR);
    expect(f.s).toBeGreaterThan(450);
    expect(f.fastCaution).toBe(true);
    expect(a.score(T0 + 10 * DAY + HOUR).recommendation).toBe("caution");
  });

  it("does not hold while the failing votes are under 3/4 of the recent voting mass", () => {
    const a = new Agent().credibility(T0, credible(ids(2, 6))).all(ids(2, 6), T0).all(["2", "3", "4"], T0 + 10 * DAY, "failure").all(["5", "6"], T0 + 10 * DAY + HOUR);
    expect(a.facts(T0 + 10 * DAY + 2 * HOUR).fastCaution).toBe(false);
  });

  it("holds its share without the most credible failing voter: one competitor does not tip it", () => {
    // Four credible reporters vote within 48 hours; a competitor and two of the three others fail.
    const a = new Agent().credibility(T0, credible(ids(2, 4))).all(ids(2, 3), T0 + 10 * DAY).all(["5", "2", "3"], T0 + 10 * DAY + HOUR, "failure");
    // With the competitor: 3 of 4 failing (3/4); without it: 2 of 3, under 3/4.
    expect(a.facts(T0 + 10 * DAY + 2 * HOUR).fastCaution).toBe(false);
    a.report("4", T0 + 10 * DAY + 3 * HOUR, "failure");
    expect(a.facts(T0 + 10 * DAY + 4 * HOUR).fastCaution).toBe(true);
  });

  it("looks only at votes under 48 hours old", () => {
    const a = new Agent().credibility(T0, credible(ids(2, 4))).all(ids(2, 4), T0).report("2", T0 + 10 * DAY, "failure").report("3", T0 + 12 * DAY + HOUR, "failure");
    expect(a.facts(T0 + 12 * DAY + 2 * HOUR).fastCaution).toBe(false);
  });

  it("is never lifted by time alone: the caution stands until an entry's rules say otherwise", () => {
    const a = agent();
    expect(a.score(T0 + 10 * DAY + HOUR).recommendation).toBe("caution");
    // Three days on the window is empty and the rules no longer hold; the last entry left it in caution.
    expect(a.facts(T0 + 13 * DAY).caution).toBe(false);
    expect(a.score(T0 + 400 * DAY).recommendation).toBe("caution");
    // A report from an account without credibility, or a failure, does not end it; a counted success does.
    a.report("40", T0 + 13 * DAY);
    a.report("2", T0 + 13 * DAY + 60_000, "failure");
    expect(a.score(T0 + 13 * DAY + HOUR).recommendation).toBe("caution");
    a.report("5", T0 + 13 * DAY + 2 * 60_000);
    expect(a.score(T0 + 13 * DAY + HOUR).recommendation).toBe("review");
  });
});

describe("the caution episode", () => {
  // Two credible failures put the agent in caution on day 0.
  const cautioned = () => new Agent().credibility(T0, { ...credible(["2", "3"], 0.5), ...credible(ids(10, 6)) }).all(["2", "3"], T0, "failure");

  it("makes a positive newcomer count only after 30 days of tenure", () => {
    const a = cautioned().all(ids(10, 6), T0 + DAY);
    expect(a.score(T0 + DAY + HOUR).recommendation).toBe("caution");
    expect(a.score(T0 + DAY + HOUR).positive).toBe(0);
    expect(a.score(T0 + 30 * DAY).positive).toBe(0);
    // From the first UTC day that begins 30 days after its first report's day, it counts.
    expect(a.score(T0 + 32 * DAY).positive).toBe(6);
    a.report("2", T0 + 32 * DAY);
    expect(a.score(T0 + 32 * DAY + HOUR).recommendation).not.toBe("caution");
  });

  it("lets incumbents count at once", () => {
    const a = new Agent()
      .credibility(T0, { ...credible(["2", "3"], 0.5), ...credible(ids(10, 6)) })
      .all(ids(10, 6), T0 + HOUR)
      .all(["2", "3"], T0 + 2 * HOUR, "failure");
    expect(a.score(T0 + 3 * HOUR).positive).toBe(6);
    expect(a.score(T0 + 3 * HOUR).recommendation).not.toBe("caution");
  });

  it("counts a newcomer's complaint at once", () => {
    const a = cautioned().credibility(T0 + DAY, { "20": 1 }).report("20", T0 + DAY, "failure");
    expect(a.score(T0 + DAY + HOUR).negative).toBe(2);
  });

  it("is never ended by a configuration change", () => {
    const a = cautioned();
    const before = a.score(T0 + HOUR);
    for (let i = 1; i <= 4; i++) a.config(["provider_change"], T0 + i * HOUR);
    const after = a.score(T0 + 5 * HOUR);
    expect(after.recommendation).toBe("caution");
    expect(after.composite).toBeLessThanOrEqual(before.composite);
  });
});
