// Rows about honest agents and the owner: calibration (good, bad, AUC, the population at 30% and 100%
// standing), the exit scam, provider flips, idleness and the owner's self-reports.

import { CHECKPOINTS, runProfile, type ProfileRun } from "./calibration";
import { byModel, cells, scorerFor, v2Cell, type Run } from "./context";
import { attackStream, DAY, HOUR, OWNER_ID, POPULATION, PROFILES, T0, type SimReport } from "./population";
import { auc, median, quantile } from "./random";
import type { ModelVersion, Scorer } from "./scorers";
import { cell, count, days, pct, share, type Cell, type Row } from "./table";


function goodCell(r: ProfileRun, target: boolean): Cell {
  const med = median(r.firstClear);
  const clear = r.clearAt100 / r.agents;
  const caution = r.everCaution / r.agents;
  const pass = target ? med <= 20 && clear >= 0.8 && caution <= 0.005 : null;
  return cell(`clear after median ${count(med)}; clear at 100: ${share(clear)}; ever caution ${share(caution)}`, pass, {
    medianReportsToClear: med,
    clearAt100: clear,
    everCautionShare: caution,
  });
}

/**
 * Whole idle days after `at` until the agent is first out of caution (Infinity: not within 20 years):
 * day by day for a week, then a week at a time, going back day by day into the week where it is first
 * out (a stay out of caution shorter than a week after the first is not looked for).
 */
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

