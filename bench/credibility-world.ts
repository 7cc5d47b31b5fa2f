// A synthetic economy's daily rollups, for the credibility job's benchmark (scripts/bench-credibility.ts
// and test/credibility-bench-worker.ts): `reporters` operators, each dealing with `deals` agents of
// `owners` owners (50 agents each) and reporting on each on a day with probability `dayShare`, over
// the 180 days before `today`; half their rows receipted. Anchors are the first 20 reporters, who deal
// with the agents of every owner so that vouching can start. Seeded: the same size gives the same rows.
import { DIMENSIONS, type RollupRow } from "../src/domain/model";

export interface WorldSize {
  reporters: number;
  owners: number;
  deals: number;
  dayShare: number;
}

export const ANCHORS = 20;
const AGENTS_PER_OWNER = 50;
const WINDOW_DAYS = 180;

/** A small PRNG (mulberry32): the benchmark's worlds are the same every run. */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The size whose world has about `rows` rows (5 deals per reporter on about 1 day in 9). */
export function sizeFor(rows: number): WorldSize {
  const deals = 5;
  const dayShare = 1 / 9;
  const reporters = Math.max(ANCHORS + 10, Math.round(rows / (deals * WINDOW_DAYS * dayShare)));
  return { reporters, owners: Math.max(10, Math.round(reporters / 20)), deals, dayShare };
}

/** The rows of reporter `r` (ids: reporters 1..n, owners 1,000,000 + o, agents "A-<owner>-<k>"). */
export function rowsOfReporter(size: WorldSize, r: number, today: number): RollupRow[] {
  const random = rng(r * 7919 + 17);
  const rows: RollupRow[] = [];
  const deals = r <= ANCHORS ? Math.min(size.owners, size.deals * 4) : size.deals;
  for (let d = 0; d < deals; d++) {
    const owner = r <= ANCHORS ? d % size.owners : Math.floor(random() * size.owners);
    const agent = `A-${owner}-${r <= ANCHORS ? 0 : Math.floor(random() * AGENTS_PER_OWNER)}`;
    const honest = random() < 0.95;
    let established = false;
    for (let day = today - WINDOW_DAYS + 1; day <= today; day++) {
      if (random() >= size.dayShare) continue;
      const reports = 1 + Math.floor(random() * 3);
      const receipted = random() < 0.5 ? reports : 0;
      const sign = honest ? 1 : -1;
      const net = Object.fromEntries(DIMENSIONS.map((dim) => [dim, dim === "financial" || dim === "security" ? 0 : sign * reports * 0.6])) as RollupRow["net"];
      rows.push({ reporter: String(r), agent, owner: String(1_000_000 + owner), day, reports, receipted, established, net, receiptedNet: receipted > 0 ? net : { ...net, reliability: 0, quality: 0, stability: 0 } });
      established = true;
    }
  }
  return rows;
}

export function* worldRows(size: WorldSize, today: number): Generator<RollupRow> {
  for (let r = 1; r <= size.reporters; r++) yield* rowsOfReporter(size, r, today);
}
