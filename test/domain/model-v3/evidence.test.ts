// Version 3, what a report does to the evidence: weight, caps (R2's days cap), what a reporter has
// seen, forgetting, configuration decay of the shown evidence only, and credibility (R1).

import { describe, expect, it } from "vitest";
import {
  DIMENSIONS,
  MODEL,
  applyConfigChange,
  applyReport,
  capOf,
  emptyState,
  forgetTo,
  scoreOf,
} from "../../../src/domain/model/index";
import { Agent, DAY, HOUR, OWNER, T0, bad, ctx, good, report, standing } from "./helpers";

describe("the report weight", () => {
  it("is base × damping × receipt × penalty, with the owner base for the owner", () => {
    const s = emptyState(T0);
    expect(applyReport(s, report("2", T0, { base: 1, evidence: 1.5 }), OWNER, 0).weight).toBe(1.5);
    expect(applyReport(s, report("2", T0, { base: 0.75 }), OWNER, 3).weight).toBe(0.75 / 2);
    expect(applyReport(s, report(OWNER, T0, { base: 1 }), OWNER, 0).weight).toBe(0.25);
    expect(applyReport(s, report("2", T0, { penalty: 0.5 }), OWNER, 0).weight).toBe(0.5);
  });

  it("refuses what would store NaN", () => {
    const s = emptyState(T0);
    expect(() => applyReport(s, report("2", NaN), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report("", T0), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report("2", T0, { base: 2 }), OWNER, 0)).toThrow(RangeError);
    expect(() => applyReport(s, report("2", T0, { outcome: "maybe" as never }), OWNER, 0)).toThrow(RangeError);
  });
});

describe("the caps (R2: days, not volume)", () => {
  it("hold a non-owner at 2.5 per distinct UTC day it reported, up to 10", () => {
    expect([1, 2, 3, 4, 5].map((d) => capOf(false, d, 1))).toEqual([2.5, 5, 7.5, 10, 10]);
    expect(capOf(true, 9, 1)).toBe(2.5);
    expect(capOf(false, 9, 0.5)).toBe(5);
    const a = new Agent();
    for (let i = 0; i < 200; i++) a.report(good("2", T0 + i * 60_000, { evidence: 1.5 }));
    const r = a.state.reporters["2"];
    expect(r.days).toBe(1);
    for (const d of DIMENSIONS) expect(r.record[d].a + r.record[d].b).toBeCloseTo(2.5, 12);
    a.report(good("2", T0 + 2 * DAY)); // more than a day after the last: not damped
    expect(a.state.reporters["2"].days).toBe(2);
    expect(a.state.reporters["2"].record.stability.a + a.state.reporters["2"].record.stability.b).toBeCloseTo(2.5 * 2 ** (-(2 * DAY - 199 * 60_000) / (90 * DAY)) + 1, 9);
  });

  it("count UTC days, not 24-hour periods", () => {
    const a = new Agent().report(good("2", Date.UTC(2026, 0, 1, 23, 0))).report(good("2", Date.UTC(2026, 0, 2, 0, 30)));
    expect(a.state.reporters["2"].days).toBe(2);
  });
});

describe("what a reporter has seen", () => {
  it("is its pairs within the caps, never forgotten and never decayed by a configuration change", () => {
    const a = new Agent().daily(["2"], T0, 3, bad);
    const seen = a.state.reporters["2"].seen.stability;
    expect(seen.b).toBeCloseTo(3, 12);
    const later = forgetTo(a.state, T0 + 400 * DAY);
    expect(later.reporters["2"].seen.stability).toEqual(seen);
    expect(later.reporters["2"].record.stability.b).toBeLessThan(1.5);
    const changed = applyConfigChange(a.state, ["provider_change"], T0 + 3 * DAY);
    expect(changed.reporters["2"].seen.stability.b).toBeCloseTo(3 * 1, 12);
  });
});

