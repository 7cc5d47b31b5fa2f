// Version 4: one pair, one vote; the vote's moving average; scores with a prior; the owner's vote.

import { describe, expect, it } from "vitest";
import { MODEL_V4, nextVote } from "../../../src/domain/model/index";
import { Agent, DAY, HOUR, OWNER, T0, allSignals, credible } from "./helpers";

describe("one pair, one vote", () => {
  it("gives a reporter's hundred reports the weight of one", () => {
    const once = new Agent().credibility(T0, credible(["2", "3"])).report("2", T0 + HOUR).report("3", T0 + HOUR, "failure");
    const many = new Agent().credibility(T0, credible(["2", "3"])).report("3", T0 + HOUR, "failure");
    for (let i = 0; i < 100; i++) many.report("2", T0 + HOUR + i * 60_000);
    expect(many.score(T0 + DAY).s).toBe(once.score(T0 + DAY).s);
    expect(many.score(T0 + DAY).s).toBe(500);
  });

  it("takes the first report's observation, then moves 0.35 of the way to each later one: two failures turn it", () => {
    expect(MODEL_V4.voteStep).toBe(0.35);
    expect(nextVote(null, 1000)).toBe(1000);
    expect(nextVote(1000, 0)).toBe(650);
    expect(nextVote(650, 0)).toBe(423);
    const a = new Agent().credibility(T0, credible(["2"])).report("2", T0).report("2", T0 + HOUR, "failure");
    expect(a.pairs.get("2")!.votes.stability).toBe(650);
    a.report("2", T0 + 2 * HOUR, "failure");
    expect(a.pairs.get("2")!.votes.stability).toBe(423);
    expect(a.facts(T0 + 3 * HOUR).negative.count).toBe(1);
  });

  it("counts one report from a new counterparty with credibility, and none from one without", () => {
    const a = new Agent().credibility(T0, credible(["2"])).report("2", T0).report("3", T0 + HOUR, "failure");
    // 500 + 500 · 1 / (1 + 2): the new counterparty at c = 1 counts at once; "3" at c = 0 is muted.
    expect(a.score(T0 + 2 * HOUR).s).toBe(667);
    expect(a.score(T0 + 2 * HOUR).negative).toBe(0);
  });

  it("moves each signal's own dimension only", () => {
    const a = new Agent().credibility(T0, credible(["2"])).report("2", T0, "success", { security: 1000 });
    const v = a.score(T0 + HOUR);
    expect(v.dimensions.security).toBe(667);
    expect(v.dimensions.reliability).toBe(500);
    expect(v.dimensions.stability).toBe(667);
  });
});

describe("scores with a prior", () => {
  it("is 500 + 500 · Σ c·(2v − 1) / (Σ c + 2)", () => {
    const a = new Agent().credibility(T0, { "2": 1, "3": 0.5, "4": 0.25 }).report("2", T0, "success").report("3", T0, "partial").report("4", T0, "failure");
    // (1·1 + 0.5·0 + 0.25·(−1)) / (1.75 + 2) = 0.2
    expect(a.score(T0 + HOUR).s).toBe(600);
  });

  it("takes the owner's own vote at c = 0.25 into the scores and into no mass", () => {
    const a = new Agent().report(OWNER, T0, "success", allSignals(1000));
    const v = a.score(T0 + HOUR);
    expect(v.s).toBe(Math.round(500 + (500 * 0.25) / 2.25));
    expect(v.positive).toBe(0);
    expect(v.credible).toBe(0);
    expect(a.facts(T0 + HOUR).recent.voting).toBe(0);
  });

  it("shows a composite over the observed dimensions with version 2's weights", () => {
    const a = new Agent().credibility(T0, credible(["2"])).report("2", T0, "failure", { reliability: 1000 });
    const v = a.score(T0 + HOUR);
    // reliability 667 (0.30), stability 333 (0.10): 500 + (0.3·167 − 0.1·167) / 0.4
    expect(v.composite).toBe(Math.round(500 + (0.3 * 167 - 0.1 * 167) / 0.4));
  });
});
