// Rows about the operator score (dummy agents fed by friends, an operator's agents slandered) and
// whitewashing (a cautioned agent re-registered by its owner with the same configuration or key).

import { applyInheritance, inheritanceFrom, isWhitewashSource, operatorScore as operatorScoreV3 } from "../../src/domain/model/index";
import { operatorScore as operatorScoreV2 } from "../../src/domain/model-v2";
import { byModel, scorerFor, type Run } from "./context";
import { drive, feed } from "./drive";
import { DAY, HOUR, OWNER_ID, T0, attackStream, honestStream, makeAgent, merge } from "./population";
import type { ModelVersion } from "./scorers";
import { ScorerV3 } from "./scorers";
import { cell, pct, type Row } from "./table";
import { NEW_IDS } from "./rows-attacks";
import { streamFrom, victim } from "./victims";

const DUMMIES = 10;
const score = (model: ModelVersion, contributions: { evidence: number; composite: number; credible?: number }[]) =>
  model === 2 ? operatorScoreV2(contributions) : operatorScoreV3(contributions.map((c) => ({ credible: 0, ...c })));

/** The operator's 10 dummy agents, each praised (or slandered) hourly by `accounts` for 7 days: their contributions on day 7. */
function dummies(run: Run, model: ModelVersion, accounts: number[], kind: "praise" | "slander") {
  const end = T0 + 7 * DAY;
  return Array.from({ length: DUMMIES }, (_, i) => {
    const agent = scorerFor(run, model, OWNER_ID, T0, 2);
    drive(agent, attackStream(accounts, kind, { burst: 0, perDay: 24 }, T0 + i * 60_000, end), end);
    return agent.contribution(end);
  });
}

/** Good agents of operators with their honest traffic, 30 days; with `slander`, one account slanders every one of them from day 1. */
function ownAgents(run: Run, model: ModelVersion, count: number, slanderer: number | null) {
  const end = T0 + 30 * DAY;
  return Array.from({ length: count }, (_, i) => {
    const sim = makeAgent(`${run.seed}/operator`, run.world.pool, "good", i, { signalMean: run.signalMean });
    const agent = scorerFor(run, model, OWNER_ID, T0);
    const honest = honestStream(sim, T0);
    drive(agent, slanderer === null ? honest : merge(honest, attackStream([slanderer], "slander", { burst: 20, perDay: 2 }, T0 + HOUR, end)), end);
    return agent.contribution(end);
  });
}

