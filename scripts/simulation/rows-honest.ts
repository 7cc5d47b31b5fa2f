// Rows about honest agents and the owner: calibration (good, bad, AUC, the population at 30% and
// 100% credible reporters), the exit scam, the slow-drip exit scam, provider flips, idleness and the
// owner's self-reports.

import { scorerFor, type Run } from "./context";
import { attackReport, attackStream, DAY, HOUR, honestStream, makeAgent, OWNER_ID, POPULATION, T0, type Profile, type SimAgent, type SimReport } from "./population";
import { auc, median, quantile } from "./random";
import type { Scorer } from "./scorers";
import { cell, count, days, pct, share, type Cell, type Row } from "./table";

export const PROFILES = ["good", "fair", "bad", "awful"] as const;
const CHECKPOINTS = [10, 30, 100] as const;

export interface Kept {
  sim: SimAgent;
  agent: Scorer;
  stream: Generator<SimReport>;
  at: number;
}

export interface ProfileRun {
  agents: number;
  /** The report at which each agent was first clear (Infinity: not within 100 reports). */
  firstClear: number[];
  everCaution: number;
  clearAt100: number;
  cautionAt100: number;
  compositeAt: Record<(typeof CHECKPOINTS)[number], number[]>;
  /** Agents in caution at their 40th report, as they were then (forks). */
  cautionAt40: { agent: Scorer; at: number }[];
  /** The first `keepAt100` agents at their 100th report, with their streams. */
  at100: Kept[];
}

export function runProfile(run: Run, profile: Profile, options: { count: number; credibleShare?: number; keepAt100?: number; keepCaution?: boolean }): ProfileRun {
  const out: ProfileRun = { agents: options.count, firstClear: [], everCaution: 0, clearAt100: 0, cautionAt100: 0, compositeAt: { 10: [], 30: [], 100: [] }, cautionAt40: [], at100: [] };
  for (let i = 0; i < options.count; i++) {
    const sim = makeAgent(run.seed, run.world.pool, profile, i, { signalMean: run.signalMean, credibleShare: options.credibleShare });
    const agent = scorerFor(run, sim.ownerId, T0);
    const stream = honestStream(sim, T0);
    let firstClear = Infinity;
    let everCaution = false;
    let at = T0;
    for (let n = 1; n <= 100; n++) {
      const report = stream.next().value as SimReport;
      agent.report(report);
      at = report.at;
      const view = agent.view(at);
      if (view.recommendation === "clear" && firstClear === Infinity) firstClear = n;
      if (view.recommendation === "caution") everCaution = true;
      if (n === 10 || n === 30 || n === 100) out.compositeAt[n].push(view.composite);
      if (n === 40 && options.keepCaution && view.recommendation === "caution") out.cautionAt40.push({ agent: agent.fork(), at });
      if (n === 100) {
        if (view.recommendation === "caution") out.cautionAt100++;
        if (view.recommendation === "clear") out.clearAt100++;
      }
    }
    out.firstClear.push(firstClear);
    if (everCaution) out.everCaution++;
    if (i < (options.keepAt100 ?? 0)) out.at100.push({ sim, agent, stream, at });
  }
  return out;
}

function goodCell(r: ProfileRun, target: boolean): Cell {
  const med = median(r.firstClear);
  const clear = r.clearAt100 / r.agents;
  const caution = r.everCaution / r.agents;
  return cell(`clear after median ${count(med)} reports; clear at 100: ${share(clear)}; ever caution ${share(caution)}`, target ? med <= 10 && caution <= 0.05 : null, {
    medianReportsToClear: med,
    clearAt100: clear,
    everCautionShare: caution,
  });
}

/** A good agent with 100 reports turns to 0% success: failed transactions until it is no longer clear, and until caution. */
function exitScam(kept: Kept[]): { withdrawn: number[]; caution: number[]; clearAtSwitch: number } {
  const withdrawn: number[] = [];
  const caution: number[] = [];
  let clearAtSwitch = 0;
  for (const k of kept) {
    const agent = k.agent.fork();
    const wasClear = agent.view(k.at).recommendation === "clear";
    if (wasClear) clearAtSwitch++;
    // The stream reads the agent's profile at each draw: the same stream, now failing.
    k.sim.turnsAt = k.at + 1;
    const stream = k.stream;
    let firstOut = Infinity;
    let firstCaution = Infinity;
    for (let n = 1; n <= 200 && firstCaution === Infinity; n++) {
      const report = stream.next().value as SimReport;
      agent.report(report);
      const rec = agent.view(report.at).recommendation;
      if (rec !== "clear" && firstOut === Infinity) firstOut = n;
      if (rec === "caution") firstCaution = n;
    }
    if (wasClear) withdrawn.push(firstOut);
    caution.push(firstCaution);
  }
  return { withdrawn, caution, clearAtSwitch };
}

