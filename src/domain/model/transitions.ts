// The entries the agent's object applies, one transition each, with the caution episode brought up
// to date: a score is a pure function of the entries and the time because the episode changes only
// at entries.
//
// At an entry at time t the verdict is taken before it (the rules at t on the aggregates settled to
// t, or the caution the last entry left: time alone never lifts a caution) and after it: a report
// ends a caution only when the rules no longer hold and it is a success from a reporter that counts
// (credibility, not awaiting tenure, not the owner): reports from muted accounts, newcomers and
// failures never do. A credibility entry leaves the verdict to the rules; a configuration change and
// an inheritance never end a caution, and an inheritance from a caution agent starts one.

import type { ChangeType } from "../configuration";
import { CHANGE_TYPES } from "../configuration";
import { MODEL_V4 } from "./constants";
import { settle, withPair, withoutPair, type AgentModel, type Episode } from "./aggregate";
import { assess } from "./assess";
import { decayVotes, keptFraction, levelOf, observe, stubPair, type PairState, type ReportInput } from "./votes";
import { DIMENSIONS, idOrder, requireTime, type Dimension } from "./vocabulary";

/** A `credibility` entry: the c in force on this agent from `at` for each reporter it names (multiples of 0.05). */
export interface CredibilityInput {
  at: number;
  values: Record<string, number>;
  /** The job's snapshot the values come from. */
  snapshot?: string;
}

/** One inherited pair (whitewashing): its votes below 500, its credibility in force and times. */
export interface InheritedPair {
  votes: Partial<Record<Dimension, number>>;
  level: number;
  reports: number;
  firstAt: number;
  lastAt: number;
  failing: boolean;
}

/** An `inheritance` entry: the negative pairs a new agent takes over from the caution agent it repeats. */
export interface InheritanceInput {
  at: number;
  reporters: Record<string, InheritedPair>;
  /** The source was in caution (or suspended): the new agent is in caution from this entry. */
  caution: boolean;
}

/** The agent's pairs the object loaded for an entry, by reporter key. */
export type Pairs = ReadonlyMap<string, PairState>;

/** The episode after a verdict at t: a caution within `afterMs` of the last one continues its episode. */
export function nextEpisode(e: Episode, caution: boolean, t: number): Episode {
  if (!caution) return { open: false, since: e.since, lastAt: e.lastAt };
  const continues = e.since !== null && (e.open || (e.lastAt !== null && t - e.lastAt <= MODEL_V4.episode.afterMs));
  return { open: true, since: continues ? e.since : t, lastAt: t };
}

type Kind = "report" | "config" | "credibility" | "inheritance";

/** The verdict before the entry, the entry applied by `apply`, the verdict after it (this module's header). */
function step<T>(
  model: AgentModel,
  at: number,
  kind: Kind,
  apply: (m: AgentModel, t: number) => { model: AgentModel; out: T; lifts?: boolean },
  starts = false,
): { model: AgentModel; out: T } {
  requireTime("entry time", at);
  // Time never runs backwards: an entry older than the aggregates is judged at their time.
  const t = Math.max(at, model.at);
  const settled = settle(model, t);
  const before = assess(settled, t).caution || settled.episode.open;
  const episode = nextEpisode(settled.episode, before, t);
  const applied = apply({ ...settled, at: t, episode }, t);
  const rules = assess(applied.model, t).caution;
  const caution = kind === "credibility" ? rules : kind === "report" ? rules || (before && !applied.lifts) : rules || before || starts;
  return { model: { ...applied.model, episode: nextEpisode(episode, caution, t) }, out: applied.out };
}

/** Takes the pair out of the aggregates, changes it, and puts it back where it now belongs at t. */
function replacePair(model: AgentModel, before: PairState | null, after: PairState, t: number): { model: AgentModel; pair: PairState } {
  return withPair(before ? withoutPair(model, before) : model, after, t);
}

/**
 * Applies one report. `pair`: the reporter's pair on the agent (null: its first report). `ownerKey`:
 * the agent's owner now (its vote weighs `ownerCredibility` and enters no mass).
 */
export function applyReport(model: AgentModel, pair: PairState | null, input: ReportInput, ownerKey: string | null): { model: AgentModel; pair: PairState } {
  if (pair && pair.reporter !== input.reporter) throw new RangeError(`the pair of ${pair.reporter} given for a report of ${input.reporter}`);
  const r = step(model, input.at, "report", (m, t) => {
    const observed = observe(pair, input, ownerKey !== null && input.reporter === ownerKey);
    const lastReportAt = m.lastReportAt === null ? input.at : Math.max(m.lastReportAt, input.at);
    const placed = replacePair({ ...m, reports: m.reports + 1, lastReportAt }, pair, observed, t);
    const p = placed.pair;
    const lifts = input.outcome === "success" && !p.owner && p.level > 0 && p.placement.pending === null;
    return { model: placed.model, out: p, lifts };
  });
  return { model: r.model, pair: r.out };
}

