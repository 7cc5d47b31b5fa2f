// Rows about rings, colluders and competitors, each beside its victims' honest traffic (never on an
// empty agent alone), at several join times, with new accounts (verified, no standing) and aged ones
// (full standing from the world's standing job).

import { byModel, scorerFor, type Run } from "./context";
import { drive } from "./drive";
import { DAY, T0, attackStream } from "./population";
import type { ModelVersion } from "./scorers";
import { cell, days, pct, type Cell, type Row } from "./table";
import { JOINS, joinName, streamFrom, upToJoin, victim, type Join, type Victim } from "./victims";
import { median } from "./random";


export const NEW_IDS = 6000;
/** Colluders are attackers of a caution agent: joining at its first report makes them a ring (the ring rows). */
export const CAUTION_JOINS = JOINS.filter((j) => j !== "first report");
const newAccounts = (k: number, offset = 0) => Array.from({ length: k }, (_, i) => NEW_IDS + offset + i);
const agedAccounts = (run: Run, k: number, offset = 0) => run.world.aged.slice(offset, offset + k).map((r) => r.id);

const RATES = [
  { name: "1 a day", volume: { burst: 0, perDay: 1 } },
  { name: "50 at once, then 4 a day", volume: { burst: 50, perDay: 4 } },
];
const PRAISE = { burst: 20, perDay: 2 };
const SLANDER = { burst: 20, perDay: 2 };

/** A ring praising a new agent from its first report: an empty agent, and bad agents with their honest traffic. */
function ring(run: Run, model: ModelVersion, attackers: number[], victims: Victim[], windowDays: number) {
  let runs = 0;
  let clear = 0;
  const firstClear: number[] = [];
  for (const rate of RATES) {
    for (const v of [null, ...victims]) {
      const agent = scorerFor(run, model, 11, T0, 2);
      const end = T0 + windowDays * DAY;
      const attack = attackStream(attackers, "praise", rate.volume, T0, end);
      const w = drive(agent, v ? streamFrom(v, 0, end, attack) : attack, end);
      runs++;
      if (w.everClear) {
        clear++;
        firstClear.push((w.firstClearAt - T0) / DAY);
      }
    }
  }
  return { runs, clear, firstClear };
}

interface ColluderOutcome {
  victims: number;
  clear: number;
  /** Out of caution at the window's end, with and without the colluders. */
  escaped: number;
  baselineEscaped: number;
}

/** The same agents without colluders: out of caution at the window's end (computed once per join and window). */
const baselines = new WeakMap<Victim, Map<string, boolean | null>>();
function baselineEscaped(run: Run, model: ModelVersion, v: Victim, join: Join, windowDays: number): boolean | null {
  const key = `${model}/${join}/${windowDays}/${run.signalMean.kind}`;
  const cache = baselines.get(v) ?? new Map<string, boolean | null>();
  baselines.set(v, cache);
  if (!cache.has(key)) {
    const start = upToJoin(run, model, v, join, true, 2);
    cache.set(key, start ? drive(start.agent, streamFrom(v, start.next, start.at + windowDays * DAY), start.at + windowDays * DAY).last !== "caution" : null);
  }
  return cache.get(key)!;
}

/** Colluders praising a bad agent with 6 honest reporters from a join point, for `windowDays`. */
export function colluders(run: Run, model: ModelVersion, attackers: number[], victims: Victim[], join: Join, windowDays: number): ColluderOutcome {
  const out: ColluderOutcome = { victims: 0, clear: 0, escaped: 0, baselineEscaped: 0 };
  for (const v of victims) {
    const start = upToJoin(run, model, v, join, true, 2);
    if (!start) continue;
    out.victims++;
    const end = start.at + windowDays * DAY;
    const attacked = drive(start.agent, streamFrom(v, start.next, end, attackStream(attackers, "praise", PRAISE, start.at + 60_000, end)), end);
    if (attacked.everClear) out.clear++;
    if (attacked.last !== "caution") out.escaped++;
    if (baselineEscaped(run, model, v, join, windowDays)) out.baselineEscaped++;
  }
  return out;
}