describe("a configuration change", () => {
  it("decays the shown evidence of dimensions above 500 and leaves the record as it was", () => {
    const a = new Agent().credibility(T0, standing(["2", "3"])).daily(["2", "3"], T0, 5);
    const at = T0 + 5 * DAY;
    const before = forgetTo(a.state, at);
    const after = applyConfigChange(a.state, ["model_swap"], at);
    for (const id of ["2", "3"]) {
      for (const d of DIMENSIONS) {
        expect(after.reporters[id].record[d]).toEqual(before.reporters[id].record[d]);
        expect(after.reporters[id].dims[d]).toEqual({ a: before.reporters[id].dims[d].a * 0.5, b: before.reporters[id].dims[d].b * 0.5 });
      }
    }
    expect(after.lastConfigChangeAt).toBe(at);
    expect(scoreOf(after, ctx(at)).reasons).toContain("RECENT_CONFIG_CHANGE");
  });

  it("keeps a dimension at or below 500 exactly", () => {
    const a = new Agent().credibility(T0, standing(["2", "3"])).daily(["2", "3"], T0, 5, bad);
    const at = T0 + 5 * DAY;
    const before = forgetTo(a.state, at);
    const after = applyConfigChange(a.state, ["provider_change"], at);
    expect(after.reporters["2"].dims).toEqual(before.reporters["2"].dims);
  });
});

describe("forgetting", () => {
  it("halves evidence above 500 every 90 days and below every 365, reporters and record alike", () => {
    const up = new Agent().credibility(T0, standing(["2"])).daily(["2"], T0, 2);
    const down = new Agent().credibility(T0, standing(["2"])).daily(["2"], T0, 2, bad);
    const at = T0 + DAY + 60_000;
    const k = (s: typeof up.state, later: number, d: "stability") => forgetTo(s, at + later).reporters["2"].record[d].a + forgetTo(s, at + later).reporters["2"].record[d].b;
    expect(k(up.state, 90 * DAY, "stability") / k(up.state, 0, "stability")).toBeCloseTo(0.5, 12);
    expect(k(down.state, 365 * DAY, "stability") / k(down.state, 0, "stability")).toBeCloseTo(0.5, 12);
  });

  it("drops a reporter outside the R_c window once its evidence has faded away, with its c", () => {
    const a = new Agent().credibility(T0, { "2": 0.7 }).report(good("2", T0));
    expect(a.state.credibility["2"]).toBe(0.7);
    const later = forgetTo(a.state, T0 + 20 * 365 * DAY);
    expect(later.reporters["2"]).toBeUndefined();
    expect(later.credibility["2"]).toBeUndefined();
  });
});

describe("credibility (R1)", () => {
  it("weighs every non-owner pair by c: the seed (0.25 verified, 0.1 unverified) until an entry says otherwise", () => {
    const verified = new Agent().report(good("2", T0));
    const unverified = new Agent().report(good("2", T0, { base: 0.75 }));
    const credible = new Agent().credibility(T0, { "2": 1 }).report(good("2", T0));
    const n = (a: Agent) => a.score(T0).evidence;
    expect(n(verified) / n(credible)).toBeCloseTo(MODEL.credibility.seed.verified, 12);
    expect(n(unverified) / n(credible)).toBeCloseTo(MODEL.credibility.seed.unverified * 0.75, 12);
  });

  it("leaves the owner's own reports at their owner weight and cap", () => {
    const a = new Agent().credibility(T0, { [OWNER]: 0 }).report(report(OWNER, T0));
    expect(a.score(T0).evidence).toBeCloseTo(0.25 * 5, 12);
  });

  it("applies the values in force to the whole pair from the entry on (a reporter that loses credibility loses it on its past reports)", () => {
    const a = new Agent().credibility(T0, standing(["2"])).daily(["2"], T0, 3);
    const before = a.score(T0 + 3 * DAY).evidence;
    a.credibility(T0 + 3 * DAY, { "2": 0.5 });
    expect(a.score(T0 + 3 * DAY).evidence).toBeCloseTo(before / 2, 9);
  });

  it("says bootstrap in every score while the last entry said so", () => {
    const a = new Agent().credibility(T0, {}, true);
    expect(a.score(T0).model).toEqual({ version: 3, bootstrap: true, snapshot: null });
    a.credibility(T0 + HOUR, {}, false);
    expect(a.score(T0 + HOUR).model).toEqual({ version: 3, bootstrap: false, snapshot: null });
  });

  it("names the standing snapshot of the last credibility entry that came from one", () => {
    const a = new Agent().credibility(T0, { "2": 0.5 }, false, "2026-11-27.1");
    expect(a.score(T0).model.snapshot).toBe("2026-11-27.1");
    // An entry from the seeds and the latch alone (a latch change) keeps the snapshot in force.
    a.credibility(T0 + HOUR, {}, true);
    expect(a.score(T0 + HOUR).model).toEqual({ version: 3, bootstrap: true, snapshot: "2026-11-27.1" });
    a.credibility(T0 + 2 * HOUR, { "2": 0.75 }, false, "2026-11-28.2");
    expect(a.score(T0 + 2 * HOUR).model.snapshot).toBe("2026-11-28.2");
  });
});
