// Version 4: configuration decay of what was earned, and whitewash inheritance.

import { describe, expect, it } from "vitest";
import { inheritanceFrom, isWhitewashSource, keptFraction } from "../../../src/domain/model/index";
import { Agent, DAY, HOUR, T0, credible, ids } from "./helpers";

describe("configuration decay", () => {
  const agent = () => new Agent().credibility(T0, credible(ids(2, 4))).all(ids(2, 3), T0, "success", { reliability: 900, security: 900 }).report("5", T0 + HOUR, "failure", { reliability: 100 });

  it("keeps the change's fraction of each vote's distance above 500, on the dimensions above 500", () => {
    const a = agent().config(["provider_change"], T0 + 2 * HOUR);
    expect(a.pairs.get("2")!.votes.reliability).toBe(500 + Math.floor(0.3 * 400));
    expect(a.pairs.get("2")!.votes.stability).toBe(500 + Math.floor(0.3 * 500));
    expect(keptFraction(["tools_change"], "security")).toBe(0.6);
    const t = agent().config(["tools_change"], T0 + 2 * HOUR);
    expect(t.pairs.get("2")!.votes.security).toBe(500 + Math.floor(0.6 * 400));
    expect(t.pairs.get("2")!.votes.reliability).toBe(500 + Math.floor(0.8 * 400));
  });

  it("never moves a vote at or below 500: complaints stay, nothing rises", () => {
    const before = agent();
    const s0 = before.score(T0 + 2 * HOUR);
    const a = agent().config(["provider_change", "model_swap"], T0 + 2 * HOUR);
    expect(a.pairs.get("5")!.votes.reliability).toBe(100);
    expect(a.pairs.get("5")!.votes.stability).toBe(0);
    const s1 = a.score(T0 + 2 * HOUR);
    for (const d of ["reliability", "quality", "financial", "security", "stability"] as const) expect(s1.dimensions[d]).toBeLessThanOrEqual(s0.dimensions[d]);
    expect(s1.composite).toBeLessThan(s0.composite);
    expect(s1.reasons).toContain("RECENT_CONFIG_CHANGE");
  });

  it("leaves a dimension at or below 500 as it is", () => {
    const a = new Agent().credibility(T0, credible(ids(2, 2))).report("2", T0, "success", { quality: 900 }).report("3", T0, "failure", { quality: 0 });
    a.config(["memory_change"], T0 + HOUR);
    expect(a.pairs.get("2")!.votes.quality).toBe(900);
  });
});

describe("whitewashing", () => {
  // A bad agent: two credible reporters fail it, one praises it; it is in caution.
  const source = () => new Agent().credibility(T0, credible(ids(2, 3))).report("4", T0).all(["2", "3"], T0 + HOUR, "failure", { reliability: 0 });

  it("passes the caution agent's negative pairs to the new agent, which starts in caution", () => {
    const old = source();
    const at = T0 + DAY;
    expect(isWhitewashSource(old.model, { now: at, suspended: false })).toBe(true);
    const entry = inheritanceFrom(old.model, old.pairs, at)!;
    expect(Object.keys(entry.reporters)).toEqual(["2", "3"]);
    expect(entry.reporters["2"].votes).toEqual({ reliability: 0, stability: 0 });
    const copy = new Agent(at).inherit(entry);
    expect(copy.score(at + HOUR).recommendation).toBe("caution");
    expect(copy.score(at + HOUR).negative).toBe(2);
    expect(copy.score(at + HOUR).positive).toBe(0);
  });

  it("starts the copy in caution when the source was suspended, even with nothing to pass on", () => {
    const healthy = new Agent().credibility(T0, credible(ids(2, 3))).all(ids(2, 3), T0);
    expect(isWhitewashSource(healthy.model, { now: T0 + DAY, suspended: false })).toBe(false);
    const entry = inheritanceFrom(healthy.model, healthy.pairs, T0 + DAY, { suspended: true })!;
    expect(Object.keys(entry.reporters)).toEqual([]);
    expect(new Agent(T0 + DAY).inherit(entry).score(T0 + DAY + HOUR).recommendation).toBe("caution");
  });

  it("is no source 90 days after its last report", () => {
    expect(isWhitewashSource(source().model, { now: T0 + 91 * DAY, suspended: false })).toBe(false);
  });
});
