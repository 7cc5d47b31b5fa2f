// The world the honest population's standing comes from: a year of receipted dealings between
// operators and the agents of 40 other owners, written as daily rollup rows, with the standing job
// (the model's computeStanding) run over them from genesis: a few anchor operators vouch first, and
// standing spreads from them at the pace the vouching budget allows. Nothing here sets a `c`: every
// credibility the population gets comes from the job's last snapshot.

import {
  addToRollup,
  computeStanding,
  snapshotSource,
  type CredibilitySource,
  type RollupRow,
  type StandingSnapshot,
} from "../../src/domain/model/index";
import { DAY, POPULATION, T0, type Pool, type PoolReporter } from "./population";
import { randomFor, uniformInt, type Random } from "./random";

export const T0_DAY = Math.floor(T0 / DAY);

export interface WorldSize {
  /** Operators of the honest pool that deal with the world (and so earn standing), and those that do not. */
  standing: number;
  fresh: number;
  /** Aged attacker accounts: standing bought with 36 owner-days of real receipted dealings, ending 40 days before T0. */
  aged: number;
}

export interface World {
  pool: Pool;
  anchors: number[];
  aged: PoolReporter[];
  /** The world's rows up to the day before T0. */
  rows: RollupRow[];
  snapshot: StandingSnapshot;
  source: CredibilitySource;
  /** Owner ids of the world's agents (the aged accounts' standing came from three of them each). */
  owners: number[];
  notes: string[];
}

const ANCHORS = Array.from({ length: 8 }, (_, i) => 100 + i);
const WORLD_OWNERS = Array.from({ length: 40 }, (_, i) => 200 + i);
const AGENTS_PER_OWNER = 2;
export const STANDING_IDS = 1000;
export const FRESH_IDS = 3000;
export const AGED_IDS = 5000;

const worldAgent = (owner: number, i: number) => `w${owner}-${i}`;

/** A world report: the agents are good (95% success), signals around 950. */
function worldRow(random: Random, row: RollupRow | null, reporter: number, agent: string, owner: number, day: number, established: boolean): RollupRow {
  const success = random() < 0.95;
  const signal = Math.round(Math.min(1000, Math.max(0, (success ? 950 : 400) + (random() - 0.5) * 200)));
  return addToRollup(row, {
    reporter: String(reporter),
    agent,
    owner: String(owner),
    at: day * DAY + 12 * 3_600_000,
    outcome: success ? "success" : "failure",
    signals: { reliability: signal, quality: signal },
    receipted: true,
    established,
  });
}

/** Dealings of one reporter with one agent on the given days (sorted): established from its second day on. */
function deal(rows: RollupRow[], random: Random, reporter: number, agent: string, owner: number, days: number[]): void {
  days.forEach((day, i) => rows.push(worldRow(random, null, reporter, agent, owner, day, i > 0)));
}

export function buildWorld(seed: string, size: WorldSize): World {
  const random = randomFor(seed, "world");
  const genesis = T0_DAY - 360;
  const agents = WORLD_OWNERS.flatMap((o) => Array.from({ length: AGENTS_PER_OWNER }, (_, i) => ({ owner: o, key: worldAgent(o, i) })));
  const rows: RollupRow[] = [];
  const someDays = (from: number, to: number, p: number) => {
    const out: number[] = [];
    for (let d = from; d < to; d++) if (random() < p) out.push(d);
    return out;
  };
  // Anchors: each deals with 20 of the world's agents all year.
  for (const a of ANCHORS) {
    const picks = new Set<number>();
    while (picks.size < 20) picks.add(Math.floor(random() * agents.length));
    for (const i of [...picks].sort((x, y) => x - y)) deal(rows, random, a, agents[i].key, agents[i].owner, someDays(genesis, T0_DAY, 0.15));
  }
  const standing: PoolReporter[] = [];
  for (let i = 0; i < size.standing; i++) {
    const id = STANDING_IDS + i;
    standing.push({ id, verified: random() < POPULATION.verifiedShare });
    const start = genesis + uniformInt(random, 0, 200);
    const owners = new Set<number>();
    while (owners.size < 4) owners.add(WORLD_OWNERS[Math.floor(random() * WORLD_OWNERS.length)]);
    for (const o of [...owners].sort((x, y) => x - y)) deal(rows, random, id, worldAgent(o, uniformInt(random, 0, AGENTS_PER_OWNER - 1)), o, someDays(start, T0_DAY, 0.12));
  }
  const fresh: PoolReporter[] = Array.from({ length: size.fresh }, (_, i) => ({ id: FRESH_IDS + i, verified: random() < POPULATION.verifiedShare }));
  // Aged accounts: 12 consecutive days with one agent of each of three owners, ending 40 days before T0.
  const aged: PoolReporter[] = [];
  for (let i = 0; i < size.aged; i++) {
    const id = AGED_IDS + i;
    aged.push({ id, verified: true });
    const owners = [0, 1, 2].map((k) => WORLD_OWNERS[(3 * i + k) % WORLD_OWNERS.length]);
    const days = Array.from({ length: 12 }, (_, d) => T0_DAY - 52 + d);
    for (const o of owners) deal(rows, random, id, worldAgent(o, 0), o, days);
  }
  rows.sort((x, y) => x.day - y.day);

  let snapshot: StandingSnapshot | null = null;
  const anchors = ANCHORS.map(String);
  const runs: number[] = [];
  for (let day = genesis + 7; day < T0_DAY - 1; day += 7) runs.push(day);
  runs.push(T0_DAY - 1);
  const shares: string[] = [];
  for (const day of runs) {
    snapshot = computeStanding(rowsUpTo(rows, day), { day, previous: snapshot, anchors });
    if ((day - genesis) % 91 === 0) shares.push(`day ${day - genesis}: ${(100 * snapshot.earnedShare).toFixed(0)}%`);
  }
  const final = snapshot!;
  const full = standing.filter((r) => (final.reporters[String(r.id)]?.standing ?? 0) >= 1).length;
  const agedFull = aged.filter((r) => (final.reporters[String(r.id)]?.standing ?? 0) >= 1).length;
  const notes = [
    `world: ${rows.length} rollup rows over 360 days (8 anchors, 40 owners with 2 agents each, ${size.standing} dealing operators); ` +
      `the standing job run weekly from genesis: earned share ${shares.join(", ")}, at T0 ${(100 * final.earnedShare).toFixed(1)}%; ` +
      `${full} of ${size.standing} dealing operators and ${agedFull} of ${size.aged} aged accounts hold full standing at T0`,
  ];
  return { pool: { standing, fresh }, anchors: ANCHORS, aged, rows, snapshot: final, source: snapshotSource(final), owners: WORLD_OWNERS, notes };
}

/** Rows up to and including `day` (rows sorted by day). */
export function rowsUpTo(rows: readonly RollupRow[], day: number): RollupRow[] {
  let hi = rows.length;
  let lo = 0;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid].day <= day) lo = mid + 1;
    else hi = mid;
  }
  return rows.slice(0, lo);
}

/** Runs the job over the world's rows and more (an attack's), day by day from the world's last snapshot. */
export function runJob(world: World, extra: readonly RollupRow[], fromDay: number, toDay: number, previous = world.snapshot): StandingSnapshot[] {
  const all = [...world.rows, ...extra].sort((x, y) => x.day - y.day);
  const out: StandingSnapshot[] = [];
  let snapshot = previous;
  for (let day = fromDay; day <= toDay; day++) {
    snapshot = computeStanding(rowsUpTo(all, day), { day, previous: snapshot, anchors: world.anchors.map(String) });
    out.push(snapshot);
  }
  return out;
}
