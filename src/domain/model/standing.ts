// Standing, vouching and agreement (R1): cross-agent facts, computed by a scheduled job from daily
// rollups, never from raw reports. Pure: the job passes plain arrays of rows and the previous
// snapshot, and gets the next snapshot. Vouchers are read from the previous snapshot (yesterday's
// standing vouches today), so a run is one pass; anchors (operators the admins vouch for) are the
// genesis: without them nobody could ever earn standing, since floor standing never vouches.

import { MODEL, DAY_MS } from "./constants";
import { outcomeValue } from "./evidence";
import { SIGNAL_DIMENSIONS, idOrder, mapDims, type Dimension, type Outcome, type SignalDimension } from "./vocabulary";

/**
 * One reporter's reports on one agent on one UTC day: written by the agent's object at the day's
 * first report and updated with the day's later ones. `net` sums 2x − 1 per observation (stability
 * from the outcome, each signal on its dimension); `receiptedNet` the same over receipted reports.
 */
export interface RollupRow {
  reporter: string;
  agent: string;
  /** The agent's owner when the row was last written (null: unclaimed). */
  owner: string | null;
  day: number;
  reports: number;
  receipted: number;
  /** The reporter was established on the agent (R2) at its last report of the day. */
  established: boolean;
  net: Record<Dimension, number>;
  receiptedNet: Record<Dimension, number>;
}

export interface RollupReport {
  reporter: string;
  agent: string;
  owner: string | null;
  at: number;
  outcome: Outcome;
  signals: Partial<Record<SignalDimension, number>>;
  receipted: boolean;
  established: boolean;
}

/** The row after one more report of its (reporter, agent, day); `row` null for the day's first. */
export function addToRollup(row: RollupRow | null, report: RollupReport): RollupRow {
  const day = Math.floor(report.at / DAY_MS);
  const next: RollupRow = row
    ? { ...row, net: { ...row.net }, receiptedNet: { ...row.receiptedNet } }
    : { reporter: report.reporter, agent: report.agent, owner: report.owner, day, reports: 0, receipted: 0, established: false, net: mapDims(() => 0), receiptedNet: mapDims(() => 0) };
  next.owner = report.owner;
  next.reports++;
  next.established = report.established;
  if (report.receipted) next.receipted++;
  const add = (d: Dimension, x: number) => {
    next.net[d] += 2 * x - 1;
    if (report.receipted) next.receiptedNet[d] += 2 * x - 1;
  };
  add("stability", outcomeValue(report.outcome));
  for (const d of SIGNAL_DIMENSIONS) {
    const s = report.signals[d];
    if (typeof s === "number" && Number.isFinite(s)) add(d, Math.min(1000, Math.max(0, s)) / 1000);
  }
  return next;
}

export interface StandingEntry {
  /** min(1, U / 30) over every owner. */
  standing: number;
  /** min(1, 2E), E = (agree + 1) / (agree + disagree + 2). */
  agreement: number;
  agree: number;
  disagree: number;
  /** Owner → standing without that owner's pairs, where it is lower (the concentration rule). */
  exclusions: Record<string, number>;
  /** The owners its U came from, sorted. */
  sources: string[];
}

export interface StandingSnapshot {
  /** The UTC day of the run. */
  day: number;
  reporters: Record<string, StandingEntry>;
  /** Voucher → vouchee → the day it first vouched for that reporter while it was new to standing. */
  ledger: Record<string, Record<string, number>>;
  /** Σ min(1, standing) over reporters active in 90 days, over their number (the bootstrap latch reads it). */
  earnedShare: number;
}

export interface StandingOptions {
  day: number;
  previous: StandingSnapshot | null;
  /** Operators holding standing 1 by the admins' word, with no sources: the genesis of vouching. */
  anchors?: readonly string[];
  /** Owners affiliated with a reporter besides itself ("r's owners"): their agents never count for it. */
  affiliates?: Record<string, readonly string[]>;
}

const sumNet = (net: Record<Dimension, number>) => net.reliability + net.quality + net.financial + net.security + net.stability;

const sorted = (xs: Iterable<string>) => [...xs].sort(idOrder);

function push<K, T>(m: Map<K, T[]>, k: K, t: T): void {
  const g = m.get(k);
  if (g) g.push(t);
  else m.set(k, [t]);
}

