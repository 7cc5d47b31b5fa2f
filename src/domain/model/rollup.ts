// The daily rollups an agent's object writes for the credibility job (R1): what it keeps per reporter
// to write them (the reporter's first report and distinct days on the agent, for R2's "established",
// and the row of its last day), and the same rows made from a history at once (the rollup migration
// and a rebuilt object agree with the rows written report by report).

import { DAY_MS } from "./constants";
import { DIMENSIONS, type Dimension } from "./vocabulary";
import { addToRollup, type RollupReport, type RollupRow } from "./standing";
import { isEstablished } from "./weighing";

/** One reporter on one agent, as the rollups need it. */
export interface RollupTrack {
  firstAt: number;
  /** Distinct UTC days it reported on, and the last of them. */
  days: number;
  lastDay: number;
  /** Its row of `lastDay`. */
  row: RollupRow;
}

export type TrackedReport = Omit<RollupReport, "established">;

/** The track and the day's row after one more report (`track` null for the reporter's first). */
export function trackReport(track: RollupTrack | null, report: TrackedReport): RollupTrack {
  // A report stamped a little before the tracked day (clocks of different isolates near midnight)
  // joins that day's row, as the model counts its days (a new day only when later than the last).
  const sameDay = track !== null && Math.floor(report.at / DAY_MS) <= track.lastDay;
  const day = sameDay ? track.lastDay : Math.floor(report.at / DAY_MS);
  const firstAt = Math.min(track?.firstAt ?? report.at, report.at);
  const days = (track?.days ?? 0) + (sameDay ? 0 : 1);
  const established = isEstablished({ days, firstAt }, report.at);
  const row = addToRollup(sameDay ? track.row : null, { ...report, established });
  return { firstAt, days, lastDay: day, row };
}

/**
 * Every rollup row of reports (in time order), from `fromDay` on, and each reporter's track at the
 * end, starting from `tracks` (none: a whole history): the rows written one report at a time.
 */
export function rollupsOf(
  reports: readonly TrackedReport[],
  fromDay = -Infinity,
  start: ReadonlyMap<string, RollupTrack> = new Map(),
): { rows: RollupRow[]; tracks: Map<string, RollupTrack> } {
  const tracks = new Map(start);
  const rows = new Map<string, RollupRow>();
  for (const report of reports) {
    const track = trackReport(tracks.get(report.reporter) ?? null, report);
    tracks.set(report.reporter, track);
    if (track.lastDay >= fromDay) rows.set(`${track.lastDay}\n${report.reporter}`, track.row);
  }
  return { rows: [...rows.values()], tracks };
}

/** A row as a staged page keeps it: a tuple, about a third of the object's JSON. */
export type PackedRollup = [day: number, sid: string, reporter: string, owner: string | null, reports: number, receipted: number, established: 0 | 1, net: number[], receiptedNet: number[]];

export const packRollup = (r: RollupRow): PackedRollup => [
  r.day,
  r.agent,
  r.reporter,
  r.owner,
  r.reports,
  r.receipted,
  r.established ? 1 : 0,
  DIMENSIONS.map((d) => r.net[d]),
  DIMENSIONS.map((d) => r.receiptedNet[d]),
];

const netOf = (values: number[]) => Object.fromEntries(DIMENSIONS.map((d, i) => [d, values[i] ?? 0])) as Record<Dimension, number>;

export const unpackRollup = ([day, agent, reporter, owner, reports, receipted, established, net, receiptedNet]: PackedRollup): RollupRow => ({
  reporter,
  agent,
  owner,
  day,
  reports,
  receipted,
  established: established === 1,
  net: netOf(net),
  receiptedNet: netOf(receiptedNet),
});


/**
 * Rows as `computeStanding` reads them, and small: it reads a row's nets only through their sum over
 * the dimensions, so each net is kept as that sum (on reliability: the same additions in the same
 * order, so every sum is the same double) beside one shared zero record, and each id string is kept
 * once. The credibility job holds a run's rows this way: about 30% less heap than the full rows
 * (docs/performance.md, "The credibility job").
 */
export function leanRollups(): { add(packed: PackedRollup): void; rows: RollupRow[] } {
  const strings = new Map<string, string>();
  const once = (s: string) => {
    const known = strings.get(s);
    if (known !== undefined) return known;
    strings.set(s, s);
    return s;
  };
  const zero = Object.freeze(Object.fromEntries(DIMENSIONS.map((d) => [d, 0]))) as Record<Dimension, number>;
  const summed = (values: number[]) => {
    let sum = 0;
    for (const v of values) sum += v;
    return sum === 0 ? zero : { ...zero, reliability: sum };
  };
  const rows: RollupRow[] = [];
  return {
    rows,
    add([day, agent, reporter, owner, reports, receipted, established, net, receiptedNet]) {
      rows.push({
        reporter: once(reporter),
        agent: once(agent),
        owner: owner === null ? null : once(owner),
        day,
        reports,
        receipted,
        established: established === 1,
        net: summed(net),
        receiptedNet: summed(receiptedNet),
      });
    },
  };
}
