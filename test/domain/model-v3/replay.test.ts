// A score is a pure function of the entries and the time: replay equals the live fold bit for bit,
// the state survives JSON, and a configuration change never raises anything (random histories).

import { describe, expect, it } from "vitest";
import {
  CHANGE_TYPES,
  DIMENSIONS,
  OUTCOMES,
  applyConfigChange,
  applyCredibility,
  applyInheritance,
  applyReport,
  applySwitch,
  emptyState,
  inheritanceFrom,
  replay,
  scoreOf,
  type AgentState,
  type ChangeType,
  type HistoryEvent,
  type SignalDimension,
} from "../../../src/domain/model/index";
import { randomFor, type Random } from "../../../scripts/simulation/index";
import { DAY, HOUR, OWNER, T0, ctx } from "./helpers";

const REPORTERS = ["1", "2", "3", "4", "5", "6", "7", "12", "30"];

/** A random history: reports (the owner among the reporters), changes, credibility entries, an inheritance, a switch. */
function history(random: Random, length: number, source: AgentState | null): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  let at = T0;
  for (let i = 0; i < length; i++) {
    at += Math.floor(random() * (random() < 0.1 ? 40 * DAY : 8 * HOUR));
    const u = random();
    if (u < 0.05) {
      const changes = CHANGE_TYPES.filter(() => random() < 0.4) as ChangeType[];
      events.push({ kind: "config", at, changes });
    } else if (u < 0.1) {
      const values: Record<string, number> = {};
      for (const r of REPORTERS) if (random() < 0.3) values[r] = Math.round(random() * 100) / 100;
      events.push({ kind: "credibility", at, values, bootstrap: random() < 0.2 });
    } else if (u < 0.11 && source) {
      const entry = inheritanceFrom(source, at);
      if (entry) events.push({ kind: "inheritance", ...entry });
    } else if (u < 0.115) {
      events.push({ kind: "switch", at });
    } else {
      const reporter = REPORTERS[Math.floor(random() * REPORTERS.length)];
      const good = random() < 0.6;
      const signals: Partial<Record<SignalDimension, number>> = {};
      for (const d of ["reliability", "quality", "financial", "security"] as const) {
        if (random() < 0.6) signals[d] = Math.round((good ? 600 : 0) + random() * 400);
      }
      events.push({
        kind: "report",
        reporter,
        at,
        outcome: good ? "success" : OUTCOMES[Math.floor(random() * OUTCOMES.length)],
        signals,
        base: random() < 0.8 ? 1 : 0.75,
        evidence: random() < 0.5 ? 1.5 : 1,
        penalty: random() < 0.1 ? 0.5 : 1,
      });
    }
  }
  return events;
}

/** The live fold: each entry applied as the object applies it, k counted per reporter. */
function live(events: HistoryEvent[], owner: string | null): AgentState {
  let state = emptyState(T0);
  const recent = new Map<string, number[]>();
  for (const e of events) {
    if (e.kind === "report") {
      const k = (recent.get(e.reporter) ?? []).filter((t) => t > e.at - DAY).length;
      state = applyReport(state, e, owner, k).state;
      recent.set(e.reporter, [...(recent.get(e.reporter) ?? []), e.at]);
    } else if (e.kind === "config") state = applyConfigChange(state, e.changes, e.at);
    else if (e.kind === "credibility") state = applyCredibility(state, e);
    else if (e.kind === "inheritance") state = applyInheritance(state, e);
    else state = applySwitch(state, e.at);
  }
  return state;
}

describe("replay", () => {
  const source = live(history(randomFor("source"), 300, null), OWNER);

  it("equals the live fold bit for bit, and the state survives JSON (random histories of every entry kind)", () => {
    for (let seed = 0; seed < 40; seed++) {
      const events = history(randomFor("replay", seed), 200, source);
      const a = live(events, OWNER);
      const b = replay(events, OWNER, T0);
      expect(JSON.stringify(b)).toBe(JSON.stringify(a));
      const parsed = JSON.parse(JSON.stringify(a)) as AgentState;
      const end = events[events.length - 1].at + 3 * DAY;
      expect(scoreOf(parsed, ctx(end))).toEqual(scoreOf(a, ctx(end)));
    }
  });

  it("rebuilds the caution episode from the entries alone", () => {
    let episodes = 0;
    for (let seed = 0; seed < 40; seed++) {
      const events = history(randomFor("episode", seed), 200, source);
      const b = replay(events, OWNER, T0);
      expect(b.episode).toEqual(live(events, OWNER).episode);
      if (b.episode.since !== null) episodes++;
    }
    expect(episodes).toBeGreaterThan(5); // the histories do reach caution
  });

  it("with a new owner re-weights the claimer's reports (owner base and cap)", () => {
    const events = history(randomFor("claim"), 200, null);
    const before = replay(events, null, T0);
    const after = replay(events, "3", T0);
    expect(before.reporters["3"].owner).toBe(false);
    expect(after.reporters["3"].owner).toBe(true);
    for (const d of DIMENSIONS) expect(after.reporters["3"].seen[d].a + after.reporters["3"].seen[d].b).toBeLessThanOrEqual(2.5 + 1e-12);
  });
});

describe("a configuration change (R3)", () => {
  it("never raises the composite or a dimension, never ends a caution, never makes clear (random states, every change)", () => {
    let cautions = 0;
    let checked = 0;
    for (let seed = 0; seed < 60; seed++) {
      const random = randomFor("config", seed);
      const events = history(random, 150, null);
      const state = live(events, OWNER);
      const at = events[events.length - 1].at + Math.floor(random() * 3 * DAY);
      for (const changes of [...CHANGE_TYPES.map((c) => [c]), [...CHANGE_TYPES]] as ChangeType[][]) {
        const before = scoreOf(state, ctx(at, { identityLevel: 2 }));
        const after = scoreOf(applyConfigChange(state, changes, at), ctx(at, { identityLevel: 2 }));
        expect(after.composite).toBeLessThanOrEqual(before.composite);
        for (const d of DIMENSIONS) expect(after.dimensions[d]).toBeLessThanOrEqual(before.dimensions[d]);
        if (before.recommendation === "caution") expect(after.recommendation).toBe("caution");
        if (after.recommendation === "clear") expect(before.recommendation).toBe("clear");
        if (before.recommendation === "caution") cautions++;
        checked++;
      }
    }
    expect(checked).toBe(360);
    expect(cautions).toBeGreaterThan(10);
  });

  it("stays true after four flips in a row, each against the state before it", () => {
    for (let seed = 0; seed < 20; seed++) {
      const events = history(randomFor("flips", seed), 150, null);
      let state = live(events, OWNER);
      let at = events[events.length - 1].at;
      for (let f = 0; f < 4; f++) {
        at += HOUR;
        const before = scoreOf(state, ctx(at));
        state = applyConfigChange(state, ["provider_change"], at);
        const after = scoreOf(state, ctx(at));
        expect(after.composite).toBeLessThanOrEqual(before.composite);
        if (before.recommendation === "caution") expect(after.recommendation).toBe("caution");
      }
    }
  });
});
