// Rows about the operator score (dummy agents fed by friends, an operator's agents slandered) and
// whitewashing (a caution agent re-registered by its owner with the same configuration or key).

import { applyInheritance, inheritanceFrom, isWhitewashSource, operatorScore, type Contribution } from "../../src/domain/model/index";
import { scorerFor, type Run } from "./context";
import { drive, feed } from "./drive";
import { DAY, HOUR, OWNER_ID, T0, attackStream, honestStream, makeAgent, merge } from "./population";
import type { Scorer } from "./scorers";
import { AGED_PRICE, NEW_IDS, agedAccounts } from "./rows-attacks";
import { cell, pct, type Row } from "./table";
import { streamFrom, victim } from "./victims";

const DUMMIES = 10;

/** The operator's 10 dummy agents, each praised (or slandered) hourly by `accounts` for 7 days: their contributions on day 7. */
function dummies(run: Run, accounts: number[], kind: "praise" | "slander"): Contribution[] {
  const end = T0 + 7 * DAY;
  return Array.from({ length: DUMMIES }, (_, i) => {
    const agent = scorerFor(run, OWNER_ID, T0, 2);
    drive(agent, attackStream(accounts, kind, { burst: 0, perDay: 24 }, T0 + i * 60_000, end), end);
    return agent.contribution(end);
  });
}

/** Good agents of an operator with their honest traffic, 30 days; with `slanderer`, one account slanders each from day 1. */
function ownAgents(run: Run, count: number, slanderer: number | null): Contribution[] {
  const end = T0 + 30 * DAY;
  return Array.from({ length: count }, (_, i) => {
    const sim = makeAgent(`${run.seed}/operator`, run.world.pool, "good", i, { signalMean: run.signalMean });
    const agent = scorerFor(run, OWNER_ID, T0);
    const honest = honestStream(sim, T0);
    drive(agent, slanderer === null ? honest : merge(honest, attackStream([slanderer], "slander", { burst: 20, perDay: 2 }, T0 + HOUR, end)), end);
    return agent.contribution(end);
  });
}

/** The object's part of whitewashing: the old agent is a source, so the new one appends its inheritance entry. */
function inherit(copy: Scorer, old: Scorer, at: number): void {
  if (!isWhitewashSource(old.model, { now: at, suspended: false })) return;
  const entry = inheritanceFrom(old.model, old.pairs, at, { suspended: false });
  if (!entry) return;
  const r = applyInheritance(copy.model, copy.pairs, entry);
  copy.model = r.model;
  for (const p of r.pairs) copy.pairs.set(p.reporter, p);
}

export function operatorRows(run: Run): { rows: Row[]; notes: string[] } {
  const { size, world } = run;
  const rows: Row[] = [];
  const own = ownAgents(run, size.operators, null);
  const parts: string[] = [];
  let worst = 0;
  const figures: Record<string, number> = {};
  for (const k of [1, 2, 4, 7, 8, 10]) {
    const d = dummies(run, Array.from({ length: k }, (_, j) => NEW_IDS + 300 + j), "praise");
    let moves = Math.abs(operatorScore(d) - 500);
    for (const o of own) moves = Math.max(moves, Math.abs(operatorScore([o, ...d]) - operatorScore([o])));
    worst = Math.max(worst, moves);
    figures[`k${k}`] = moves;
    parts.push(`k=${k}: ${moves}`);
  }
  const alone = dummies(run, agedAccounts(run, 1, 23), "slander");
  figures.competitor = Math.abs(operatorScore(alone) - 500);
  worst = Math.max(worst, figures.competitor);
  rows.push({
    key: "operator",
    attack: `operator score: k new accounts praise an operator's ${DUMMIES} dummy agents hourly for 7 days (alone, and beside ${size.operators} good agents of its own), or one aged competitor slanders them`,
    target: "moves ≤ 10 (version 3's)",
    price: `k accounts; 1 account × (${AGED_PRICE})`,
    cell: cell(`k new accounts: moves ${parts.join(", ")}; one aged competitor: ${figures.competitor}`, worst <= 10, { worst, ...figures }),
  });
  const slandered = ownAgents(run, size.operators, agedAccounts(run, 1, 24)[0]);
  rows.push({
    key: "operator-slandered",
    attack: `one aged competitor slanders an operator's ${size.operators} good agents beside their honest traffic (30 days)`,
    target: "priced",
    price: `1 account × (${AGED_PRICE})`,
    cell: cell(`operator score moves ${operatorScore(slandered) - operatorScore(own)} (from ${operatorScore(own)})`, null, { move: operatorScore(slandered) - operatorScore(own) }),
  });
  const friends = dummies(run, agedAccounts(run, 2, 25), "praise");
  rows.push({
    key: "operator-aged-friends",
    attack: `two aged friends praise an operator's ${DUMMIES} dummy agents hourly for 7 days`,
    target: "priced",
    price: `2 accounts × (${AGED_PRICE})`,
    cell: cell(`operator score ${operatorScore(friends)} (from 500)`, null, { score: operatorScore(friends) }),
  });

  // Whitewashing: bad agents with 6 honest reporters in caution at 40 reports are re-registered.
  const sources = Array.from({ length: size.victims }, (_, i) => victim(run, "whitewash", "bad", i, 90, 6));
  let n = 0;
  let byConfig = 0;
  let byKey = 0;
  let after30 = 0;
  for (const v of sources) {
    const old = scorerFor(run, OWNER_ID, T0);
    const { at, stopped } = feed(old, streamFrom(v, 0, Infinity), 40);
    if (stopped !== 40 || old.view(at).recommendation !== "caution") continue;
    n++;
    const copy = scorerFor(run, OWNER_ID, at + HOUR);
    inherit(copy, old, at + HOUR);
    if (copy.view(at + HOUR).recommendation === "caution") byConfig++;
    drive(copy, streamFrom(v, 40, at + 30 * DAY), at + 30 * DAY);
    if (copy.view(at + 30 * DAY).recommendation === "caution") after30++;
    const keyed = scorerFor(run, OWNER_ID, at + HOUR);
    const { at: keyAt } = feed(keyed, streamFrom(v, 40, Infinity), 10);
    inherit(keyed, old, keyAt + HOUR);
    if (keyed.view(keyAt + HOUR).recommendation === "caution") byKey++;
  }
  let fleetSources = 0;
  let fleetCaution = 0;
  for (let i = 0; i < 20; i++) {
    const sim = makeAgent(`${run.seed}/fleet`, world.pool, "good", i, { signalMean: run.signalMean });
    const agent = scorerFor(run, OWNER_ID, T0);
    const { at } = feed(agent, honestStream(sim, T0), 40);
    if (agent.view(at).recommendation === "caution") fleetCaution++;
    if (isWhitewashSource(agent.model, { now: at, suspended: false })) fleetSources++;
  }
  rows.push({
    key: "whitewash",
    attack: "whitewash: the owner re-registers a caution agent (bad, 6 reporters, caution at 40 reports) with the same configuration, or registers the same proven key on a new SID after 10 reports; a fleet of 20 identical healthy agents",
    target: "new SID in caution; the fleet is not affected",
    price: "the owner",
    cell: cell(
      `new SID in caution: same configuration ${pct(byConfig, n)} (after 30 days of its reporters: ${pct(after30, n)}), same key after 10 reports ${pct(byKey, n)}; healthy fleet: ${fleetSources} of 20 sources, ${fleetCaution} in caution`,
      n > 0 && byConfig === n && byKey === n && fleetSources === 0 && fleetCaution === 0,
      { n, byConfig, byKey, after30, fleetSources },
    ),
  });
  return { rows, notes: [] };
}
