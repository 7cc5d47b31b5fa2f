// The agent's aggregates (its row): integer sums over its pairs, so that every read is a function of
// the row and the time alone, and a report, a removal or a credibility change touches one pair's
// contribution. The row stays bounded whatever the number of reporters: the recent windows are
// hour and day buckets, the tenure rule's newcomers are day buckets, and the one maximum a rule needs
// (the most credible negative or failing reporter) is read from histograms of credibility levels.

import { MODEL_V4, LEVELS, OWNER_LEVEL } from "./constants";
import type { PairState, Placement } from "./votes";
import { DIMENSIONS, dayOf, hourOf, mapDims, type Dimension } from "./vocabulary";

/** Per dimension: w = Σ level, n = Σ level × (2v − 1000), over the pairs that observed it. */
export interface DimSum {
  w: number;
  n: number;
}

/** What a set of pairs adds to the scores and masses (all integers, in levels). */
export interface Mass {
  dims: Record<Dimension, DimSum>;
  /** Σ level of non-owner pairs with a stability vote above 500. */
  positive: number;
  /** Σ level of non-owner pairs with a stability vote. */
  credible: number;
  /** Those pairs by level (the most credible one is left out where no one reporter may decide). */
  levels: Histogram;
}

/** Counts by credibility level (index 0..20); empty when nothing is counted. */
export type Histogram = number[];

/** Votes whose last report falls in one UTC hour: their mass, and the failing ones by level. */
export interface HourBucket {
  hour: number;
  voting: number;
  failing: Histogram;
}

/** Failing votes whose last report falls in one UTC day, by level. */
export interface DayBucket {
  day: number;
  failing: Histogram;
}

/** Positive newcomers of a caution episode whose tenure ends on one UTC day (they count from that day). */
export interface PendingBucket {
  day: number;
  mass: Mass;
}

/** The caution episode, as of the agent's last entry. */
export interface Episode {
  /** In caution after the last entry (time alone never lifts a caution). */
  open: boolean;
  /** When the episode began (cautions less than `afterMs` apart are one episode); null: never. */
  since: number | null;
  /** The last entry time at which the agent was in caution. */
  lastAt: number | null;
}

export interface AgentModel {
  version: 4;
  /** The time of the last entry applied (time never runs backwards). */
  at: number;
  reports: number;
  main: Mass;
  /** Non-owner pairs with a stability vote below 500, by level. */
  negative: Histogram;
  /** The last 48 hours' buckets (fast caution, recent failures), oldest first. */
  recent: HourBucket[];
  /** The last 30 days' failing buckets (recent failures), oldest first. */
  failing: DayBucket[];
  /** Positive newcomers awaiting tenure, by the day it ends, earliest first. */
  pending: PendingBucket[];
  episode: Episode;
  lastReportAt: number | null;
  lastConfigChangeAt: number | null;
  /** The credibility snapshot of the last `credibility` entry that named one. */
  snapshot: string | null;
}

export const emptyMass = (): Mass => ({ dims: mapDims(() => ({ w: 0, n: 0 })), positive: 0, credible: 0, levels: [] });

export function emptyModel(createdAt: number): AgentModel {
  if (!Number.isFinite(createdAt)) throw new RangeError(`invalid time: ${createdAt}`);
  return {
    version: 4,
    at: createdAt,
    reports: 0,
    main: emptyMass(),
    negative: [],
    recent: [],
    failing: [],
    pending: [],
    episode: { open: false, since: null, lastAt: null },
    lastReportAt: null,
    lastConfigChangeAt: null,
    snapshot: null,
  };
}

const RECENT_HOURS = MODEL_V4.fastCaution.windowMs / 3_600_000;
const FAILING_DAYS = MODEL_V4.recentFailures.windowMs / 86_400_000;
/** A newcomer's tenure bucket matures on the first UTC day that begins at least `tenureMs` after its first report's day. */
const TENURE_DAYS = MODEL_V4.episode.tenureMs / 86_400_000 + 1;

/** The level a pair weighs with in the dimension sums: the owner's fixed weight, else its credibility. */
export const weightOf = (p: PairState) => (p.owner ? OWNER_LEVEL : p.level);

export function copyMass(m: Mass): Mass {
  return { dims: mapDims((d) => ({ w: m.dims[d].w, n: m.dims[d].n })), positive: m.positive, credible: m.credible, levels: m.levels };
}

/** Adds (sign 1) or takes out (sign −1) one pair's contribution to a mass, in place. */
export function addToMass(m: Mass, p: PairState, sign: 1 | -1): void {
  const w = weightOf(p);
  for (const d of DIMENSIONS) {
    const v = p.votes[d];
    if (v === null) continue;
    m.dims[d].w += sign * w;
    m.dims[d].n += sign * w * (2 * v - 1000);
  }
  const s = p.votes.stability;
  if (p.owner || s === null) return;
  m.credible += sign * p.level;
  if (p.level > 0) m.levels = histogramAdd(m.levels, p.level, sign);
  if (s > 500) m.positive += sign * p.level;
}

