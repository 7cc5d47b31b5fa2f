// Rows whose figures are the standing job's own: 3 aged seeds vouching for new accounts through dummy
// agents, a serial slanderer with standing, and the honest early reporters of exit scams. One run of
// the job per day over the world's rows and every row these scenarios write (version 3 only: version
// 2 has no standing).

import {
  addToRollup,
  snapshotSource,
  type RollupRow,
  type SignalDimension,
  type StandingSnapshot,
} from "../../src/domain/model/index";
import { scorerFor, type Run } from "./context";
import { drive } from "./drive";
import { DAY, HOUR, OWNER_ID, T0, attackReport, attackStream, honestStream, makeAgent, merge, type SimReport } from "./population";
import { RollupSink, ScorerV3 } from "./scorers";
import { cell, type Row } from "./table";
import { T0_DAY, runJob } from "./world";
import { victim, streamFrom } from "./victims";

const SEED_RINGS = [2, 5, 10];
const DUMMY_OWNERS = 4;
const RING_DAYS = 60;
const JOB_DAYS = 100;
const SLANDERED = 15;
const SLANDER_SPACING = 4;
const SCAMS = 10;
const SCAM_DAY = 30;
const SCAM_END = 45;

/** Rows of `reporter` praising `agent` twice a day (receipted) for `days` days from T0_DAY. */
function dealRows(rows: RollupRow[], reporter: number, agent: string, owner: number, days: number): void {
  for (let d = 0; d < days; d++) {
    let row: RollupRow | null = null;
    for (const hour of [6, 18]) {
      const r = attackReport(reporter, (T0_DAY + d) * DAY + hour * HOUR, "praise");
      row = addToRollup(row, { reporter: String(reporter), agent, owner: String(owner), at: r.at, outcome: r.outcome, signals: r.signals as Partial<Record<SignalDimension, number>>, receipted: true, established: d > 0 });
    }
    rows.push(row!);
  }
}

interface SeedRing {
  k: number;
  seeds: number[];
  accounts: number[];
}

