// The honest population: every agent's first 100 reports, under either model, with what the other
// rows start from (caution agents at 40 reports, good agents at 100 with their streams).

import { scorerFor, type Run } from "./context";
import { honestStream, makeAgent, T0, type Profile, type SimAgent, type SimReport } from "./population";
import type { ModelVersion, AgentStub } from "./scorers";

export const CHECKPOINTS = [10, 30, 100] as const;

export interface Kept {
  sim: SimAgent;
  agent: AgentStub;
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
  cautionAt40: { agent: AgentStub; at: number }[];
  /** The first `keepAt100` agents at their 100th report, with their streams. */
  at100: Kept[];
}

export function runProfile(
  run: Run,
  model: ModelVersion,
  profile: Profile,
  options: { count: number; standingShare?: number; keepAt100?: number; keepCaution?: boolean },
): ProfileRun {
  const out: ProfileRun = {
    agents: options.count,
    firstClear: [],
    everCaution: 0,
    clearAt100: 0,
    cautionAt100: 0,
    compositeAt: { 10: [], 30: [], 100: [] },
    cautionAt40: [],
    at100: [],
  };
  for (let i = 0; i < options.count; i++) {
    const sim = makeAgent(run.seed, run.world.pool, profile, i, { signalMean: run.signalMean, standingShare: options.standingShare });
    const agent = scorerFor(run, model, sim.ownerId, T0);
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
