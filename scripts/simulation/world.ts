// The world the honest population's credibility comes from: a year of receipted dealings between
// operators and the agents of 40 other owners, as pair aggregates, with version 4's job run over them
// daily from genesis: the anchors praise owners' agents (so those owners are trusted), operators
// that deal with three trusted owners for 30 days earn credibility. Nothing here sets a `c`: every
// credibility the population gets comes from the job's last snapshot.

import { DAY_MS, job, nextVote, type CredibilitySource } from "../../src/domain/model/index";
import { DAY, POPULATION, T0, type Pool, type PoolReporter } from "./population";
import { randomFor, uniformInt, type Random } from "./random";

export const T0_DAY = Math.floor(T0 / DAY);

export interface WorldSize {
  /** Operators of the honest pool that deal with the world (and so earn credibility), and those that do not. */
  standing: number;
  fresh: number;
  /** Aged attacker accounts: 3 receipted dealings with trusted owners' agents, ending 40 days before T0. */
  aged: number;
}

/** One (agent, reporter) pair as the job reads it. */
export interface JobPair {
  agent: number;
  reporter: number;
  vote: number;
  firstAt: number;
  receiptDay: number;
}

export interface World {
  pool: Pool;
  anchors: number[];
  aged: PoolReporter[];
  /** The world's pairs (agents 0..79, owned by `owners`). */
  pairs: JobPair[];
  /** Agent index → owner, for the world's agents. */
  agentOwners: number[];
  levels: Uint8Array;
  source: CredibilitySource;
  owners: number[];
  notes: string[];
}

/** Operator ids: small integers, so the job's arrays are indexed by them. */
export const ANCHORS = Array.from({ length: 8 }, (_, i) => i);
export const WORLD_OWNERS = Array.from({ length: 40 }, (_, i) => 10 + i);
export const STANDING_IDS = 1000;
export const FRESH_IDS = 3000;
export const AGED_IDS = 5000;
/** Every operator id the simulation uses is below this. */
export const OPERATORS = 12_000;
const AGENTS_PER_OWNER = 2;

export const sourceOf = (levels: Uint8Array, snapshot: string): CredibilitySource => ({ credibility: (key) => (levels[Number(key)] ?? 0) / 20, snapshot });

/** A pair's vote after `n` reports at a 95% success share. */
function worldVote(random: Random, n: number): number {
  let v: number | null = null;
  for (let i = 0; i < Math.max(1, n); i++) v = nextVote(v, random() < 0.95 ? 1000 : 0);
  return v!;
}

/** The job's columns of these pairs (grouped by agent). */
export function columnsOf(pairs: readonly JobPair[]): job.PairColumns {
  const sorted = [...pairs].sort((a, b) => a.agent - b.agent || a.reporter - b.reporter);
  const c = job.emptyColumns(sorted.length);
  sorted.forEach((p, i) => {
    c.agent[i] = p.agent;
    c.reporter[i] = p.reporter;
    c.vote[i] = p.vote;
    c.firstAt[i] = p.firstAt;
    c.receiptDay[i] = p.receiptDay;
  });
  c.length = sorted.length;
  return c;
}

/**
 * The job run daily from `fromDay` to `toDay` over the pairs that exist by each day (firstAt before
 * its midnight), from `previous`. Returns every day's levels and trusted owners.
 */
export function runJob(
  pairs: readonly JobPair[],
  agentOwners: readonly number[],
  anchors: readonly number[],
  fromDay: number,
  toDay: number,
  previous: Uint8Array | null,
): { levels: Uint8Array; trusted: Uint8Array }[] {
  const owners = Int32Array.from(agentOwners);
  const byDay = [...pairs].sort((a, b) => a.firstAt - b.firstAt);
  const out: { levels: Uint8Array; trusted: Uint8Array }[] = [];
  let k = 0;
  let current: JobPair[] = [];
  let levels = previous;
  for (let day = fromDay; day <= toDay; day++) {
    const before = k;
    while (k < byDay.length && byDay[k].firstAt < day * DAY_MS) k++;
    if (k !== before) current = byDay.slice(0, k);
    const s = job.computeCredibility({ operators: OPERATORS, owners, anchors, shards: [columnsOf(current)], previous: levels, day });
    levels = s.levels;
    out.push({ levels: s.levels, trusted: s.trusted });
  }
  return out;
}

export function buildWorld(seed: string, size: WorldSize): World {
  const random = randomFor(seed, "world");
  const genesis = T0_DAY - 360;
  const agentOwners: number[] = [];
  for (const o of WORLD_OWNERS) for (let i = 0; i < AGENTS_PER_OWNER; i++) agentOwners.push(o);
  const agents = agentOwners.map((owner, index) => ({ owner, index }));
  const pairs: JobPair[] = [];
  const deal = (reporter: number, agent: number, day: number, reports: number, vote?: number) =>
    pairs.push({ agent, reporter, vote: vote ?? worldVote(random, reports), firstAt: day * DAY + 12 * 3_600_000, receiptDay: day });
  // Anchors: each deals with 20 of the world's agents from genesis.
  for (const a of ANCHORS) {
    const picks = new Set<number>();
    while (picks.size < 20) picks.add(Math.floor(random() * agents.length));
    for (const i of [...picks].sort((x, y) => x - y)) deal(a, i, genesis + uniformInt(random, 0, 30), 40);
  }
  const standing: PoolReporter[] = [];
  for (let i = 0; i < size.standing; i++) {
    const id = STANDING_IDS + i;
    standing.push({ id, verified: random() < POPULATION.verifiedShare });
    const start = genesis + uniformInt(random, 0, 200);
    const owners = new Set<number>();
    while (owners.size < 4) owners.add(WORLD_OWNERS[Math.floor(random() * WORLD_OWNERS.length)]);
    for (const o of [...owners].sort((x, y) => x - y)) deal(id, agentOwners.indexOf(o) + uniformInt(random, 0, AGENTS_PER_OWNER - 1), start + uniformInt(random, 0, 30), uniformInt(random, 3, 40));
  }
  const fresh: PoolReporter[] = Array.from({ length: size.fresh }, (_, i) => ({ id: FRESH_IDS + i, verified: random() < POPULATION.verifiedShare }));
  // Aged accounts: one receipted dealing (praise) with an agent of each of three owners, 40 days before T0.
  const aged: PoolReporter[] = [];
  for (let i = 0; i < size.aged; i++) {
    const id = AGED_IDS + i;
    aged.push({ id, verified: true });
    for (let k = 0; k < 3; k++) deal(id, 2 * ((3 * i + k) % WORLD_OWNERS.length), T0_DAY - 40, 1, 1000);
  }
  const all = runJob(pairs, agentOwners, ANCHORS, genesis + 1, T0_DAY, null);
  const levels = all[all.length - 1].levels;
  const credible = (ids: PoolReporter[]) => ids.filter((r) => levels[r.id] >= 20).length;
  const notes = [
    `world: ${pairs.length} receipted pairs over 360 days (8 anchors, 40 owners with 2 agents each, ${size.standing} dealing operators); the job run daily from genesis; ` +
      `at T0 ${credible(standing)} of ${size.standing} dealing operators and ${credible(aged)} of ${size.aged} aged accounts hold c = 1`,
  ];
  return { pool: { credible: standing, fresh }, anchors: ANCHORS, aged, pairs, agentOwners, levels, source: sourceOf(levels, `day-${T0_DAY}`), owners: WORLD_OWNERS, notes };
}

export { DAY_MS };
