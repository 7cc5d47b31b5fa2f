// Victims of an attack: agents of the population with their honest reports written out, so that the
// same agent can be run with and without attackers from the same moment.

import { scorerFor, type Run } from "./context";
import { DAY, OWNER_ID, T0, attackStream, honestStream, makeAgent, merge, type Profile, type SimReport } from "./population";
import type { Scorer } from "./scorers";

export interface Victim {
  index: number;
  reports: SimReport[];
}

/** The agent's honest reports for its first `days` days. */
export function victim(run: Run, tag: string, profile: Profile, index: number, daysLong: number, reporters?: number): Victim {
  const sim = makeAgent(`${run.seed}/${tag}`, run.world.pool, profile, index, { signalMean: run.signalMean, reporters });
  const reports: SimReport[] = [];
  for (const r of honestStream(sim, T0)) {
    if (r.at >= T0 + daysLong * DAY) break;
    reports.push(r);
  }
  return { index, reports };
}

/** When attackers join: at the agent's first report, its first caution, or its n-th report (in caution, where the attack needs it). */
export type Join = "first report" | "first caution" | 10 | 40 | 100;
export const joinName = (j: Join) => (typeof j === "number" ? `at ${j} reports` : `at its ${j}`);

/**
 * Runs the victim's honest reports on a fresh agent up to the join point. Returns the agent there and
 * the index of the next report, or null when the join never comes (no caution, or not in caution at
 * the n-th report while `needCaution`).
 */
export function upToJoin(run: Run, v: Victim, join: Join, needCaution: boolean, identityLevel?: number): { agent: Scorer; next: number; at: number } | null {
  const agent = scorerFor(run, OWNER_ID, T0, identityLevel);
  if (join === "first report") return { agent, next: 0, at: v.reports[0]?.at ?? T0 };
  for (let i = 0; i < v.reports.length; i++) {
    agent.report(v.reports[i]);
    const rec = agent.view(v.reports[i].at).recommendation;
    if (join === "first caution" && rec === "caution") return { agent, next: i + 1, at: v.reports[i].at };
    if (typeof join === "number" && i + 1 === join) return !needCaution || rec === "caution" ? { agent, next: i + 1, at: v.reports[i].at } : null;
  }
  return null;
}

/** The victim's remaining honest reports from `next` until `until`, with an attack stream merged in. */
export function streamFrom(v: Victim, next: number, until: number, attack?: Iterator<SimReport>): Iterator<SimReport> {
  function* honest() {
    for (let i = next; i < v.reports.length && v.reports[i].at < until; i++) yield v.reports[i];
  }
  return attack ? merge(honest(), attack) : honest();
}

export { attackStream };
