// Transaction reports: each one a job of the agent's queue, so the reports that arrive while a batch
// is on its way share the next one (a batch route's reports on one agent are one group). A report's
// receipt is checked and its id spent once; the credibility in force comes before it when it moved;
// the report folds into the agent's aggregates and its reporter's pair, written with its entry (and,
// for a keyed report, its answer recorded in its entry).

import type { PairRow } from "../../db/pairs";
import { applyReportTo, SEQUENCE_SPACE, type AgentRef, type Report } from "../../domain/agent";
import type { Idempotency } from "../../domain/idempotency";
import { checkReceipt } from "../../domain/receipts";
import type { Result } from "../../domain/results";
import type { TransactionRecorded } from "../../domain/views";
import { credibilityStep } from "./credibility";
import { reportWrite, type EntryWrite } from "../../db/entry-writes";
import { answer, refuse, replayed, type AgentHost, type Job } from "./host";

export interface ReportInput extends Omit<Report, "receipt"> {
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
        let receipt =
          input.receipt === undefined
            ? null
            : await checkReceipt(input.receipt, { sid: before.sid, reporter: input.reporter, keys: before.keys, now: input.at });
        if (receipt?.accepted && (await group.spent(receipt.jti, input.at))) receipt = { accepted: false, reason: "reused" };
        const key = await host.commitment(before.sid, input.reporter);
        const owner = before.operatorId === null ? null : await host.commitment(before.sid, before.operatorId);
        const entries: EntryWrite[] = [];
        const moved: PairRow[] = [];
        let record = before;
        const step = await credibilityStep(host, group, record, input.at, { operatorId: input.reporter, key });
        if (step) {
          record = step.record;
          entries.push(step.write);
          moved.push(...step.pairs);
        }
        const pair = moved.findLast((r) => r.pair.reporter === key)?.pair ?? (await group.pairs([key])).get(key)?.pair ?? null;
        const { receipt: _jws, idempotency: _key, ...report } = input;
        const applied = applyReportTo(record, { ...report, receipt: receipt?.accepted === true }, pair, { reporter: key, owner });
        moved.push({ pair: applied.pair, operatorId: input.reporter });
        entries.push(await reportWrite(applied.recorded, applied.score));
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
            pairs: moved,
            keyed: input.idempotency && { operatorId: input.reporter, idempotency: input.idempotency },
            jti: receipt?.accepted ? receipt.jti : undefined,
          },
          // The answer names the report's leaf: the route's log promise is made of it.
          answer: (told) => ({
            ...result,
            leaf: told.leaves.at(-1),
            entry: told.chained.length ? { n: told.chained.at(-1)!.entry.n, hash: told.chained.at(-1)!.hash } : undefined,
          }),
        };
      },
    };
  }
}
