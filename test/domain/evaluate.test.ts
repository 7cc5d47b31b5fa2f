// `npm run evaluate`'s engine: on a 200-line fixture against figures computed by hand
// (test/domain/evaluate/README.md gives the arithmetic), its input rules, and a reduced evaluate on a
// slice of Bitcoin OTC that checks the rules decide.

import { describe, expect, it } from "vitest";
import otcNetwork from "../../data/otc/network.csv?raw";
import otcLabels from "../../data/otc/labels.csv?raw";
import fixture from "./evaluate/network.csv?raw";
import fixtureLabels from "./evaluate/labels.csv?raw";
import { InputError, evaluate, evaluateText, labelDefining, parseLabels, parseNetwork } from "../../scripts/evaluation/index";

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("the 200-line fixture, against figures computed by hand", () => {
  const e = evaluateText(fixture, fixtureLabels, { anchor: 1 });
  const { kept, removed } = e.protocols as Required<typeof e.protocols>;
  const face = (p: typeof kept, id: number) => {
    const u = p.users.find((x) => x.id === id)!;
    return [u.composite, u.s, u.recommendation];
  };
  const before = (p: typeof kept, line: number) => {
    const b = p.ratings.find((r) => r.line === line)?.before;
    return b && [b.composite, b.s, b.recommendation];
  };

  it("reads 198 ratings: the header and the blank line are not counted, \\r\\n and decimal seconds are read", () => {
    const ratings = parseNetwork(fixture);
    expect(ratings).toHaveLength(198);
    expect(ratings[0]).toEqual({ line: 0, source: 1, target: 2, rating: 10, time: 1577840400 });
    expect(ratings[16]).toEqual({ line: 16, source: 6, target: 2, rating: 3, time: 1577934000 });
    expect(ratings[196].time).toBe(1582200120.5);
    expect(kept.users).toHaveLength(52);
  });

  it("finds the 40 label-defining ratings (the core's ±10 of labelled users) and keeps the numbering without them", () => {
    expect(e.labelDefining).toEqual(range(28, 67));
    expect(removed.ratings.map((r) => r.line)).toEqual([...range(0, 27), ...range(68, 197)]);
  });

  it("ends each labelled user where the hand computation does, kept", () => {
    // Benign: 2 and 3 at +10, 6..9 at +4, all c = 1: S = 500 + 500·6/8 = 875, signals 725, composite 740.
    for (const id of range(101, 109)) expect(face(kept, id)).toEqual([740, 875, "clear"]);
    // 110 also has 307's −2; by the end 307 holds c = 0.05 (age 9/30, one trusted owner, one disagreement).
    expect(face(kept, 110)).toEqual([738, 870, "clear"]);
    expect(face(kept, 111)).toEqual([500, 500, "review"]);
    // 2, 3 at −10 and 6, 7, 8 at −4: S = 500 − 500·5/7 = 143, signals 271, composite 258.
    for (const id of range(201, 205)) expect(face(kept, id)).toEqual([258, 143, "caution"]);
    // 2, 3 at −10, 6 at −4, a new account's +2 at c = 0: S = 200, signals 260, composite 254.
    for (const id of range(206, 209)) expect(face(kept, id)).toEqual([254, 200, "caution"]);
    // 2, 3 at −10 and two new accounts' praise (c = 0): S = 250.
    expect(face(kept, 210)).toEqual([250, 250, "caution"]);
  });

  it("ends each labelled user where the hand computation does, label-defining ratings removed", () => {
    // 6..9 at +4: S = 500 + 500·4/6 = 833, signals 633, composite 653; 307 has no trusted owner here (c = 0).
    for (const id of range(101, 110)) expect(face(removed, id)).toEqual([653, 833, "clear"]);
    for (const id of range(201, 205)) expect(face(removed, id)).toEqual([362, 200, "caution"]);
    // One credible negative (6): S = 333, but no one reporter cautions.
    for (const id of range(206, 209)) expect(face(removed, id)).toEqual([423, 333, "review"]);
    expect(face(removed, 210)).toEqual([500, 500, "review"]);
  });

  it("shows each ratee's face just before a rating", () => {
    expect(before(kept, 16)).toEqual([667, 667, "review"]); // the anchor's +10 at c = 1
    expect(before(kept, 58)).toEqual([333, 333, "review"]); // 2's −10 alone
    expect([68, 69, 70, 71].map((l) => before(kept, l))).toEqual([
      [750, 750, "review"],
      [746, 800, "clear"],
      [743, 833, "clear"],
      [742, 857, "clear"],
    ]);
    expect([68, 69, 70, 71].map((l) => before(removed, l))).toEqual([
      [500, 500, "review"],
      [577, 667, "review"],
      [615, 750, "review"],
      [638, 800, "clear"],
    ]);
    expect(before(removed, 58)).toBeUndefined();
  });

  it("has the user metrics computed by hand", () => {
    expect(kept.metrics.auc).toEqual({ model: 1, meanRating: 1, negativeShare: 1, fairnessGoodness: 1 });
    expect(kept.metrics.fraud).toMatchObject({ n: 10, caution: 10, clear: 0 });
    expect(kept.metrics.benign).toMatchObject({ n: 11, caution: 0, clear: 10 });
    // Removed: fraud 210 (500) ties benign 111 (500): (109 + ½)/110. Mean rating: 210's +4 ties 101..109 and
    // ranks above 110 (2.8) and 111 (0): (99 + 9·½)/110. Share of negatives: (99 + 5)/110.
    expect(removed.metrics.auc.model).toBe(109.5 / 110);
    expect(removed.metrics.auc.meanRating).toBe(103.5 / 110);
    expect(removed.metrics.auc.negativeShare).toBe(104 / 110);
    // Fairness-goodness: g(210) = 0.4 from two raters with nothing else (fairness 1) tops every benign user.
    expect(removed.metrics.auc.fairnessGoodness).toBe(99 / 110);
    // AP: 5 fraud at 362 (precision 1), 4 at 423 (1), then 210 with 111 at 500 (10/11).
    expect(removed.metrics.ap.model).toBeCloseTo(0.5 + 0.4 + 0.1 * (10 / 11), 12);
    expect(removed.metrics.fraud).toMatchObject({ n: 10, caution: 5, clear: 0 });
    expect(removed.metrics.benign).toMatchObject({ n: 11, caution: 0, clear: 10 });
  });

  it("has the rating metrics computed by hand", () => {
    // Kept: 159 ratings whose ratee had one before, 30 negative (the fraud users' and 307's).
    expect(kept.metrics.online).toEqual({ ratings: 159, negatives: 30, auc: { model: 3666 / 3870, meanSoFar: 3769.5 / 3870, negativeShareSoFar: 3730 / 3870 } });
    expect(kept.metrics.received).toEqual({
      caution: { ratings: 25, negatives: 19, rate: 19 / 25 },
      review: { ratings: 123, negatives: 20, rate: 20 / 123 },
      clear: { ratings: 50, negatives: 1, rate: 1 / 50 },
      all: { ratings: 198, negatives: 40, rate: 40 / 198 },
    });
    expect(removed.metrics.online).toMatchObject({ ratings: 119, negatives: 11, auc: { model: 1086 / 1188 } });
    expect(removed.metrics.received).toEqual({
      caution: { ratings: 5, negatives: 5, rate: 1 },
      review: { ratings: 123, negatives: 14, rate: 14 / 123 },
      clear: { ratings: 30, negatives: 1, rate: 1 / 30 },
      all: { ratings: 158, negatives: 20, rate: 20 / 158 },
    });
  });
});