export function sumMass(into: Mass, m: Mass): void {
  for (const d of DIMENSIONS) {
    into.dims[d].w += m.dims[d].w;
    into.dims[d].n += m.dims[d].n;
  }
  into.positive += m.positive;
  into.credible += m.credible;
  for (let level = 0; level < m.levels.length; level++) if (m.levels[level] > 0) into.levels = histogramAdd(into.levels, level, 1, m.levels[level]);
}

function histogramAdd(h: Histogram, level: number, sign: 1 | -1, count = 1): Histogram {
  const next = h.length === 0 ? new Array<number>(LEVELS + 1).fill(0) : [...h];
  next[level] += sign * count;
  if (next[level] < 0) throw new Error(`histogram count below zero at level ${level}`);
  return next.every((c) => c === 0) ? [] : next;
}

/** Σ level × count, the count, and the highest level present. */
export function histogramFacts(h: Histogram): { mass: number; count: number; top: number } {
  let mass = 0;
  let count = 0;
  let top = 0;
  for (let level = 0; level < h.length; level++) {
    if (h[level] === 0) continue;
    mass += level * h[level];
    count += h[level];
    top = level;
  }
  return { mass, count, top };
}

/** The episode's tenure rule applies at `t`: in caution after the last entry, or within `afterMs` of the last caution. */
export function tenureActive(e: Episode, t: number): boolean {
  return e.since !== null && (e.open || (e.lastAt !== null && t - e.lastAt <= MODEL_V4.episode.afterMs));
}

/**
 * A positive newcomer of the episode awaiting tenure at `t`: a non-owner pair that first reported
 * at or after the episode began, whose stability vote is above 500, before the first UTC day that
 * begins `tenureMs` after its first report's day, while the tenure rule applies.
 */
export function awaitsTenure(p: PairState, e: Episode, t: number): boolean {
  const s = p.votes.stability;
  if (p.owner || s === null || !(s > 500) || e.since === null || p.firstAt < e.since) return false;
  return tenureActive(e, t) && dayOf(t) - dayOf(p.firstAt) < TENURE_DAYS;
}

/**
 * The aggregates brought to `t` before an entry: window buckets that have left their window are
 * dropped, and the tenure buckets that have matured (or all, once the rule no longer applies) join
 * the main sums. Reads do the same without storing it (./assess).
 */
export function settle(model: AgentModel, t: number): AgentModel {
  const hour = hourOf(t);
  const day = dayOf(t);
  const recent = model.recent.filter((b) => hour - b.hour < RECENT_HOURS);
  const failing = model.failing.filter((b) => day - b.day < FAILING_DAYS);
  const all = !tenureActive(model.episode, t);
  const matured = model.pending.filter((b) => all || b.day <= day);
  let main = model.main;
  if (matured.length > 0) {
    main = copyMass(main);
    for (const b of matured) sumMass(main, b.mass);
  }
  const pending = matured.length > 0 ? model.pending.filter((b) => !(all || b.day <= day)) : model.pending;
  if (recent.length === model.recent.length && failing.length === model.failing.length && matured.length === 0) return model;
  return { ...model, main, recent, failing, pending };
}

const isZeroMass = (m: Mass) => m.positive === 0 && m.credible === 0 && DIMENSIONS.every((d) => m.dims[d].w === 0 && m.dims[d].n === 0);

/** The mass the pair's contribution sits in: its tenure bucket while that still exists, else the main sums. */
function withMassOf(model: AgentModel, pending: number | null, f: (m: Mass) => void, prune = false): AgentModel {
  if (pending !== null) {
    const i = model.pending.findIndex((b) => b.day === pending);
    if (i >= 0) {
      const mass = copyMass(model.pending[i].mass);
      f(mass);
      const list = [...model.pending];
      // A bucket emptied by a removal goes (a rebuild from the pairs would not make it).
      if (prune && isZeroMass(mass)) list.splice(i, 1);
      else list[i] = { day: pending, mass };
      return { ...model, pending: list };
    }
  }
  const main = copyMass(model.main);
  f(main);
  return { ...model, main };
}

function withBucket<B extends { failing: Histogram }>(list: B[], key: (b: B) => number, at: number, make: () => B, f: (b: B) => B, create: boolean): B[] {
  const i = list.findIndex((b) => key(b) === at);
  if (i < 0) {
    if (!create) return list;
    const next = [...list, f(make())];
    next.sort((x, y) => key(x) - key(y));
    return next;
  }
  const next = [...list];
  next[i] = f(list[i]);
  return next;
}