/**
 * Applies a `credibility` entry: each named reporter's pair weighs its new c from here on (a reporter
 * not yet on the agent gets a pair holding it, for its first report). Returns the changed pairs.
 */
export function applyCredibility(model: AgentModel, pairs: Pairs, input: CredibilityInput): { model: AgentModel; pairs: PairState[] } {
  const r = step(model, input.at, "credibility", (m, t) => {
    let next = m;
    const changed: PairState[] = [];
    for (const reporter of Object.keys(input.values).sort(idOrder)) {
      const level = levelOf(input.values[reporter]);
      const before = pairs.get(reporter) ?? null;
      if (before && before.level === level) continue;
      const placed = replacePair(next, before, before ? { ...before, level } : stubPair(reporter, level, input.at), t);
      next = placed.model;
      changed.push(placed.pair);
    }
    return { model: input.snapshot === undefined ? next : { ...next, snapshot: input.snapshot }, out: changed };
  });
  return { model: r.model, pairs: r.out };
}

/**
 * Applies a configuration change: on every dimension whose score is above 500, every vote above 500
 * keeps the changes' fraction of its distance from 500 (rounded toward 500). Votes at or below 500
 * stay: what was earned decays, complaints do not, so no score rises and no caution ends. `pairs`:
 * all of the agent's pairs. Returns the changed ones.
 */
export function applyConfigChange(model: AgentModel, pairs: Pairs, changes: readonly ChangeType[], at: number): { model: AgentModel; pairs: PairState[] } {
  for (const c of changes) if (!(CHANGE_TYPES as readonly string[]).includes(c)) throw new RangeError(`unknown change: ${String(c)}`);
  const r = step(model, at, "config", (m, t) => {
    const scores = assess(m, t).dimensions;
    const kept: Partial<Record<Dimension, number>> = {};
    for (const d of DIMENSIONS) if (scores[d] > 500 && changes.length > 0) kept[d] = keptFraction(changes, d);
    let next = m;
    const changed: PairState[] = [];
    for (const reporter of [...pairs.keys()].sort(idOrder)) {
      const before = pairs.get(reporter)!;
      const after = decayVotes(before, kept);
      if (after === before) continue;
      const placed = replacePair(next, before, after, t);
      next = placed.model;
      changed.push(placed.pair);
    }
    return { model: { ...next, lastConfigChangeAt: t }, out: changed };
  });
  return { model: r.model, pairs: r.out };
}

/**
 * Applies an `inheritance` entry: each inherited pair joins the new agent (a reporter already there
 * keeps, per dimension, the lower of its vote and the inherited one), and the agent starts in
 * caution when the source was. Returns the changed pairs.
 */
export function applyInheritance(model: AgentModel, pairs: Pairs, input: InheritanceInput): { model: AgentModel; pairs: PairState[] } {
  const r = step(
    model,
    input.at,
    "inheritance",
    (m, t) => {
      let next = m;
      const changed: PairState[] = [];
      for (const reporter of Object.keys(input.reporters).sort(idOrder)) {
        const h = input.reporters[reporter];
        const before = pairs.get(reporter) ?? null;
        if (before?.owner) continue;
        const base = before && before.reports > 0 ? before : { ...stubPair(reporter, before?.level ?? h.level, h.firstAt), reports: 0 };
        const votes = { ...base.votes };
        for (const d of DIMENSIONS) {
          const v = h.votes[d];
          if (v === undefined) continue;
          votes[d] = votes[d] === null ? v : Math.min(votes[d]!, v);
        }
        const after: PairState = {
          ...base,
          votes,
          reports: base.reports + h.reports,
          firstAt: base.reports > 0 ? Math.min(base.firstAt, h.firstAt) : h.firstAt,
          lastAt: base.reports > 0 ? Math.max(base.lastAt, h.lastAt) : h.lastAt,
          failing: base.reports > 0 && base.lastAt >= h.lastAt ? base.failing : h.failing,
        };
        const placed = replacePair(next, before, after, t);
        next = placed.model;
        changed.push(placed.pair);
      }
      return { model: next, out: changed };
    },
    input.caution,
  );
  return { model: r.model, pairs: r.out };
}