function colluderCell(results: { k: number; join: Join; o: ColluderOutcome }[], target: boolean): Cell {
  let worst = -Infinity;
  let clear = 0;
  let victims = 0;
  const parts: string[] = [];
  for (const { k, join, o } of results) {
    const excess = o.victims === 0 ? 0 : (o.escaped - o.baselineEscaped) / o.victims;
    worst = Math.max(worst, excess);
    clear += o.clear;
    victims += o.victims;
    if (o.clear > 0 || excess > 0.02) parts.push(`k=${k} ${joinName(join)}: clear ${o.clear}/${o.victims}, out of caution ${pct(o.escaped, o.victims)} vs ${pct(o.baselineEscaped, o.victims)}`);
  }
  const text = `clear ${clear} of ${victims} runs; out of caution at most ${(100 * worst).toFixed(1)} points above the same agents alone` + (parts.length ? ` (${parts.slice(0, 3).join("; ")})` : "");
  return cell(text, target ? clear === 0 && worst <= 0.02 : null, { runs: victims, clear, worstExcess: worst });
}

/** One or two competitors slander good agents from a join point; the share ever in caution in the window. */
function competitors(run: Run, model: ModelVersion, attackers: number[], victims: Victim[], join: Join, windowDays: number) {
  let n = 0;
  let caution = 0;
  let clearWith = 0;
  for (const v of victims) {
    const start = upToJoin(run, model, v, join, false);
    if (!start) continue;
    n++;
    const end = start.at + windowDays * DAY;
    const attacked = drive(start.agent, streamFrom(v, start.next, end, attackStream(attackers, "slander", SLANDER, start.at + 60_000, end)), end);
    if (attacked.everCaution) caution++;
    if (attacked.last === "clear") clearWith++;
  }
  return { n, caution, clearWith };
}

