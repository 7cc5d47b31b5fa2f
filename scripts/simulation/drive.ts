// Feeding report streams to an agent's object and watching its recommendation after every report.

import type { SimReport } from "./population";
import type { Scorer } from "./scorers";

export interface Watched {
  everClear: boolean;
  everCaution: boolean;
  /** The recommendation after the last report before `until`. */
  last: string;
  /** Time of the first clear (Infinity: never). */
  firstClearAt: number;
  maxComposite: number;
  reports: number;
}

/** Feeds the stream until `until` (exclusive), looking at the score after every report. */
export function drive(agent: Scorer, stream: Iterator<SimReport>, until: number): Watched {
  const w: Watched = { everClear: false, everCaution: false, last: "review", firstClearAt: Infinity, maxComposite: -Infinity, reports: 0 };
  for (let r = stream.next(); !r.done && r.value.at < until; r = stream.next()) {
    agent.report(r.value);
    const view = agent.view(r.value.at);
    w.reports++;
    w.last = view.recommendation;
    if (view.recommendation === "clear") {
      if (!w.everClear) w.firstClearAt = r.value.at;
      w.everClear = true;
    }
    if (view.recommendation === "caution") w.everCaution = true;
    w.maxComposite = Math.max(w.maxComposite, view.composite);
  }
  return w;
}

/** Feeds reports until `count` have been applied; returns the time of the last (the stream is left where it stopped). */
export function feed(agent: Scorer, stream: Iterator<SimReport>, count: number, watch?: (rec: string, n: number) => boolean): { at: number; stopped: number } {
  let at = NaN;
  for (let n = 1; n <= count; n++) {
    const r = stream.next().value as SimReport;
    agent.report(r);
    at = r.at;
    if (watch && watch(agent.view(at).recommendation, n)) return { at, stopped: n };
  }
  return { at, stopped: count };
}