export function operatorRows(run: Run): { rows: Row[]; notes: string[] } {
  const { size, world } = run;
  const rows: Row[] = [];
  const both = <T>(f: (m: ModelVersion) => T) => byModel(run, f);

  // Friends feeding dummy agents (k new accounts), and one aged competitor slandering new agents.
  const ownCache = new Map<ModelVersion, ReturnType<typeof ownAgents>>();
  const own = (m: ModelVersion) => ownCache.get(m) ?? ownCache.set(m, ownAgents(run, m, size.operators, null)).get(m)!;
  const operatorCell = (m: ModelVersion) => {
    const parts: string[] = [];
    let worst = 0;
    const figures: Record<string, number> = {};
    for (const k of [1, 2, 4, 7, 8, 10]) {
      const d = dummies(run, m, Array.from({ length: k }, (_, j) => NEW_IDS + j), "praise");
      let moves = Math.abs(score(m, d) - score(m, []));
      for (const o of own(m)) moves = Math.max(moves, Math.abs(score(m, [o, ...d]) - score(m, [o])));
      worst = Math.max(worst, moves);
      figures[`k${k}`] = moves;
      parts.push(`k=${k}: ${moves}`);
    }
    const alone = dummies(run, m, [world.aged[0].id], "slander");
    figures.competitor = Math.abs(score(m, alone) - score(m, []));
    worst = Math.max(worst, figures.competitor);
    const text = `k new accounts: moves ${parts.join(", ")}; one aged competitor: ${figures.competitor}`;
    return cell(text, m === 3 ? worst <= 10 : null, { worst, ...figures });
  };
  const op = both(operatorCell);
  rows.push({
    key: "operator",
    attack: `operator score: k new accounts praise an operator's ${DUMMIES} dummy agents hourly for 7 days (alone, and beside ${size.operators} good agents of its own), or one aged competitor slanders them`,
    target: "moves ≤ 10",
    cost: "k verified accounts; 30 owner-days",
    v2: op[2],
    v3: op[3],
  });
  const slander = both((m) => {
    const slandered = ownAgents(run, m, size.operators, world.aged[0].id);
    const move = score(m, slandered) - score(m, own(m));
    return cell(`operator score moves ${move} (from ${score(m, own(m))})`, null, { move });
  });
  rows.push({
    key: "operator-slandered",
    attack: `one aged competitor slanders an operator's ${size.operators} good agents beside their honest traffic (30 days)`,
    target: "priced (a lone dissenter's bounded weight on each agent)",
    cost: "30 owner-days",
    v2: slander[2],
    v3: slander[3],
  });
  const friends = both((m) => {
    const d = dummies(run, m, world.aged.slice(0, 2).map((r) => r.id), "praise");
    return cell(`operator score ${score(m, d)} (from 500)`, null, { score: score(m, d) });
  });
  rows.push({
    key: "operator-aged-friends",
    attack: `two aged friends praise an operator's ${DUMMIES} dummy agents hourly for 7 days`,
    target: "priced (residual)",
    cost: "2 × 30 owner-days",
    v2: friends[2],
    v3: friends[3],
  });

  // Whitewashing: bad agents with 6 honest reporters in caution at 40 reports are re-registered.
  const sources = Array.from({ length: size.victims }, (_, i) => victim(run, "whitewash", "bad", i, 90, 6));
  const washCell = (m: ModelVersion) => {
    let n = 0;
    let byConfig = 0;
    let byKey = 0;
    let after30 = 0;
    for (const v of sources) {
      const old = scorerFor(run, m, OWNER_ID, T0);
      const { at, stopped } = feed(old, streamFrom(v, 0, Infinity), 40);
      if (stopped !== 40 || old.view(at).recommendation !== "caution") continue;
      n++;
      // Re-registered an hour later with the same configuration; the honest reporters follow it.
      const copy = scorerFor(run, m, OWNER_ID, at + HOUR);
      if (m === 3) inherit(copy as ScorerV3, old as ScorerV3, at + HOUR);
      if (copy.view(at + HOUR).recommendation === "caution") byConfig++;
      drive(copy, streamFrom(v, 40, at + 30 * DAY), at + 30 * DAY);
      if (copy.view(at + 30 * DAY).recommendation === "caution") after30++;
      // Registered clean, 10 reports, then the same proven key.
      const keyed = scorerFor(run, m, OWNER_ID, at + HOUR);
      const { at: keyAt } = feed(keyed, streamFrom(v, 40, Infinity), 10);
      if (m === 3) inherit(keyed as ScorerV3, old as ScorerV3, keyAt + HOUR);
      if (keyed.view(keyAt + HOUR).recommendation === "caution") byKey++;
    }
    // A fleet of healthy identical agents: none is a source, so a new copy inherits nothing.
    let fleetSources = 0;
    let fleetCaution = 0;
    for (let i = 0; i < 20; i++) {
      const sim = makeAgent(`${run.seed}/fleet`, world.pool, "good", i, { signalMean: run.signalMean });
      const agent = scorerFor(run, m, OWNER_ID, T0);
      const { at } = feed(agent, honestStream(sim, T0), 40);
      if (agent.view(at).recommendation === "caution") fleetCaution++;
      if (m === 3 && isWhitewashSource((agent as ScorerV3).state, { now: at, suspended: false })) fleetSources++;
    }
    const text = `new SID in caution: same configuration ${pct(byConfig, n)} (after 30 days of its reporters: ${pct(after30, n)}), same key after 10 reports ${pct(byKey, n)}; healthy fleet: ${fleetSources} of 20 sources, ${fleetCaution} in caution`;
    return cell(text, m === 3 ? n > 0 && byConfig === n && byKey === n && fleetSources === 0 && fleetCaution === 0 : null, { n, byConfig, byKey, after30, fleetSources });
  };
  const wash = both(washCell);
  rows.push({
    key: "whitewash",
    attack: `whitewash: the owner re-registers a caution agent (bad, 6 reporters, caution at 40 reports) with the same configuration, or registers the same proven key on a new SID after 10 reports; a fleet of 20 identical healthy agents`,
    target: "the new SID starts in caution; the fleet is not affected",
    cost: "the owner",
    v2: wash[2],
    v3: wash[3],
  });
  return { rows, notes: [] };
}

/** The object's part of R6: the old agent is a source, so the new one appends its inheritance entry. */
function inherit(copy: ScorerV3, old: ScorerV3, at: number): void {
  if (!isWhitewashSource(old.state, { now: at, suspended: false })) return;
  const entry = inheritanceFrom(old.state, at, { suspended: false });
  if (entry) copy.state = applyInheritance(copy.state, entry);
}