/**
 * The slow drip: a clear agent at 100 reports stops serving its regular reporters and fails one
 * transaction every 49 hours, each with a distinct credible counterparty new to it. Failures until
 * it is no longer clear.
 */
function slowDrip(run: Run, kept: Kept[]): number[] {
  const out: number[] = [];
  for (const k of kept) {
    const agent = k.agent.fork();
    if (agent.view(k.at).recommendation !== "clear") continue;
    const known = new Set(k.sim.reporters.map((r) => r.id));
    const fresh = run.world.pool.credible.filter((r) => !known.has(r.id));
    let withdrawn = Infinity;
    for (let n = 1; n <= 10 && withdrawn === Infinity; n++) {
      const at = k.at + HOUR + (n - 1) * 49 * HOUR;
      const reporter = fresh[(n * 37 + k.sim.reporters.length) % fresh.length];
      agent.report({ ...attackReport(reporter.id, at, "slander"), verified: reporter.verified, receipt: true });
      if (agent.view(at).recommendation !== "clear") withdrawn = n;
    }
    out.push(withdrawn);
  }
  return out;
}

/** Whole idle days after `at` until the agent is first out of caution (Infinity: not within 20 years). */
function idleDaysInCaution(agent: Scorer, at: number): number {
  const out = (d: number) => agent.view(at + d * DAY).recommendation !== "caution";
  for (let d = 1; d <= 7; d++) if (out(d)) return d;
  for (let d = 14; d <= 20 * 365; d += 7) {
    if (!out(d)) continue;
    let first = d;
    while (first - 1 > d - 7 && out(first - 1)) first--;
    return first;
  }
  return Infinity;
}