describe("the input rules", () => {
  const fails = (text: string, file = "network") => {
    try {
      parseNetwork(text, file);
    } catch (err) {
      expect(err).toBeInstanceOf(InputError);
      return (err as Error).message;
    }
    throw new Error("parsed");
  };

  it("names the malformed line, counting every line of the file", () => {
    expect(fails("source,target,rating,time\n1,2,3,100\n\n1,2,x,100\n")).toBe('network: line 4: rating is not an integer: "x"');
    expect(fails("1,2,3,100\r\n1,2,3\r\n")).toBe("network: line 2: expected 4 fields (source,target,rating,time), found 3");
    expect(fails("1,2,11,100\n")).toBe("network: line 1: rating is outside −10..10: 11");
    expect(fails("1,2,3,1e9\n")).toBe('network: line 1: time is not a number of seconds: "1e9"');
    expect(fails("1,2,3,100\nsource,target,rating,time\n")).toBe('network: line 2: source is not an integer: "source"');
    expect(() => parseLabels("1,+1\n2,0\n", "labels")).toThrow("labels: line 2: label is not 1, +1 or -1");
    expect(() => parseLabels("1,+1\n1,-1\n", "labels")).toThrow("labels: line 2: user 1 is labelled twice");
  });

  it("reads a file without a header, with a repeated pair, and decimal seconds", () => {
    const r = parseNetwork("\n1,2,3,100.25\n1,2,-3,200\n");
    expect(r.map((x) => [x.line, x.rating, x.time])).toEqual([
      [0, 3, 100.25],
      [1, -3, 200],
    ]);
    expect(labelDefining(r, new Map([[2, -1]]), 1)).toEqual([]);
  });
});

describe("a reduced evaluate: the first 10,000 ratings of Bitcoin OTC (to May 2012)", () => {
  it("decides: ratings received in caution are mostly negative, clear ones rarely, benign traders clear", () => {
    const ratings = parseNetwork(otcNetwork).slice(0, 10_000);
    const m = evaluate(ratings, parseLabels(otcLabels), { anchor: 1 }).protocols.kept.metrics;
    const byRecommendation = m.received;
    expect(byRecommendation.caution.ratings).toBeGreaterThanOrEqual(30);
    expect(byRecommendation.clear.ratings).toBeGreaterThanOrEqual(4000);
    expect(byRecommendation.caution.rate).toBeGreaterThanOrEqual(0.85);
    expect(byRecommendation.clear.rate).toBeLessThanOrEqual(byRecommendation.all.rate);
    expect(m.benign.clear).toBeGreaterThanOrEqual(80);
    expect(m.benign.caution).toBeLessThanOrEqual(3);
    expect(m.online.auc.model).toBeGreaterThanOrEqual(m.online.auc.meanSoFar - 0.01);
  }, 300_000);
});