export function attackRows(run: Run): { rows: Row[]; notes: string[] } {
  const { size } = run;
  const rows: Row[] = [];
  const notes: string[] = [];
  const both = <T>(f: (m: ModelVersion) => T) => byModel(run, f);

  // Rings of new accounts praising a new agent, k = 2..10, two rates, 60 days.
  const ringVictims = Array.from({ length: Math.max(1, Math.round(size.victims / 20)) }, (_, i) => victim(run, "ring", "bad", i, 60));
  const ringNew = both((m) => {
    let runs = 0;
    let clear = 0;
    const hits: string[] = [];
    for (const k of size.ringKs) {
      const r = ring(run, m, newAccounts(k), ringVictims, 60);
      runs += r.runs;
      clear += r.clear;
      if (r.clear > 0) hits.push(`k=${k}: ${r.clear}/${r.runs}`);
    }
    return cell(`clear in ${clear} of ${runs} runs${hits.length ? ` (${hits.join(", ")})` : ""}`, m === 3 ? clear === 0 : null, { runs, clear });
  });
  rows.push({
    key: "ring-new",
    attack: `ring of k = ${size.ringKs.length === 9 ? "2..10" : size.ringKs.join(", ")} new accounts praising a new agent (receipts, level 2, 60 days, 1 a day or 50 at once then 4 a day; an empty agent and ${ringVictims.length} bad agents with their honest traffic)`,
    target: "never clear",
    cost: "k verified accounts (k ≤ 10)",
    v2: ringNew[2],
    v3: ringNew[3],
  });
  const ringAged = both((m) => {
    const parts: string[] = [];
    const figures: Record<string, number> = {};
    for (const k of [3, 5, 10]) {
      const r = ring(run, m, agedAccounts(run, k), ringVictims, 30);
      const d = median(r.firstClear);
      parts.push(`k=${k}: clear in ${r.clear}/${r.runs}, after ${days(r.firstClear.length ? Math.round(10 * d) / 10 : Infinity)}`);
      figures[`k${k}Clear`] = r.clear;
      figures[`k${k}Days`] = r.firstClear.length ? d : Infinity;
    }
    return cell(parts.join("; "), null, figures);
  });
  rows.push({
    key: "ring-aged",
    attack: "ring of k ≥ 3 aged accounts praising a new agent (as above, 30 days)",
    target: "priced (median days to clear)",
    cost: "k accounts × 30 owner-days of receipted dealings with 3 other owners' agents, + the days shown",
    v2: ringAged[2],
    v3: ringAged[3],
  });

  // Colluders vs a caution agent with 6 honest reporters.
  const colluderVictims = Array.from({ length: size.victims / 5 }, (_, i) => victim(run, "colluders", "bad", i, 160, 6));
  const colluderRow = (key: string, label: string, ks: number[], accounts: (k: number) => number[], windowDays: number, target: boolean, cost: string) => {
    const measured = both((m) => {
      const results = [];
      for (const k of ks) for (const join of CAUTION_JOINS) results.push({ k, join, o: colluders(run, m, accounts(k), colluderVictims, join, windowDays) });
      return colluderCell(results, m === 3 && target);
    });
    rows.push({
      key,
      attack: `${label} vs a caution agent with 6 honest reporters (${colluderVictims.length} bad agents; joining ${CAUTION_JOINS.map(joinName).join(", ")} while it is in caution; ${windowDays} days)`,
      target: target ? "never clear; out of caution no more often than the same agents without them, + 2 points" : "priced",
      cost,
      v2: measured[2],
      v3: measured[3],
    });
  };
  colluderRow("colluders-new", "k = 2, 3, 5, 10 new colluders", [2, 3, 5, 10], (k) => newAccounts(k), 60, true, "k verified accounts");
  colluderRow("colluders-aged", "k = 2, 3, 4 aged colluders", [2, 3, 4], (k) => agedAccounts(run, k), 30, true, "k × 30 owner-days");
  colluderRow("colluders-aged-more", "k = 6, 10 aged colluders", [6, 10], (k) => agedAccounts(run, k), 60, false, "k × 30 owner-days, + 30 days on the agent");

  // Competitors beside good agents' honest traffic.
  const competitorVictims = Array.from({ length: size.competitorVictims }, (_, i) => victim(run, "competitor", "good", i, size.attackDays + 1));
  const competitorRow = (key: string, label: string, accounts: number[], target: number | null, cost: string) => {
    const measured = both((m) => {
      const r = competitors(run, m, accounts, competitorVictims, "first report", size.attackDays);
      return cell(`ever caution ${pct(r.caution, r.n)}`, m === 3 && target !== null ? r.caution <= target * r.n : null, { n: r.n, caution: r.caution });
    });
    rows.push({
      key,
      attack: `${label} beside a good agent's honest traffic, from its first report (${competitorVictims.length} agents, ${size.attackDays} days)`,
      target: target === null ? "priced" : `ever caution ≤ ${target * 100}%`,
      cost,
      v2: measured[2],
      v3: measured[3],
    });
  };
  const bound = size.competitorVictims >= 1000 ? 0.03 : 0.06;
  competitorRow("competitor-new", "one new-account competitor", newAccounts(1), bound, "1 verified account");
  competitorRow("competitor-aged", "one aged competitor", agedAccounts(run, 1), bound, "30 owner-days");
  competitorRow("competitors-new", "two new-account competitors", newAccounts(2), bound, "2 verified accounts");

  // Competitors joining later, and two aged competitors (residual attacks, priced).
  const later = competitorVictims.slice(0, size.victims / 2);
  const laterRows = both((m) => {
    const parts: string[] = [];
    for (const [name, accounts] of [
      ["one aged", agedAccounts(run, 1)],
      ["two aged", agedAccounts(run, 2)],
    ] as const) {
      for (const join of ["first report", 10, 100] as Join[]) {
        const r = competitors(run, m, [...accounts], later, join, size.attackDays);
        parts.push(`${name} ${joinName(join)}: caution ${pct(r.caution, r.n)}`);
      }
    }
    return cell(parts.join("; "), null, {});
  });
  rows.push({
    key: "competitors-aged-later",
    attack: `aged competitors joining later (${later.length} good agents, ${size.attackDays} days)`,
    target: "priced (two aged competitors: residual)",
    cost: "30 owner-days per account",
    v2: laterRows[2],
    v3: laterRows[3],
  });
  return { rows, notes };
}