export function dynamicRows(run: Run): { rows: Row[]; notes: string[] } {
  const { world } = run;
  const rows: RollupRow[] = [];
  const notes: string[] = [];

  // 1. Seed rings: 3 aged seeds and k new accounts deal daily with one dummy agent of each of 4 cooperating owners.
  const rings: SeedRing[] = SEED_RINGS.map((k, i) => ({
    k,
    seeds: world.aged.slice(3 + 3 * i, 6 + 3 * i).map((r) => r.id),
    accounts: Array.from({ length: k }, (_, j) => 7100 + 100 * i + j),
  }));
  // The attacker's best play: each dummy is dealt with by two of the seeds only (rotating). With all
  // three on every dummy, the seeds would vouch for each other there, the dummies' owners would enter
  // their sources, and they could no longer vouch for accounts dealing with those owners.
  rings.forEach((ring, i) => {
    for (let o = 0; o < DUMMY_OWNERS; o++) {
      const owner = 7000 + 10 * i + o;
      const agent = `dummy-${owner}`;
      const seeds = [ring.seeds[o % 3], ring.seeds[(o + 1) % 3]];
      for (const r of [...seeds, ...ring.accounts]) dealRows(rows, r, agent, owner, RING_DAYS);
    }
  });

  // 2. A serial slanderer with standing: agent i of 10 good agents gets 3 days of its receipted failures from day 5i.
  const sink = new RollupSink();
  const slanderer = world.aged[20].id;
  for (let i = 0; i < SLANDERED; i++) {
    const sim = makeAgent(`${run.seed}/slandered`, world.pool, "good", i, { signalMean: run.signalMean });
    const agent = new ScorerV3(OWNER_ID, T0, world.source, 0, { rollups: sink, agent: `slandered-${i}` });
    const from = T0 + SLANDER_SPACING * i * DAY + HOUR;
    drive(agent, merge(honestStream(sim, T0), attackStream([slanderer], "slander", { burst: 0, perDay: 2 }, from, from + 3 * DAY)), T0 + JOB_DAYS * DAY);
  }

  // 3. Exit scams: 10 good agents whose honest reporters send receipts; from day 30 they fail; all reporting stops at day 45.
  const scamSink = new RollupSink();
  const early = new Set<string>();
  for (let i = 0; i < SCAMS; i++) {
    const sim = makeAgent(`${run.seed}/scam`, world.pool, "good", i, { signalMean: run.signalMean });
    const agent = new ScorerV3(OWNER_ID, T0, world.source, 0, { rollups: scamSink, agent: `scam-${i}` });
    sim.turnsAt = T0 + SCAM_DAY * DAY;
    const stream = honestStream(sim, T0, true);
    // The first two to report the failures on this agent stop reporting on it there: early reporters,
    // the consensus not yet theirs (they go on with their other agents).
    const stopped = new Set<number>();
    for (let r = stream.next().value as SimReport; r.at < T0 + SCAM_END * DAY; r = stream.next().value as SimReport) {
      if (stopped.has(r.reporter)) continue;
      if (r.at >= sim.turnsAt && stopped.size < 2) {
        stopped.add(r.reporter);
        early.add(String(r.reporter));
      }
      agent.report(r);
    }
  }

  const snapshots = runJob(world, [...rows, ...sink.all(), ...scamSink.all()], T0_DAY, T0_DAY + JOB_DAYS);
  const at = (day: number): StandingSnapshot => snapshots[Math.min(snapshots.length - 1, day)];
  const standingOf = (s: StandingSnapshot, id: number) => s.reporters[String(id)]?.standing ?? 0;

  // Seeds: the new accounts' standing through the ring, and what they can do with it.
  const seedParts: string[] = [];
  let gained = 0;
  let clear = 0;
  let runs = 0;
  const end = at(RING_DAYS);
  const ringVictims = Array.from({ length: 3 }, (_, i) => victim(run, "seeded", "bad", i, 30));
  for (const ring of rings) {
    const best = Math.max(...snapshots.flatMap((s) => ring.accounts.map((id) => standingOf(s, id))));
    const holders = ring.accounts.filter((id) => standingOf(end, id) > 0).length;
    gained += holders;
    const firstDay = snapshots.findIndex((s) => ring.accounts.some((id) => standingOf(s, id) > 0));
    // The accounts praise bad agents and an empty one with the credibility of the day-60 snapshot.
    for (const v of [null, ...ringVictims]) {
      const agent = scorerFor(run, 3, OWNER_ID, T0, 2, snapshotSource(end));
      const stop = T0 + 30 * DAY;
      const attack = attackStream(ring.accounts, "praise", { burst: 20, perDay: 4 }, T0, stop);
      if (drive(agent, v ? streamFrom(v, 0, stop, attack) : attack, stop).everClear) clear++;
      runs++;
    }
    seedParts.push(`k=${ring.k}: ${holders} of ${ring.k} hold standing at day ${RING_DAYS} (highest ever ${best.toFixed(2)}${firstDay >= 0 ? `, first on day ${firstDay}` : ""})`);
  }
  const seedRow: Row = {
    key: "seeds",
    attack: `3 aged seeds vouching for k = ${SEED_RINGS.join(", ")} new accounts through dummy agents of ${DUMMY_OWNERS} cooperating owners (${RING_DAYS} days, daily receipted dealings), then the accounts praise a new agent (an empty one and 3 bad agents, 30 days)`,
    target: "the new accounts gain no standing from the ring (clear never comes from them)",
    cost: `3 × 30 owner-days + ${DUMMY_OWNERS} owners + k accounts`,
    v2: null,
    v3: cell(`${seedParts.join("; ")}; clear in ${clear} of ${runs} runs`, gained === 0 && clear === 0, { gained, clear }),
  };

  // The slanderer's agreement as its votes mature, and the early reporters' c.
  const entry = (s: StandingSnapshot) => s.reporters[String(slanderer)];
  const below = snapshots.findIndex((s) => (entry(s)?.agreement ?? 1) < 0.5);
  const worldVotes = world.snapshot.reporters[String(slanderer)].agree + world.snapshot.reporters[String(slanderer)].disagree;
  // Agents slandered whose votes are in by `day` (the votes it cast elsewhere, before, left out).
  const agentsBy = (day: number) => entry(at(day)).agree + entry(at(day)).disagree - worldVotes;
  const final = entry(at(JOB_DAYS));
  // The early reporters' agreement factor (c = max(seed, standing) × it), lowest over the run.
  const agreementOf = (s: StandingSnapshot, id: string) => s.reporters[id]?.agreement ?? 1;
  const minEarly = Math.min(...[...early].flatMap((id) => snapshots.map((s) => agreementOf(s, id))));
  const withStanding = [...early].filter((id) => (world.snapshot.reporters[id]?.standing ?? 0) > 0).length;
  const slanderRow: Row = {
    key: "slanderer",
    attack: `a serial slanderer with standing (aged: 3 agreeing votes from its purchase) slanders ${SLANDERED} good agents in turn (3 days each, receipts); the first 2 reporters of each of ${SCAMS} exit scams report its first failures and stop`,
    target: "the slanderer's agreement (and c) falls below 0.5 within 10 agents; the early reporters keep c ≥ 0.9",
    cost: "30 owner-days",
    v2: null,
    v3: cell(
      `agreement below 0.5 ${below >= 0 ? `once ${agentsBy(below)} agents' votes are in (day ${below})` : "never"}, ${final.agreement.toFixed(2)} after ${final.disagree} agents; ` +
        `early reporters' agreement factor at least ${minEarly.toFixed(2)} (${early.size} reporters, ${withStanding} with standing)`,
      below >= 0 && agentsBy(below) <= SLANDERED && minEarly >= 0.9,
      { agreement: final.agreement, agentsUntilBelow: below >= 0 ? agentsBy(below) : Infinity, minEarlyC: minEarly },
    ),
  };
  notes.push(`standing job: ${snapshots.length} daily runs over ${world.rows.length + rows.length + sink.rows.size + scamSink.rows.size} rows`);
  return { rows: [seedRow, slanderRow], notes };
}