export function honestRows(run: Run): { rows: Row[]; notes: string[] } {
  const { size } = run;
  const notes: string[] = [];
  const runs = {} as Record<(typeof PROFILES)[number], ProfileRun>;
  for (const p of PROFILES) runs[p] = runProfile(run, p, { count: size.agentsPerProfile, keepCaution: p === "bad" || p === "awful", keepAt100: p === "good" ? size.agentsPerProfile : 0 });
  const rows: Row[] = [];
  rows.push({ key: "good", attack: "good agents (95% success), 70% of reporters with credibility: reports to clear, ever caution", target: "median ≤ 10; ≤ 5%", price: "", cell: goodCell(runs.good, true) });
  const bad = runs.bad;
  rows.push({
    key: "bad",
    attack: "40%-success agents in caution at 100 reports",
    target: "≥ 69% (aim 85%)",
    price: "",
    cell: cell(`caution ${pct(bad.cautionAt100, bad.agents)}`, bad.cautionAt100 >= 0.69 * bad.agents, { cautionShare: bad.cautionAt100 / bad.agents }),
  });
  const a = CHECKPOINTS.map((k) => auc(runs.good.compositeAt[k], runs.bad.compositeAt[k]));
  rows.push({ key: "auc", attack: "AUC good vs bad at 10 / 30 / 100 reports (composite)", target: "≥ 0.99 each", price: "", cell: cell(a.map((x) => x.toFixed(4)).join(" / "), a.every((x) => x >= 0.99), { at10: a[0], at30: a[1], at100: a[2] }) });
  for (const credibleShare of [0.3, 1]) {
    const g = runProfile(run, "good", { count: size.agentsPerShare, credibleShare });
    const b = runProfile(run, "bad", { count: size.agentsPerShare, credibleShare });
    const c = goodCell(g, false);
    rows.push({
      key: `credible-${credibleShare * 100}`,
      attack: `the same population with ${credibleShare * 100}% of reporters with credibility (${size.agentsPerShare} good, ${size.agentsPerShare} bad)`,
      target: "shown (the price of credibility)",
      price: "",
      cell: cell(`good: ${c.text}; bad: caution ${pct(b.cautionAt100, b.agents)}`, null, { ...c.figures, badCaution: b.cautionAt100 / b.agents }),
    });
  }
  for (const p of PROFILES) {
    const r = runs[p];
    notes.push(
      `${p} (${POPULATION.profiles[p] * 100}% success): clear after median ${count(median(r.firstClear))} reports, clear at 100 ${pct(r.clearAt100, r.agents)}, ` +
        `ever caution ${pct(r.everCaution, r.agents)}, caution at 100 ${pct(r.cautionAt100, r.agents)}, median composite at 10 / 30 / 100 reports ` +
        CHECKPOINTS.map((k) => median(r.compositeAt[k])).join(" / "),
    );
  }

  const scam = exitScam(runs.good.at100);
  const w = median(scam.withdrawn);
  const c = median(scam.caution);
  rows.push({
    key: "exit-scam",
    attack: "exit scam after 100 good reports: failed transactions until clear is withdrawn / until caution (median)",
    target: "≤ 6 / ≤ 10",
    price: "",
    cell: cell(`${count(w)} (p90 ${count(quantile(scam.withdrawn, 0.9))}) of ${scam.clearAtSwitch} clear / ${count(c)} (p90 ${count(quantile(scam.caution, 0.9))})`, w <= 6 && c <= 10, {
      withdrawnMedian: w,
      cautionMedian: c,
    }),
  });
  const drip = slowDrip(run, runs.good.at100.slice(0, size.victims));
  const worst = Math.max(...drip);
  rows.push({
    key: "slow-drip",
    attack: `slow-drip exit scam: a clear agent at 100 reports fails one transaction per 49 h, each with a distinct credible counterparty (${drip.length} agents)`,
    target: "clear withdrawn within 5 failures",
    price: "",
    cell: cell(`withdrawn after median ${count(median(drip))}, at most ${count(worst)} failures`, drip.length > 0 && worst <= 5, { median: median(drip), worst }),
  });

  // Provider flips and idleness, on the bad and awful agents in caution at their 40th report.
  const cautionAt40 = [...runs.bad.cautionAt40, ...runs.awful.cautionAt40];
  let stayed = 0;
  let higher = 0;
  for (const { agent, at } of cautionAt40) {
    const flipped = agent.fork();
    let always = true;
    for (let f = 1; f <= 4; f++) {
      flipped.providerChange(at + f * HOUR);
      if (flipped.view(at + f * HOUR).recommendation !== "caution") always = false;
    }
    if (always) stayed++;
    if (flipped.view(at + 4 * HOUR).composite > agent.view(at + 4 * HOUR).composite) higher++;
  }
  rows.push({
    key: "flips",
    attack: "caution agent after 4 provider flips (bad and awful agents in caution at 40 reports)",
    target: "still caution, composite not higher (version 3's)",
    price: "the owner",
    cell: cell(`still caution ${pct(stayed, cautionAt40.length)}, composite higher in ${higher} of ${cautionAt40.length}`, cautionAt40.length > 0 && stayed === cautionAt40.length && higher === 0, { agents: cautionAt40.length, stayed, higher }),
  });
  const idle = cautionAt40.map(({ agent, at }) => idleDaysInCaution(agent, at));
  const med = median(idle);
  const min = Math.min(...idle);
  rows.push({
    key: "idle",
    attack: "idle caution agent (the same agents) until it leaves caution",
    target: "median ≥ 600 days, minimum ≥ 365 (version 3's)",
    price: "",
    cell: cell(`median ${days(med)}, minimum ${days(min)}`, idle.length > 0 && med >= 600 && min >= 365, { agents: idle.length, median: med, minimum: min }),
  });

  // The owner sends 1,000 self-reports on its own new agent within a day (receipts, identity level 2).
  const self = scorerFor(run, OWNER_ID, T0, 2);
  let max = -Infinity;
  let clear = false;
  for (const r of attackStream([OWNER_ID], "praise", { burst: 0, perDay: 1000 }, T0, T0 + DAY)) {
    self.report(r);
    const v = self.view(r.at);
    max = Math.max(max, v.composite);
    if (v.recommendation === "clear") clear = true;
  }
  rows.push({
    key: "self-reports",
    attack: "owner's 1,000 self-reports on its own agent (one day, receipts)",
    target: "composite ≤ 700, never clear (version 3's)",
    price: "the owner",
    cell: cell(`highest composite ${max}, clear ${clear ? "yes" : "never"}`, max <= 700 && !clear, { highest: max, clear: clear ? 1 : 0 }),
  });
  return { rows, notes };
}
