// Rows about rings, colluders and competitors, each beside its victims' honest traffic, at several
// join times, with new accounts (no receipted dealings: c = 0) and aged ones (3 receipted dealings
// with trusted owners' agents, 40 days before: c = 1 from the world's job).

import { scorerFor, type Run } from "./context";
import { drive } from "./drive";
import { DAY, T0, attackStream } from "./population";
import { median } from "./random";
import { cell, days, pct, type Cell, type Row } from "./table";
import { joinName, streamFrom, upToJoin, victim, type Join, type Victim } from "./victims";

export const NEW_IDS = 6000;
const newAccounts = (k: number, offset = 0) => Array.from({ length: k }, (_, i) => NEW_IDS + offset + i);
export const agedAccounts = (run: Run, k: number, offset = 0) => run.world.aged.slice(offset, offset + k).map((r) => r.id);
export const AGED_PRICE = "3 receipted dealings with trusted owners + 30 days";

const RATES = [
  { name: "1 a day", volume: { burst: 0, perDay: 1 } },
  { name: "50 at once, then 4 a day", volume: { burst: 50, perDay: 4 } },
];
const PRAISE = { burst: 20, perDay: 2 };
const SLANDER = { burst: 20, perDay: 2 };
const CAUTION_JOINS: Join[] = ["first caution", 10, 40, 100];