/** A good agent with 100 reports turns to 0% success: failed transactions until clear is withdrawn, and until caution. */
function exitScam(run: ProfileRun): { withdrawn: number[]; caution: number[]; clearAtSwitch: number } {
  const withdrawn: number[] = [];
  const caution: number[] = [];
  let clearAtSwitch = 0;
  for (const kept of run.at100) {
    const agent = kept.agent.fork();
    const wasClear = agent.view(kept.at).recommendation === "clear";
    if (wasClear) clearAtSwitch++;
    // The stream reads the agent's profile at each draw: the same stream, now failing.
    kept.sim.turnsAt = kept.at + 1;
    let firstOut = Infinity;
    let firstCaution = Infinity;
    for (let n = 1; n <= 200 && firstCaution === Infinity; n++) {
      const report = kept.stream.next().value as SimReport;
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

export function honestRows(run: Run): { rows: Row[]; notes: string[] } {
  const { size } = run;
  const notes: string[] = [];
  const runs = byModel(run, (model) => {
    const out = {} as Record<(typeof PROFILES)[number], ProfileRun>;
    for (const p of PROFILES) {
      out[p] = runProfile(run, model, p, { count: size.agentsPerProfile, keepCaution: p === "bad" || p === "awful", keepAt100: p === "good" ? size.agentsPerProfile : 0 });
    }
    return out;
  });
  const rows: Row[] = [];
  rows.push({
    key: "good",
    attack: "good agents (95% success), 70% of reporters with standing",
    target: "clear after a median ≤ 20 reports, clear at 100 reports ≥ 80%, ever caution ≤ 0.5%",
    cost: "",
    v2: v2Cell(runs[2], (r) => goodCell(r.good, false)),
    v3: goodCell(runs[3].good, true),
  });
  const badCell = (r: ProfileRun, target: boolean) =>
    cell(`caution ${pct(r.cautionAt100, r.agents)}`, target ? r.cautionAt100 >= 0.85 * r.agents : null, { cautionShare: r.cautionAt100 / r.agents });
  rows.push({ key: "bad", attack: "40%-success agents after 100 reports", target: "caution ≥ 85%", cost: "", v2: v2Cell(runs[2], (r) => badCell(r.bad, false)), v3: badCell(runs[3].bad, true) });
  const aucCell = (r: Record<string, ProfileRun>, target: boolean) => {
    const a = CHECKPOINTS.map((k) => auc(r.good.compositeAt[k], r.bad.compositeAt[k]));
    return cell(a.map((x) => x.toFixed(4)).join(" / "), target ? a.every((x) => x >= 0.99) : null, { at10: a[0], at30: a[1], at100: a[2] });
  };
  rows.push({ key: "auc", attack: "AUC good vs bad at 10 / 30 / 100 reports (composite)", target: "≥ 0.99 each", cost: "", v2: v2Cell(runs[2], (r) => aucCell(r, false)), v3: aucCell(runs[3], true) });
  for (const standingShare of [0.3, 1]) {
    const g = runProfile(run, 3, "good", { count: size.agentsPerShare, standingShare });
    const b = runProfile(run, 3, "bad", { count: size.agentsPerShare, standingShare });
    const c = goodCell(g, false);
    rows.push({
      key: `standing-${standingShare * 100}`,
      attack: `the same population with ${standingShare * 100}% of reporters holding standing (${size.agentsPerShare} good, ${size.agentsPerShare} bad)`,
      target: "shown (the price of standing)",
      cost: "",
      v2: null,
      v3: cell(`good: ${c.text}; bad: caution ${pct(b.cautionAt100, b.agents)}`, null, { ...c.figures, badCaution: b.cautionAt100 / b.agents }),
    });
  }
  for (const p of PROFILES) {
    const r = runs[3][p];
    notes.push(
      `v3 ${p} (${POPULATION.profiles[p] * 100}% success): clear after median ${count(median(r.firstClear))} reports, clear at 100 ${pct(r.clearAt100, r.agents)}, ` +
        `ever caution ${pct(r.everCaution, r.agents)}, caution at 100 ${pct(r.cautionAt100, r.agents)}, median composite at 10 / 30 / 100 reports ` +
        CHECKPOINTS.map((k) => median(r.compositeAt[k])).join(" / "),
    );
  }

  // The exit scam, on the good agents kept at their 100th report.
  const scam = { 2: v2Cell(runs[2], (r) => exitScam(r.good)), 3: exitScam(runs[3].good) };
  const scamCell = (s: ReturnType<typeof exitScam>, target: boolean) => {
    const w = [median(s.withdrawn), quantile(s.withdrawn, 0.9)];
    const c = [median(s.caution), quantile(s.caution, 0.9)];
    const pass = target ? w[0] <= 10 && w[1] <= 20 && c[0] <= 25 && c[1] <= 40 : null;
    return cell(`clear withdrawn after ${count(w[0])} (p90 ${count(w[1])}) of ${s.clearAtSwitch} clear; caution after ${count(c[0])} (p90 ${count(c[1])})`, pass, {
      withdrawnMedian: w[0],
      withdrawnP90: w[1],
      cautionMedian: c[0],
      cautionP90: c[1],
    });
  };
  rows.push({
    key: "exit-scam",
    attack: "exit scam: a good agent with 100 reports turns to 0% success (failed transactions counted)",
    target: "clear withdrawn within a median ≤ 10 (p90 ≤ 20), caution within a median ≤ 25 (p90 ≤ 40)",
    cost: "",
    v2: v2Cell(scam[2], (s) => scamCell(s, false)),
    v3: scamCell(scam[3], true),
  });

  // Provider flips and idleness, on the bad and awful agents in caution at their 40th report.
  const at40 = (r: Record<string, ProfileRun>) => [...r.bad.cautionAt40, ...r.awful.cautionAt40];
  const cautionAt40 = { 2: v2Cell(runs[2], at40), 3: at40(runs[3]) };
  const flipCell = (list: { agent: Scorer; at: number }[], target: boolean) => {
    let stayed = 0;
    let higher = 0;
    for (const { agent, at } of list) {
      const flipped = agent.fork();
      let always = true;
      for (let f = 1; f <= 4; f++) {
        flipped.providerChange(at + f * HOUR);
        if (flipped.view(at + f * HOUR).recommendation !== "caution") always = false;
      }
      if (always) stayed++;
      if (flipped.view(at + 4 * HOUR).composite > agent.view(at + 4 * HOUR).composite) higher++;
    }
    return cell(`still caution ${pct(stayed, list.length)}, composite higher in ${higher} of ${list.length}`, target ? list.length > 0 && stayed === list.length && higher === 0 : null, {
      agents: list.length,
      stayed,
      higher,
    });
  };
  rows.push({
    key: "flips",
    attack: "caution agent after 4 provider flips (bad and awful agents in caution at 40 reports)",
    target: "still caution, composite not higher",
    cost: "",
    v2: v2Cell(cautionAt40[2], (l) => flipCell(l, false)),
    v3: flipCell(cautionAt40[3], true),
  });
  const idleCell = (list: { agent: Scorer; at: number }[], target: boolean) => {
    const idle = list.map(({ agent, at }) => idleDaysInCaution(agent, at));
    const med = median(idle);
    const min = Math.min(...idle);
    return cell(`median ${days(med)}, minimum ${days(min)}`, target ? list.length > 0 && med >= 600 && min >= 365 : null, { agents: list.length, median: med, minimum: min });
  };
  rows.push({
    key: "idle",
    attack: "idle caution agent (40 reports; the same agents) until it leaves caution",
    target: "median ≥ 600 days, minimum ≥ 365",
    cost: "",
    v2: v2Cell(cautionAt40[2], (l) => idleCell(l, false)),
    v3: idleCell(cautionAt40[3], true),
  });

  // The owner sends 1,000 self-reports on its own new agent within a day (receipts, identity level 2).
  const selfCell = (model: ModelVersion) => {
    const agent = scorerFor(run, model, OWNER_ID, T0, 2);
    let max = -Infinity;
    let clear = false;
    for (const r of attackStream([OWNER_ID], "praise", { burst: 0, perDay: 1000 }, T0, T0 + DAY)) {
      agent.report(r);
      const v = agent.view(r.at);
      max = Math.max(max, v.composite);
      if (v.recommendation === "clear") clear = true;
    }
    return cell(`highest composite ${max}, clear ${clear ? "yes" : "never"}`, model === 3 ? max <= 700 && !clear : null, { highest: max, clear: clear ? 1 : 0 });
  };
  rows.push({ key: "self-reports", attack: "owner's 1,000 self-reports on its own agent (one day, receipts)", target: "composite ≤ 700, never clear", cost: "the owner alone", ...cells(byModel(run, selfCell)) });
  return { rows, notes };
}