/**
 * The snapshot of `options.day` from the rows of the last 180 days (rows outside are ignored). For
 * each reporter r, U = distinct (owner, day) pairs of its receipted, established rows on agents of
 * owners other than r (and its affiliates), at most 10 per owner, on agents vouched for r: at least 2
 * reporters other than r, with receipted rows on the agent, holding standing in the previous snapshot
 * (or anchors) that does not rest on the agent's owner alone and came from none of r's owners (r, its
 * affiliates and the owners it deals with; the agent's owner aside). A reporter
 * new to standing (below 1 in the previous snapshot) is vouched for only by vouchers that already
 * vouch for it or have admitted fewer than 5 new reporters in the last 30 days (admitting it charges
 * them; vouchers already holding it are preferred, then key order). Agreement: one vote per agent, r's
 * sign on its vote day (its last receipted established row, once 30 days old; while it still reports
 * there, pending for its first 60 days, then its last such row at least 30 days old), against the sign of the other reporters' nets over the 30 days from that day,
 * weighted by their previous standing × agreement; no vote when nobody else reported then.
 */
export function computeStanding(rows: readonly RollupRow[], options: StandingOptions): StandingSnapshot {
  const D = options.day;
  const C = MODEL.credibility;
  const windowDays = C.standingWindowMs / DAY_MS;
  const budgetDays = C.vouchBudget.windowMs / DAY_MS;
  const delayDays = C.agreementDelayMs / DAY_MS;
  const activeDays = MODEL.independentReporterWindowMs / DAY_MS;
  const prev = options.previous?.reporters ?? {};
  const anchors = new Set(options.anchors ?? []);
  const standingOf = (v: string) => (anchors.has(v) ? 1 : (prev[v]?.standing ?? 0));
  const standingWithout = (v: string, owner: string) => (anchors.has(v) ? 1 : (prev[v]?.exclusions[owner] ?? prev[v]?.standing ?? 0));
  const sourcesOf = (v: string) => (anchors.has(v) ? [] : (prev[v]?.sources ?? []));
  const weightOf = (v: string) => (anchors.has(v) ? 1 : (prev[v]?.standing ?? 0) * (prev[v]?.agreement ?? 1));

  const byAgent = new Map<string, RollupRow[]>();
  const byReporter = new Map<string, RollupRow[]>();
  for (const row of rows) {
    if (!(row.day > D - windowDays && row.day <= D) || row.owner === null || row.owner === row.reporter) continue;
    push(byAgent, row.agent, row);
    push(byReporter, row.reporter, row);
  }

  // The ledger of vouches, kept for the standing window, and what each voucher admitted in 30 days.
  const ledger: Record<string, Record<string, number>> = {};
  const admitted = new Map<string, number>();
  for (const v of Object.keys(options.previous?.ledger ?? {}).sort(idOrder)) {
    const vouchees = options.previous!.ledger[v];
    for (const r of Object.keys(vouchees).sort(idOrder)) {
      const d = vouchees[r];
      if (!(d > D - windowDays)) continue;
      (ledger[v] ??= {})[r] = d;
      if (d > D - budgetDays) admitted.set(v, (admitted.get(v) ?? 0) + 1);
    }
  }

  const vouchersOf = new Map<string, string[]>();
  for (const [agent, agentRows] of byAgent) {
    const owner = agentRows[0].owner!;
    const vouchers = new Set<string>();
    // A voucher's standing must not rest on the agent's owner alone.
    for (const row of agentRows) if (row.receipted > 0 && standingOf(row.reporter) > 0 && standingWithout(row.reporter, owner) > 0) vouchers.add(row.reporter);
    vouchersOf.set(agent, sorted(vouchers));
  }

  const reporters: Record<string, StandingEntry> = {};
  const lastDayOf = new Map<string, number>();
  for (const r of sorted(byReporter.keys())) {
    const own = byReporter.get(r)!;
    lastDayOf.set(r, own.reduce((m, row) => Math.max(m, row.day), -Infinity));
    const self = new Set([r, ...(options.affiliates?.[r] ?? [])]);
    const isNew = !anchors.has(r) && standingOf(r) < 1;
    const candidates = new Map<string, RollupRow[]>();
    for (const row of own) if (row.receipted > 0 && row.established && !self.has(row.owner!)) push(candidates, row.agent, row);
    // r's owners: itself, its affiliates and the owners it deals with. A voucher's standing must come
    // from none of them (the vouched agent's own owner aside, whom every voucher deals with), so a
    // ring, whose members deal with the same owners, cannot vouch for itself.
    const owners = new Set(self);
    for (const rows of candidates.values()) owners.add(rows[0].owner!);
    const pairs = new Map<string, Set<number>>();
    for (const agent of sorted(candidates.keys())) {
      const owner = candidates.get(agent)![0].owner!;
      const eligible = (vouchersOf.get(agent) ?? []).filter((v) => !self.has(v) && !sourcesOf(v).some((o) => o !== owner && owners.has(o)));
      let vouchers = eligible;
      if (isNew) {
        const holding = eligible.filter((v) => ledger[v]?.[r] !== undefined);
        const free = eligible.filter((v) => ledger[v]?.[r] === undefined && (admitted.get(v) ?? 0) < C.vouchBudget.reporters);
        vouchers = [...holding, ...free].slice(0, C.vouchers);
      }
      if (vouchers.length < C.vouchers) continue;
      if (isNew) {
        for (const v of vouchers) {
          if (ledger[v]?.[r] !== undefined) continue;
          (ledger[v] ??= {})[r] = D;
          admitted.set(v, (admitted.get(v) ?? 0) + 1);
        }
      }
      for (const row of candidates.get(agent)!) {
        const days = pairs.get(row.owner!) ?? new Set<number>();
        days.add(row.day);
        pairs.set(row.owner!, days);
      }
    }
    const perOwner = sorted(pairs.keys()).map((o) => [o, Math.min(C.perOwnerPairs, pairs.get(o)!.size)] as const);
    const u = perOwner.reduce((s, [, n]) => s + n, 0);
    const standing = Math.min(1, u / C.standingPairs);
    const exclusions: Record<string, number> = {};
    for (const [o, n] of perOwner) {
      const without = Math.min(1, (u - n) / C.standingPairs);
      if (without < standing) exclusions[o] = without;
    }
    reporters[r] = { standing, agreement: 1, agree: 0, disagree: 0, exclusions, sources: perOwner.map(([o]) => o) };
  }

  // Agreement: one vote per (reporter, agent), against the other reporters' weighted nets.
  for (const agent of sorted(byAgent.keys())) {
    const agentRows = byAgent.get(agent)!;
    const total = new Map<number, number>();
    const count = new Map<number, number>();
    const mine = new Map<string, RollupRow[]>();
    for (const row of agentRows) {
      total.set(row.day, (total.get(row.day) ?? 0) + weightOf(row.reporter) * sumNet(row.net));
      count.set(row.day, (count.get(row.day) ?? 0) + 1);
      push(mine, row.reporter, row);
    }
    for (const r of sorted(mine.keys())) {
      const own = mine.get(r)!;
      // The vote is cast on its last receipted established day and judged by the 30 days after it,
      // once they have passed: an early reporter of an exit scam votes with its first failures. A
      // reporter still reporting is pending, unless it has reported there for 60 days: then its
      // last such day at least 30 days old votes (a slanderer cannot stay unjudged by never stopping).
      let first = Infinity;
      let latest = -Infinity;
      let last = -Infinity;
      for (const row of own) {
        if (!(row.receipted > 0 && row.established)) continue;
        first = Math.min(first, row.day);
        latest = Math.max(latest, row.day);
        if (row.day <= D - delayDays) last = Math.max(last, row.day);
      }
      if (last === -Infinity || (latest > D - delayDays && latest - first < 2 * delayDays)) continue;
      let vote = 0;
      let ownNet = 0;
      let ownRows = 0;
      for (const row of own) {
        if (row.receipted > 0 && row.established && row.day === last) vote += sumNet(row.receiptedNet);
        if (row.day >= last && row.day <= last + delayDays) {
          ownNet += sumNet(row.net);
          ownRows++;
        }
      }
      let all = 0;
      let rowsThen = 0;
      for (let d = last; d <= last + delayDays; d++) {
        all += total.get(d) ?? 0;
        rowsThen += count.get(d) ?? 0;
      }
      if (rowsThen === ownRows || Math.sign(vote) === 0) continue;
      const consensus = Math.sign(all - weightOf(r) * ownNet);
      if (consensus === 0) continue;
      const e = reporters[r];
      if (Math.sign(vote) === consensus) e.agree++;
      else e.disagree++;
    }
  }
  for (const a of sorted(anchors)) reporters[a] = { ...(reporters[a] ?? { agreement: 1, agree: 0, disagree: 0 }), standing: 1, exclusions: {}, sources: [] };
  let active = 0;
  let earned = 0;
  for (const r of sorted(Object.keys(reporters))) {
    const e = reporters[r];
    const E = (e.agree + 1) / (e.agree + e.disagree + 2);
    e.agreement = Math.min(1, 2 * E);
    if ((lastDayOf.get(r) ?? -Infinity) > D - activeDays) {
      active++;
      earned += e.standing;
    }
  }
  return { day: D, reporters, ledger, earnedShare: active === 0 ? 0 : earned / active };
}
