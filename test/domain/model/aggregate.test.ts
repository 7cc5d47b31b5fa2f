// Version 4's aggregates: the agent row is a bounded, exact summary of its pairs. Random histories of
// every entry kind give the same row incrementally as rebuilt from the pairs, and the same state
// replayed from the entries; the row stays under 16 KiB whatever the number of reporters.

import { describe, expect, it } from "vitest";
import {
  aggregatesOf,
  applyEvent,
  emptyAgent,
  replay,
  scoreOf,
  type HistoryEvent,
  type Outcome,
} from "../../../src/domain/model/index";
import { DAY, HOUR, T0 } from "./helpers";

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OUTCOMES: Outcome[] = ["success", "success", "success", "partial", "failure", "timeout", "error"];

function history(seed: number, length: number): HistoryEvent[] {
  const r = random(seed);
  const events: HistoryEvent[] = [];
  let at = T0;
  for (let i = 0; i < length; i++) {
    at += Math.floor(r() * (r() < 0.1 ? 40 * DAY : 10 * HOUR));
    const u = r();
    const reporter = String(1 + Math.floor(r() * 12));
    if (u < 0.8) {
      const signal = Math.floor(r() * 1001);
      events.push({ kind: "report", reporter, at, outcome: OUTCOMES[Math.floor(r() * OUTCOMES.length)], signals: r() < 0.7 ? { reliability: signal, security: 1000 - signal } : {}, receipt: r() < 0.5 });
    } else if (u < 0.95) {
      events.push({ kind: "credibility", at, values: { [reporter]: Math.floor(r() * 21) / 20, [String(1 + Math.floor(r() * 12))]: Math.floor(r() * 21) / 20 } });
    } else {
      events.push({ kind: "config", at, changes: [r() < 0.5 ? "provider_change" : "tools_change"] });
    }
  }
  return events;
}

describe("the aggregates", () => {
  it("are what the pairs make, after any history (integer sums: exact in any order)", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const state = emptyAgent(T0);
      for (const e of history(seed, 300)) {
        applyEvent(state, e, "1");
        expect(aggregatesOf(state.model, state.pairs.values())).toEqual(state.model);
      }
    }
  });

  it("replay to the same state and scores as the live fold, through JSON", () => {
    for (let seed = 100; seed < 110; seed++) {
      const events = history(seed, 400);
      const live = emptyAgent(T0);
      for (const e of events) {
        applyEvent(live, e, "1");
        live.model = JSON.parse(JSON.stringify(live.model));
      }
      const replayed = replay(events, "1", T0);
      expect(replayed.model).toEqual(live.model);
      const at = events[events.length - 1].at + DAY;
      const ctx = { now: at, owned: true, identityLevel: 1, operatorScore: 500 };
      expect(scoreOf(replayed.model, ctx)).toEqual(scoreOf(live.model, ctx));
    }
  });

  it("stay under 16 KiB with 20,000 reporters failing across every window bucket", () => {
    const state = emptyAgent(T0);
    const values: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) values[String(i + 2)] = ((i % 20) + 1) / 20;
    applyEvent(state, { kind: "credibility", at: T0, values }, "1");
    // Every hour of 30 days a failure at every level, the last 48 hours' at every level too.
    let reporter = 2;
    for (let h = 0; h < 30 * 24 && reporter < 20_002; h++) {
      for (let k = 0; k < 21 && reporter < 20_002; k++) {
        applyEvent(state, { kind: "report", reporter: String(reporter++), at: T0 + h * HOUR, outcome: "failure", signals: {}, receipt: true }, "1");
      }
    }
    const bytes = new TextEncoder().encode(JSON.stringify(state.model)).length;
    expect(state.pairs.size).toBe(20_000);
    expect(bytes).toBeLessThan(16 * 1024);
  });
});