/** A ring praising from the agent's first report: an empty agent, and bad agents with their honest traffic. */
function ring(run: Run, attackers: number[], victims: Victim[], windowDays: number) {
  let runs = 0;
  let clear = 0;
  const firstClear: number[] = [];
  for (const rate of RATES) {
    for (const v of [null, ...victims]) {
      const agent = scorerFor(run, 90, T0, 2);
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

interface Outcome {
  victims: number;
  clear: number;
  /** Out of caution at the window's end, with and without the attackers. */
  escaped: number;
  baselineEscaped: number;
}

/** Attackers praising a bad agent with its honest reporters from a join point while it is in caution, for `windowDays`. */
export function colluders(run: Run, attackers: number[], victims: Victim[], join: Join, windowDays: number): Outcome {
  const out: Outcome = { victims: 0, clear: 0, escaped: 0, baselineEscaped: 0 };
  for (const v of victims) {
    const start = upToJoin(run, v, join, true, 2);
    if (!start) continue;
    out.victims++;
    const end = start.at + windowDays * DAY;
    const alone = drive(start.agent.fork(), streamFrom(v, start.next, end), end);
    const attacked = drive(start.agent, streamFrom(v, start.next, end, attackStream(attackers, "praise", PRAISE, start.at + 60_000, end)), end);
    if (attacked.everClear) out.clear++;
    if (attacked.last !== "caution") out.escaped++;
    if (alone.last !== "caution") out.baselineEscaped++;
  }
  return out;
}

function colluderCell(results: { k: number; join: Join; o: Outcome }[], target: boolean): Cell {
  let worst = 0;
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
  return cell(text, target ? victims > 0 && clear === 0 && worst <= 0.02 : null, { runs: victims, clear, worstExcess: worst });
}

/**
 * Competitors slander good agents from a join point: the agents ever in caution in the window, and
 * those the attack put there (in caution with it, never without it: honest traffic alone cautions a
 * few good agents, the good agents' row says how many).
 */
function competitors(run: Run, attackers: number[], victims: Victim[], join: Join, windowDays: number) {
  let n = 0;
  let caution = 0;
  let caused = 0;
  for (const v of victims) {
    const start = upToJoin(run, v, join, false);
    if (!start) continue;
    n++;
    const end = start.at + windowDays * DAY;
    const alone = drive(start.agent.fork(), streamFrom(v, start.next, end), end).everCaution;
    const attacked = drive(start.agent, streamFrom(v, start.next, end, attackStream(attackers, "slander", SLANDER, start.at + 60_000, end)), end).everCaution;
    if (attacked) caution++;
    if (attacked && !alone) caused++;
  }
  return { n, caution, caused };
}

export function attackRows(run: Run): { rows: Row[]; notes: string[] } {
  const { size } = run;
  const rows: Row[] = [];

  // Rings of new accounts praising a new agent (k = 2..10, two rates, 60 days), or a bad agent from its first caution.
  const ringVictims = Array.from({ length: Math.max(1, Math.round(size.victims / 20)) }, (_, i) => victim(run, "ring", "bad", i, 60));
  const cautionVictims = Array.from({ length: Math.max(2, Math.round(size.victims / 5)) }, (_, i) => victim(run, "colluders", "bad", i, 160, 6));
  let runs = 0;
  let clear = 0;
  let lifted = 0;
  let lifts = 0;
  const hits: string[] = [];
  for (const k of size.ringKs) {
    const r = ring(run, newAccounts(k), ringVictims, 60);
    runs += r.runs;
    clear += r.clear;
    if (r.clear > 0) hits.push(`k=${k}: ${r.clear}/${r.runs}`);
    const c = colluders(run, newAccounts(k), cautionVictims, "first caution", 60);
    clear += c.clear;
    runs += c.victims;
    lifts += c.victims;
    lifted += Math.max(0, c.escaped - c.baselineEscaped);
  }
  rows.push({
    key: "ring-new",
    attack: `ring of k = ${size.ringKs.join(", ")} new accounts praising a new agent (an empty one and ${ringVictims.length} bad agents with their traffic; 1 a day, or 50 at once then 4 a day; 60 days) or a bad agent from its first caution (${cautionVictims.length} agents)`,
    target: "never clear; never lifts a caution",
    price: "k accounts, no receipted dealings",
    cell: cell(`clear in ${clear} of ${runs} runs${hits.length ? ` (${hits.join(", ")})` : ""}; caution lifted beyond the agents alone in ${lifted} of ${lifts}`, clear === 0 && lifted === 0, { runs, clear, lifted }),
  });

  const agedParts: string[] = [];
  const agedFigures: Record<string, number> = {};
  for (const k of [3, 5, 10]) {
    const r = ring(run, agedAccounts(run, k), ringVictims, 30);
    const d = r.firstClear.length ? median(r.firstClear) : Infinity;
    agedParts.push(`k=${k}: clear in ${r.clear}/${r.runs}, after ${days(Number.isFinite(d) ? Math.round(10 * d) / 10 : d)}`);
    agedFigures[`k${k}Clear`] = r.clear;
  }
  rows.push({
    key: "ring-aged",
    attack: "ring of k ≥ 3 aged accounts with real receipted dealings praising a new agent (as above, 30 days)",
    target: "priced",
    price: `k accounts × (${AGED_PRICE})`,
    cell: cell(agedParts.join("; "), null, agedFigures),
  });

  const colluderRow = (key: string, label: string, ks: number[], accounts: (k: number) => number[], windowDays: number, target: boolean, price: string) => {
    const results = [];
    for (const k of ks) for (const join of CAUTION_JOINS) results.push({ k, join, o: colluders(run, accounts(k), cautionVictims, join, windowDays) });
    rows.push({
      key,
      attack: `${label} vs a caution agent with 6 honest reporters (${cautionVictims.length} bad agents; joining ${CAUTION_JOINS.map(joinName).join(", ")} while it is in caution; ${windowDays} days)`,
      target: target ? "never clear; out of caution no more often than the same agents without them, + 2 points (version 3's)" : "priced",
      price,
      cell: colluderCell(results, target),
    });
  };
  colluderRow("colluders-new", "k = 2, 3, 5, 10 new colluders", [2, 3, 5, 10], (k) => newAccounts(k, 100), 60, true, "k accounts, no receipted dealings");
  colluderRow("colluders-aged", "k = 2, 3, 4 aged colluders", [2, 3, 4], (k) => agedAccounts(run, k, 10), 30, true, `k accounts × (${AGED_PRICE})`);
  colluderRow("colluders-aged-more", "k = 6, 10 aged colluders", [6, 10], (k) => agedAccounts(run, k, 10), 60, false, `k accounts × (${AGED_PRICE}), + 30 days on the agent`);

  // Competitors beside good agents' honest traffic, joining at its first report, at 10 and at 100 reports.
  const victims = Array.from({ length: size.competitorVictims }, (_, i) => victim(run, "competitor", "good", i, size.attackDays + 16));
  const later = victims.slice(0, Math.max(1, size.victims / 2));
  const competitorRow = (key: string, label: string, accounts: number[], bound: number | null, price: string) => {
    const joins: [Join, Victim[]][] = [["first report", victims], [10, later], [100, later]];
    let n = 0;
    let caused = 0;
    let caution = 0;
    const parts: string[] = [];
    for (const [join, list] of joins) {
      const r = competitors(run, accounts, list, join, size.attackDays);
      n += r.n;
      caused += r.caused;
      caution += r.caution;
      parts.push(`${joinName(join)} ${pct(r.caused, r.n)} of ${r.n}`);
    }
    rows.push({
      key,
      attack: `${label} slandering a good agent beside its honest traffic (${size.attackDays} days): agents it puts in caution`,
      target: bound === null ? "priced" : `ever caution ≤ ${bound * 100}%`,
      price,
      cell: cell(`${pct(caused, n)} (${parts.join("; ")}); ever caution with it ${pct(caution, n)}`, bound === null ? null : caused <= bound * n, { n, caused, caution }),
    });
  };
  competitorRow("competitor-new", "one new-account competitor", newAccounts(1, 200), 0.03, "1 account, no receipted dealings");
  competitorRow("competitor-aged", "one aged competitor", agedAccounts(run, 1, 20), 0.1, `1 account × (${AGED_PRICE})`);
  competitorRow("competitors-aged-two", "two aged competitors", agedAccounts(run, 2, 21), null, `2 accounts × (${AGED_PRICE})`);
  return { rows, notes: [] };
}
