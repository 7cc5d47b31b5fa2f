// Disputes of the agent's reports: the owner opens one (within 90 days of the report, one per report
// ever, at most 5 open), the reporter answers within 14 days or the alarm escalates it to the admins,
// and a withdrawal replays the history without the report. Each step is an entry of the agent's
// chain with the dispute's row on the shard (`disputes`); the control database's list of disputes,
// and the reporter's record of withdrawals, are derived from the entry through the outbox.

import { findReport } from "../../db/agents";
import { shardDisputes } from "../../db/disputes";
import type { PairRow } from "../../db/pairs";
import type { ShardWrite } from "../../db/shard-writes";
import { scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
import { disputesDueOf, openDispute, type Dispute } from "../../domain/disputes";
import { disputeEvent, type ControlWrite, type EventDraft } from "../../domain/events";
import type { Result } from "../../domain/results";
import { disputeWrite, withdrawalWrite, type EntryWrite } from "../../db/entry-writes";
import { answer, refuse, type AgentHost, type Outcome } from "./host";
import { replayOnShard } from "../../db/history";
import type { Timer } from "./timers";

export class Disputes {
  constructor(private readonly host: AgentHost) {}

  private all(ref: AgentRef): Promise<Dispute[]> {
    return shardDisputes(this.host.shard(ref.shard).withSession("first-primary"), ref.sid);
  }

  /** The owner disputes one of its agent's reports. The report keeps counting, marked disputed. */
  open(ref: AgentRef, input: { callerId: number; transactionId: number; reason: string; statement: string | null; now: number }): Promise<Result<Dispute>> {
    return this.host.change(ref, {
      alone: true,
      run: async (group) => {
        const record = group.record;
        if (!record) return answer(refuse("not_found"));
        if (record.operatorId !== input.callerId) return answer(refuse("forbidden"));
        const report = await findReport(this.host.shard(ref.shard).withSession("first-primary"), record.sid, record.num, input.transactionId);
        if (!report) return answer(refuse("transaction_not_found"));
        const disputes = await this.all(ref);
        const dispute = openDispute(disputes, report, {
          sid: record.sid,
          ownerOperatorId: input.callerId,
          reason: input.reason,
          statement: input.statement,
          now: input.now,
        });
        if (typeof dispute === "string") return answer(refuse(dispute));
        const next: AgentRecord = { ...record, seq: record.seq + 1, disputesDue: disputesDueOf([...disputes, dispute]) };
        return {
          change: {
            record: next,
            entries: [disputeWrite(report.n, "opened", scoreOfRecord(record, input.now).composite, input.now)],
            rows: [
              { kind: "entryStatus", sid: record.sid, n: report.n, status: "disputed" },
              { kind: "dispute", dispute },
            ],
            control: [{ kind: "dispute", dispute }],
            events: [disputeEvent("dispute.opened", dispute)],
          },
          answer: () => dispute,
        };
      },
    });
  }

  /** The reporter answers within 14 days: it stands by its report (kept), or withdraws it. */
  answer(ref: AgentRef, input: { callerId: number; disputeId: number; stand: boolean; note: string | null; now: number }): Promise<Result<Dispute>> {
    return this.host.change(ref, {
      alone: true,
      run: async (group) => {
        if (!group.record) return answer(refuse("not_found"));
        const disputes = await this.all(ref);
        const dispute = disputes.find((d) => d.id === input.disputeId);
        if (!dispute || dispute.reporterOperatorId !== input.callerId) return answer(refuse("dispute_not_found"));
        if (dispute.status === "resolved") return answer(refuse("dispute_resolved"));
        if (dispute.status === "escalated" || input.now >= Date.parse(dispute.respondBy)) return answer(refuse("response_window_closed"));
        const answered = { ...dispute, reporterNote: input.note };
        return this.resolve(group.record, disputes, answered, input.stand ? "kept" : "withdrawn", "reporter", input.now, [
          disputeEvent("dispute.answered", answered),
        ]);
      },
    });
  }

  /** An admin decides a dispute the reporter let lapse: the report withdrawn, or kept. */
  decide(ref: AgentRef, input: { disputeId: number; outcome: "withdraw" | "keep"; note: string | null; now: number }): Promise<Result<Dispute>> {
    return this.host.change(ref, {
      alone: true,
      run: async (group) => {
        if (!group.record) return answer(refuse("not_found"));
        const disputes = await this.all(ref);
        const dispute = disputes.find((d) => d.id === input.disputeId);
        if (!dispute) return answer(refuse("dispute_not_found"));
        if (dispute.status === "resolved") return answer(refuse("dispute_resolved"));
        if (dispute.status !== "escalated") return answer(refuse("dispute_not_escalated"));
        return this.resolve(
          group.record,
          disputes,
          { ...dispute, adminNote: input.note },
          input.outcome === "withdraw" ? "withdrawn" : "kept",
          "admin",
          input.now,
          [],
        );
      },
    });
  }

  /**
   * Resolves a dispute. A withdrawn report leaves the agent's evidence exactly as if it had never
   * been sent: the history is replayed without it. The withdrawal joins the reporter's record of
   * withdrawals (the control database's, through the outbox).
   */
  private async resolve(
    record: AgentRecord,
    disputes: Dispute[],
    dispute: Dispute,
    outcome: "withdrawn" | "kept",
    resolvedBy: "reporter" | "admin",
    now: number,
    events: EventDraft[],
  ): Promise<Outcome<Dispute>> {
    const resolved: Dispute = { ...dispute, status: "resolved", outcome, resolvedBy, resolvedAt: new Date(now).toISOString() };
    const d1 = this.host.shard(record.shard).withSession("first-primary");
    const report = await findReport(d1, record.sid, record.num, dispute.id);
    if (!report) return answer(refuse("transaction_not_found"));
    const rows: ShardWrite[] = [
      { kind: "entryStatus", sid: record.sid, n: report.n, status: outcome === "withdrawn" ? "withdrawn" : "active" },
      { kind: "dispute", dispute: resolved },
    ];
    const control: ControlWrite[] = [{ kind: "dispute", dispute: resolved }];
    let after: AgentRecord = { ...record, seq: record.seq + 1, disputesDue: disputesDueOf(disputes.map((d) => (d.id === resolved.id ? resolved : d))) };
    let write: EntryWrite;
    let pairs: PairRow[] | undefined;
    if (outcome === "withdrawn") {
      const withdrawal = withdrawalWrite(report.n, scoreOfRecord(record, now), now);
      // The replay of the chain with the withdrawal after it leaves the report out, as if never sent.
      const replayed = await replayOnShard(this.host.shard(record.shard).withSession("first-primary"), record, [{ draft: withdrawal.draft, who: null }]);
      const outcomes = { ...record.outcomes };
      if (outcomes[report.outcome]) outcomes[report.outcome] -= 1;
      after = { ...after, evidence: replayed.evidence, outcomes };
      pairs = replayed.pairs;
      // The withdrawal's entry records the score it left behind.
      write = withdrawalWrite(report.n, scoreOfRecord(after, now), now);
      control.push({ kind: "withdrawal", operatorId: dispute.reporterOperatorId, transactionId: dispute.id, at: resolved.resolvedAt! });
    } else {
      write = disputeWrite(report.n, "kept", scoreOfRecord(after, now).composite, now);
    }
    return {
      change: { record: after, entries: [write], rows, pairsReplaced: pairs, control, events: [...events, disputeEvent("dispute.resolved", resolved)] },
      answer: () => resolved,
    };
  }

  /** Disputes the reporter let lapse go to the admins; the report keeps counting until they decide. */
  readonly timer: Timer = {
    name: "disputes",
    next: (loaded) => loaded.record.disputesDue ?? null,
    fire: async (loaded, now) => {
      await this.host.change(loaded.record, {
        run: async (group) => {
          const record = group.record;
          if (!record) return answer(refuse("not_found"));
          const disputes = await this.all(record);
          const lapsed = disputes.filter((d) => d.status === "open" && Date.parse(d.respondBy) <= now).map((d): Dispute => ({ ...d, status: "escalated" }));
          const after = disputes.map((d) => lapsed.find((l) => l.id === d.id) ?? d);
          const next: AgentRecord = { ...record, seq: record.seq + lapsed.length, disputesDue: disputesDueOf(after) };
          if (lapsed.length === 0) return { change: { record: next }, answer: () => null };
          const reports = await Promise.all(
            lapsed.map((d) => findReport(this.host.shard(record.shard).withSession("first-primary"), record.sid, record.num, d.id)),
          );
          const composite = scoreOfRecord(record, now).composite;
          return {
            change: {
              record: next,
              entries: lapsed.map((d, i) => disputeWrite(reports[i]?.n ?? 0, "escalated", composite, now)),
              rows: lapsed.map((dispute) => ({ kind: "dispute" as const, dispute })),
              control: lapsed.map((dispute) => ({ kind: "dispute" as const, dispute })),
            },
            answer: () => null,
          };
        },
      });
    },
  };
}
