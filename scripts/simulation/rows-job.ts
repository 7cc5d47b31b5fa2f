// Rows whose figures are the cross-agent job's own, run daily over the world's pairs and the pairs the
// scenario writes: aged sybils (free, unreceipted praise), a sybil region joined by one honest
// receipted edge, and a slanderer padding with praise of clear agents.

import { scorerFor, type Run } from "./context";
import { drive } from "./drive";
import { DAY, HOUR, OWNER_ID, T0, attackStream, honestStream, makeAgent, merge } from "./population";
import { Scorer } from "./scorers";
import { cell, type Row } from "./table";
import { streamFrom, victim } from "./victims";
import { runJob, sourceOf, T0_DAY, type JobPair } from "./world";

const SYBIL_IDS = 7000;
const REGION = 10;
const SLANDERED = 10;

/** Pairs of `reporters` praising (or not) world agents: receipted or not, from `day`. */
function praisePairs(reporters: number[], agents: number[], day: number, receipt: boolean): JobPair[] {
  return reporters.flatMap((r) => agents.map((agent) => ({ agent, reporter: r, vote: 1000, firstAt: day * DAY + 6 * HOUR, receiptDay: receipt ? day : -1 })));
}

export function jobRows(run: Run): { rows: Row[]; notes: string[] } {
  const { world } = run;
  const owners = [...world.agentOwners];
  const rows: Row[] = [];
  const popular = [0, 2, 4, 6, 8, 10];

  // Aged sybils: k new accounts praise six popular world agents daily for 30 days, without receipts, then a target.
  {
    const parts: string[] = [];
    let clear = 0;
    let runs = 0;
    let highest = 0;
    const victims = Array.from({ length: 3 }, (_, i) => victim(run, "sybils", "bad", i, 30));
    for (const k of [3, 5, 10]) {
      const sybils = Array.from({ length: k }, (_, i) => SYBIL_IDS + 100 * k + i);
      const pairs = [...world.pairs, ...praisePairs(sybils, popular, T0_DAY - 31, false)];
      const levels = runJob(pairs, owners, world.anchors, T0_DAY - 30, T0_DAY, world.levels).at(-1)!.levels;
      highest = Math.max(highest, ...sybils.map((s) => levels[s]));
      for (const v of [null, ...victims]) {
        const agent = scorerFor(run, OWNER_ID, T0, 2, sourceOf(levels, "sybils"));
        const end = T0 + 30 * DAY;
        const attack = attackStream(sybils, "praise", { burst: 20, perDay: 4 }, T0, end);
        if (drive(agent, v ? streamFrom(v, 0, end, attack) : attack, end).everClear) clear++;
        runs++;
      }
      parts.push(`k=${k}`);
    }
    rows.push({
      key: "aged-sybils",
      attack: `aged sybils: k = 3, 5, 10 accounts praise popular agents for 30 days without receipts, then a target (an empty agent and 3 bad agents, 30 days)`,
      target: "never clear a target",
      price: "k accounts, 30 days, no receipted dealings",
      cell: cell(`highest c after 30 days ${highest / 20}; clear in ${clear} of ${runs} runs`, clear === 0, { clear, highestLevel: highest }),
    });
  }

  // A sybil region: 10 owners whose agents their accounts praise daily (receipted), and one honest receipted edge into it.
  {
    const region = Array.from({ length: REGION }, (_, i) => SYBIL_IDS + 2000 + i);
    const firstAgent = owners.length;
    const regionOwners = [...owners, ...region];
    const pairs: JobPair[] = [...world.pairs];
    region.forEach((o, i) => {
      for (const r of region) if (r !== o) pairs.push({ agent: firstAgent + i, reporter: r, vote: 1000, firstAt: T0 + i * 60_000, receiptDay: T0_DAY });
    });
    const honest = world.pool.credible[0].id;
    pairs.push({ agent: firstAgent, reporter: honest, vote: 1000, firstAt: T0, receiptDay: T0_DAY });
    const snapshots = runJob(pairs, regionOwners, world.anchors, T0_DAY + 1, T0_DAY + 60, world.levels);
    let everTrusted = 0;
    let highestC = 0;
    for (const o of region) if (snapshots.some((s) => s.trusted[o])) everTrusted++;
    for (const s of snapshots) for (const o of region) highestC = Math.max(highestC, s.levels[o]);
    const trustedDays = snapshots.length;
    rows.push({
      key: "sybil-region",
      attack: `a sybil region: ${REGION} owners whose accounts praise each other's agents daily with receipts, joined to the trusted graph by one honest credible operator's receipted praise (${trustedDays} days of the job)`,
      target: "its owners never trusted",
      price: `${REGION} accounts and agents, one honest dealing`,
      cell: cell(`${everTrusted} of ${REGION} owners ever trusted; the region's highest c over 60 days ${highestC / 20}`, everTrusted === 0 && highestC === 0, { trusted: everTrusted, highestLevel: highestC }),
    });
  }

  // A slanderer with credibility slanders a good agent every 4 days (3 days of receipted failures), padding with receipted praise of popular agents.
  {
    const slanderer = world.aged[30].id;
    const scorers: Scorer[] = [];
    for (let i = 0; i < SLANDERED; i++) {
      const sim = makeAgent(`${run.seed}/slandered`, world.pool, "good", i, { signalMean: run.signalMean });
      const agent = scorerFor(run, OWNER_ID, T0);
      const from = T0 + 4 * i * DAY + HOUR;
      drive(agent, merge(honestStream(sim, T0, true), attackStream([slanderer], "slander", { burst: 0, perDay: 2 }, from, from + 3 * DAY)), T0 + 4 * SLANDERED * DAY + 5 * DAY);
      scorers.push(agent);
    }
    const first = owners.length;
    const pairs = [...world.pairs, ...praisePairs([slanderer], popular, T0_DAY, true), ...scorers.flatMap((s, i) => s.jobPairs(first + i))];
    const snapshots = runJob(pairs, [...owners, ...scorers.map(() => OWNER_ID)], world.anchors, T0_DAY + 1, T0_DAY + 4 * SLANDERED + 5, world.levels);
    const below = snapshots.findIndex((s) => s.levels[slanderer] < 10);
    // Slandered agents whose first slander came before that day's run.
    const slanders = below < 0 ? Infinity : Math.ceil((below + 1) / 4);
    rows.push({
      key: "slanderer",
      attack: `a slanderer with credibility slanders a good agent every 4 days (${SLANDERED} agents, 3 days of receipted failures each) while praising popular agents with receipts`,
      target: "its c below 0.5 within 10 slanders",
      price: `1 account × (${"3 receipted dealings with trusted owners + 30 days"})`,
      cell: cell(`c ${world.levels[slanderer] / 20} at the start, below 0.5 ${below < 0 ? "never" : `from day ${below + 1}, after ${slanders} slandered agent(s)`}; ${snapshots.at(-1)!.levels[slanderer] / 20} at the end`, below >= 0 && slanders <= 10, {
        slanders,
        finalLevel: snapshots.at(-1)!.levels[slanderer],
      }),
    });
  }
  return { rows, notes: [] };
}

