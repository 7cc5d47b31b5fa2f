// Transaction reports: each one a job of the agent's queue, so the reports that arrive while a batch
// is on its way share the next one (a batch route's reports on one agent are one group). A report's
// receipt is checked, its id spent once, and the report folded into the record with its entry, its
// rollup row (scoring model version 3) and, for a keyed report, its answer recorded in its entry.

import { rollupAdditionOf, type ShardWrite } from "../../db/shard-writes";
import { applyReportTo, localOf, SEQUENCE_SPACE, type AgentRecord, type AgentRef, type Report } from "../../domain/agent";
import type { Idempotency } from "../../domain/idempotency";
import { addToRollup, evidenceFactor, isEstablished, MODEL } from "../../domain/model";
import { checkReceipt } from "../../domain/receipts";
import type { Result } from "../../domain/results";
import { isV3 } from "../../domain/scoring";
import type { TransactionRecorded } from "../../domain/views";
import { credibilityStep, reportSource } from "./credibility";
import { reportWrite, type EntryWrite } from "./entry-writes";
import { answer, refuse, replayed, type AgentHost, type Job } from "./host";

export interface ReportInput extends Omit<Report, "evidenceFactor"> {
  idempotency?: Idempotency;
  /** A receipt the agent signed for the reporter (compact JWS), if the report carries one. */
  receipt?: string;
}

export class Reports {
  constructor(private readonly host: AgentHost) {}

  report(ref: AgentRef, input: ReportInput): Promise<Result<TransactionRecorded>> {
    return this.host.change(ref, this.job(input));
  }

  /** A batch's reports on this agent, queued together: one group, one batch, answers in order. */
  reportMany(ref: AgentRef, inputs: readonly ReportInput[]): Promise<Result<TransactionRecorded>[]> {
    return Promise.all(inputs.map((input) => this.host.change(ref, this.job(input))));
  }

  private job(input: ReportInput): Job<TransactionRecorded> {
    const { host } = this;
    return {
      async run(group) {
        const repeat = await replayed<TransactionRecorded>(group, input.reporter, input.idempotency, input.at);
        if (repeat) return repeat;
        const before = group.record;
        if (!before) return answer(refuse("not_found"));
        if (before.status === "suspended") return answer(refuse("suspended"));
        // A report and the credibility entry that may come before it.
        if (before.seq + 2 >= SEQUENCE_SPACE) return answer(refuse("history_full"));
        let receipt = input.receipt === undefined ? null : await checkReceipt(input.receipt, { sid: before.sid, reporter: input.reporter, keys: before.keys, now: input.at });
        if (receipt?.accepted && (await group.spent(receipt.jti, input.at))) receipt = { accepted: false, reason: "reused" };
        const entries: EntryWrite[] = [];
        let record = before;
        if (isV3(record.evidence)) {
          // The credibility in force before the report (a new reporter's first report is weighed with its value).
          const source = await reportSource(host.env, record, input.at, [input.reporter]);
          const step = await credibilityStep(record, source, input.at, (op) => host.commitment(record.sid, op), { operatorId: input.reporter, verified: input.verified });
          if (step) {
            record = step.record;
            entries.push(step.write);
          }
        }
        const earlier = group.reportTimes(input.reporter).filter((t) => t > input.at - MODEL.dampingWindowMs).length;
        const applied = applyReportTo(record, { ...input, evidenceFactor: evidenceFactor(receipt?.accepted === true) }, earlier);
        entries.push(await reportWrite({ ...applied.recorded, receipt: receipt?.accepted === true }, applied.score, (op) => host.commitment(before.sid, op)));
        const result: TransactionRecorded = {
          transactionId: applied.recorded.id,
          recordedAt: input.at,
          score: applied.score,
          ...(receipt ? { receipt: receipt.accepted ? { accepted: true } : { accepted: false, reason: receipt.reason } } : {}),
        };
        return {
          change: {
            record: applied.record,
            entries,
            rows: rollupRows(applied.record, input, receipt?.accepted === true),
            keyed: input.idempotency && { operatorId: input.reporter, idempotency: input.idempotency },
            jti: receipt?.accepted ? receipt.jti : undefined,
            reported: [{ reporter: input.reporter, at: input.at }],
          },
          // The answer names the report's leaf: the route's log promise is made of it.
          answer: (told) => ({ ...result, leaf: told.leaves.at(-1), entry: told.chained.length ? { n: told.chained.at(-1)!.entry.n, hash: told.chained.at(-1)!.hash } : undefined }),
        };
      },
    };
  }
}

/**
 * The report's share of its reporter's rollup row of the day (scoring model version 3's credibility
 * job reads them): added to the row in the report's batch. `established` is the reporter's standing
 * on the agent after the report, as the model's record of it says.
 */
function rollupRows(record: AgentRecord, input: ReportInput, receipted: boolean): ShardWrite[] {
  if (!isV3(record.evidence)) return [];
  const reporter = record.evidence.reporters[String(localOf(record, input.reporter).local)];
  const established = reporter ? isEstablished({ days: reporter.days, firstAt: reporter.firstAt }, input.at) : false;
  const owner = record.operatorId === null ? null : String(record.operatorId);
  const row = addToRollup(null, { reporter: String(input.reporter), agent: record.sid, owner, at: input.at, outcome: input.outcome, signals: input.signals, receipted, established });
  return [{ kind: "rollup", add: rollupAdditionOf(row) }];
}
