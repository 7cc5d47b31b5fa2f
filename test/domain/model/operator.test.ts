// Version 4's operator score: the credible-mass-weighted mean S of the operator's agents that hold
// credible mass ≥ 1 without their most credible reporter; no one reporter makes an agent count.

import { describe, expect, it } from "vitest";
import { operatorContribution, operatorScore } from "../../../src/domain/model/index";
import { Agent, HOUR, T0, credible, ids } from "./helpers";

describe("the operator score", () => {
  it("is the mass-weighted mean S of the agents that count, 500 with none", () => {
    const good = new Agent().credibility(T0, credible(ids(2, 3))).all(ids(2, 3), T0);
    const bad = new Agent().credibility(T0, credible(ids(2, 2), 0.5)).all(ids(2, 2), T0, "failure");
    const g = operatorContribution(good.model, T0 + HOUR);
    expect(g).toEqual({ mass: 3, weighted: 3 * 800 });
    expect(operatorContribution(bad.model, T0 + HOUR)).toEqual({ mass: 0, weighted: 0 });
    expect(operatorScore([g, operatorContribution(bad.model, T0 + HOUR)])).toBe(800);
    expect(operatorScore([])).toBe(500);
  });

  it("does not count an agent on one reporter's word, however credible", () => {
    const slandered = new Agent().credibility(T0, credible(["9"])).report("9", T0, "failure");
    expect(operatorContribution(slandered.model, T0 + HOUR)).toEqual({ mass: 0, weighted: 0 });
    slandered.credibility(T0 + HOUR, credible(["8"])).report("8", T0 + HOUR, "failure");
    expect(operatorContribution(slandered.model, T0 + 2 * HOUR).mass).toBe(2);
  });
});
