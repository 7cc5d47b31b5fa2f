// Time in the agent's object: what time alone changes of the agent (scoring model version 3 forgets
// evidence and drops reporters idle past its window, so its confidence and recommendation can move
// without a report), and the credibility the standing snapshot puts in force for its reporters. The
// timer comes when the agent's face next changes (at least daily while it holds evidence): a
// credibility entry when the snapshot's values moved, the row's score brought up to date, and a
// score.changed when what was last told is left behind.

import { nextFaceChange, scoreOfRecord, type AgentRef } from "../../domain/agent";
import { scoreChangedData, scoreCrossed, type AgentEvent } from "../../domain/events";
import { isV3 } from "../../domain/scoring";
import { credibilityStep, sourceNow } from "./credibility";
import { answer, log, refuse, type AgentHost, type Job } from "./host";
import type { Timer } from "./timers";

const DAY_MS = 86_400_000;

/** The id of a score.changed that time alone told: the same for the same face at the same entry, so a repeat is one event. */
export const faceEventId = (sid: string, seq: number, composite: number, recommendation: string) =>
  `evt_${sid.slice(6)}_${(Math.round(composite) * 4 + ["review", "clear", "caution"].indexOf(recommendation) + 1).toString(16)}_${seq * 16 + 15}`;

export class Model {
  constructor(private readonly host: AgentHost) {}

  readonly timer: Timer = {
    name: "model",
    next: (loaded, now) => {
      const { record, shown } = loaded;
      if (!isV3(record.evidence) || Object.keys(record.evidence.reporters).length === 0) return null;
      // Due now when the row shows a face (confidence, recommendation) the score no longer has; else
      // when time alone next changes it, within a day.
      const score = scoreOfRecord(record, now);
      if (score.confidence !== shown.confidence || score.recommendation !== shown.recommendation) return now;
      return nextFaceChange(record, now, DAY_MS);
    },
    fire: async (loaded, now) => {
      await this.host.change(loaded.record, this.refresh(loaded.record, now));
    },
  };

  private refresh(ref: AgentRef, now: number): Job<null> {
    const { host } = this;
    return {
      async run(group) {
        const record = group.record;
        if (!record || !group.before) return answer<null>(refuse("not_found"));
        const step = isV3(record.evidence) ? await credibilityStep(record, await sourceNow(host.env, record, now), now, (op) => host.commitment(ref.sid, op)) : null;
        if (step) return { change: { record: step.record, entries: [step.write] }, answer: () => null };
        const score = scoreOfRecord(record, now);
        const told = group.before.notified;
        if (!told || !scoreCrossed(told, score)) return { change: { record }, answer: () => null };
        // Told before the row says so: a send that fails leaves the row as it was, and the next alarm tells it again under the same id.
        const event: AgentEvent = {
          type: "score.changed",
          data: scoreChangedData(record.sid, score, told, record.identityLevel),
          id: faceEventId(record.sid, record.seq, score.composite, score.recommendation),
          sid: record.sid,
          ownerId: record.operatorId,
          timestamp: new Date(now).toISOString(),
        };
        try {
          await host.env.EVENTS?.send(event, { contentType: "json" });
        } catch (err) {
          log("error", "score.changed not sent; the next alarm tells it", { sid: record.sid, error: String(err) });
          return answer<null>(refuse("unavailable"));
        }
        return { change: { record, notified: { composite: score.composite, recommendation: score.recommendation }, faceMoved: true }, answer: () => null };
      },
    };
  }
}