/** Adds or takes out the pair's last report in its hour bucket and, when it fails, its day bucket (those still kept). */
function windowed(model: AgentModel, p: PairState, place: { hour: boolean; day: boolean }, sign: 1 | -1): AgentModel {
  const create = sign === 1;
  let { recent, failing } = model;
  if (place.hour) {
    const hour = hourOf(p.lastAt);
    recent = withBucket(
      recent,
      (b) => b.hour,
      hour,
      () => ({ hour, voting: 0, failing: [] }),
      (b) => ({
        hour: b.hour,
        voting: b.voting + sign * p.level,
        failing: p.failing ? histogramAdd(b.failing, p.level, sign) : b.failing,
      }),
      create,
    ).filter((b) => b.voting !== 0 || b.failing.length > 0);
  }
  if (place.day) {
    const day = dayOf(p.lastAt);
    failing = withBucket(
      failing,
      (b) => b.day,
      day,
      () => ({ day, failing: [] }),
      (b) => ({ day: b.day, failing: histogramAdd(b.failing, p.level, sign) }),
      create,
    ).filter((b) => b.failing.length > 0);
  }
  return { ...model, recent, failing };
}

const isNegative = (p: PairState) => !p.owner && p.votes.stability !== null && p.votes.stability < 500 && p.level > 0;

/** The pair's contribution taken out of the aggregates, where its placement put it. */
export function withoutPair(model: AgentModel, p: PairState): AgentModel {
  if (p.reports === 0) return model;
  let next = withMassOf(model, p.placement.pending, (m) => addToMass(m, p, -1), true);
  if (p.placement.pending === null && isNegative(p)) next = { ...next, negative: histogramAdd(next.negative, p.level, -1) };
  return windowed(next, p, p.placement, -1);
}

/**
 * The pair's contribution added to the aggregates at `t` (settled to `t`), and the pair with its
 * placement: a tenure bucket while it awaits tenure, else the main sums (and the negative histogram
 * when its stability vote is below 500); and, when it counts and has credibility, its last report in
 * the recent windows it is still inside (the hour bucket within 48 hours, the day bucket of a failing
 * report within 30 days).
 */
export function withPair(model: AgentModel, p: PairState, t: number): { model: AgentModel; pair: PairState } {
  if (p.reports === 0) return { model, pair: { ...p, placement: { pending: null, hour: false, day: false } } };
  // A pair without credibility counts for nothing anywhere: it needs no tenure bucket.
  const waiting = p.level > 0 && awaitsTenure(p, model.episode, t);
  const votes = !waiting && !p.owner && p.level > 0 && !(p.lastAt > t);
  const placement: Placement = {
    pending: waiting ? dayOf(p.firstAt) + TENURE_DAYS : null,
    hour: votes && hourOf(t) - hourOf(p.lastAt) < RECENT_HOURS,
    day: votes && p.failing && dayOf(t) - dayOf(p.lastAt) < FAILING_DAYS,
  };
  const pair = { ...p, placement };
  let next: AgentModel;
  if (placement.pending !== null) {
    const day = placement.pending;
    const base = model.pending.some((b) => b.day === day)
      ? model
      : { ...model, pending: [...model.pending, { day, mass: emptyMass() }].sort((x, y) => x.day - y.day) };
    next = withMassOf(base, day, (m) => addToMass(m, pair, 1));
  } else {
    next = withMassOf(model, null, (m) => addToMass(m, pair, 1));
    if (isNegative(pair)) next = { ...next, negative: histogramAdd(next.negative, pair.level, 1) };
  }
  return { model: windowed(next, pair, placement, 1), pair };
}

/**
 * The aggregates rebuilt from the pairs' placements (the row made again from the `pairs` rows, as a
 * repair or a migration would): equal to the incremental ones, sums being of integers. `model`
 * gives the fields that are not sums (episode, times, counts).
 */
export function aggregatesOf(model: AgentModel, pairs: Iterable<PairState>): AgentModel {
  let next: AgentModel = { ...model, main: emptyMass(), negative: [], recent: [], failing: [], pending: [] };
  const all = [...pairs].sort((x, y) => (x.reporter < y.reporter ? -1 : x.reporter > y.reporter ? 1 : 0));
  const days = new Set<number>();
  for (const p of all) if (p.reports > 0 && p.placement.pending !== null) days.add(p.placement.pending);
  next = { ...next, pending: [...days].sort((x, y) => x - y).map((day) => ({ day, mass: emptyMass() })) };
  for (const p of all) {
    if (p.reports === 0) continue;
    next = withMassOf(next, p.placement.pending, (m) => addToMass(m, p, 1));
    if (p.placement.pending === null && isNegative(p)) next = { ...next, negative: histogramAdd(next.negative, p.level, 1) };
    next = windowed(next, p, p.placement, 1);
  }
  const settled = settle({ ...next, episode: model.episode }, model.at);
  return { ...settled, pending: settled.pending.filter((b) => !isZeroMass(b.mass)) };
}
