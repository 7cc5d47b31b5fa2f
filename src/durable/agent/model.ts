// Time in the agent's object: what time alone changes of the agent's score (a recent report leaving
// the 48-hour window, a failure leaving the 30 days, a newcomer's tenure maturing: the model's
// `nextChangeAt`), and the credibility snapshot taken up when the agent's alarm comes. At the timer:
// a credibility entry when the snapshot's values moved, the row's score brought up to date, and a
// score.changed when what was last told is left behind.

import { scoreOfRecord, type AgentRef } from "../../domain/agent";
import { faceEventId, scoreChangedData, scoreCrossed, type AgentEvent } from "../../domain/events";
import { nextChangeAt } from "../../domain/model";
import { credibilityStep } from "./credibility";
import { log } from "../../log";
import { answer, refuse, type AgentHost, type Job } from "./host";
import type { Timer } from "./timers";

export class Model {
  constructor(private readonly host: AgentHost) {}

  readonly timer: Timer = {
    name: "model",
    next: (loaded, now) => {
      const { record, shown } = loaded;
      // Due now when the row shows a face (confidence, recommendation) the score no longer has.
      const score = scoreOfRecord(record, now);
      if (score.confidence !== shown.confidence || score.recommendation !== shown.recommendation) return now;
      return nextChangeAt(record.evidence, now);
    },
    fire: async (loaded, now) => {
      await this.host.change(loaded.record, this.refresh(loaded.record, now));
    },
  };

  private refresh(_ref: AgentRef, now: number): Job<null> {
    const { host } = this;
    return {
      async run(group) {
        const record = group.record;
        if (!record || !group.before) return answer<null>(refuse("not_found"));
        const step = await credibilityStep(host, group, record, now);
        if (step) return { change: { record: step.record, entries: [step.write], pairs: step.pairs }, answer: () => null };
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
