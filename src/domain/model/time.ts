// When an agent's score can next change by time alone (the object's alarm): a recent bucket leaving
// the 48-hour window, a failing bucket leaving the 30 days, a tenure bucket maturing, or the tenure
// rule ending 90 days after the last caution. Between entries nothing else moves.

import { MODEL_V4 } from "./constants";
import type { AgentModel } from "./aggregate";
import { DAY_MS, HOUR_MS } from "./vocabulary";

export function nextChangeAt(model: AgentModel, now: number): number | null {
  const times: number[] = [];
  for (const b of model.recent) times.push((b.hour + MODEL_V4.fastCaution.windowMs / HOUR_MS) * HOUR_MS);
  for (const b of model.failing) times.push((b.day + MODEL_V4.recentFailures.windowMs / DAY_MS) * DAY_MS);
  for (const b of model.pending) times.push(b.day * DAY_MS);
  const e = model.episode;
  if (model.pending.length > 0 && !e.open && e.lastAt !== null) times.push(e.lastAt + MODEL_V4.episode.afterMs + 1);
  const later = times.filter((t) => t > now);
  return later.length === 0 ? null : Math.min(...later);
}
