// Disputes of the agent's reports: the owner opens one (within 90 days of the report, one per report
// ever, at most 5 open), the reporter answers within 14 days or the alarm escalates it to the admins,
// and a withdrawal replays the history without the report and counts toward the reporter's penalty.
// Owns the `disputes` table (the control database lists them; this storage decides).

import { findReport } from "../../db/agents";
import { getDispute, unresolvedDisputes } from "../../db/disputes";
import { agentRow, type ControlWrite, type ShardWrite } from "../../db/shard-writes";
import { scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
import { DISPUTE_WINDOW_MS, MAX_OPEN_DISPUTES, RESPOND_WITHIN_MS, type Dispute } from "../../domain/disputes";
import type { Entry } from "../../domain/entries";
import { disputeEvent, type EventDraft } from "../../domain/events";
import type { Result } from "../../domain/results";
import { keptWrite, withdrawalWrite } from "./entry-writes";
import { log, ok, refuse, type AgentHost, type Feature } from "./host";
import { rollupsStale } from "./rollups";

export class Disputes implements Feature {
  readonly schema = ["CREATE TABLE IF NOT EXISTS disputes (id INTEGER PRIMARY KEY, dispute TEXT NOT NULL)"];
  /** Every dispute of the agent, read once and kept in step with the table (dropped with a failed transaction). */
  private memo: Dispute[] | undefined;

  constructor(private readonly host: AgentHost) {}

  private get sql() {
    return this.host.store.sql;
  }

  forget(): void {
    this.memo = undefined;
  }

  /** A rebuilt storage decides again the disputes the control database holds unresolved. */
  async restore(ref: AgentRef): Promise<() => void> {
    const pending = await unresolvedDisputes(this.host.env.DB.withSession("first-primary"), ref.sid);
    return () => pending.forEach((d) => this.save(d));
  }

  /** Disputes the reporter let lapse go to the admins; the report keeps counting until they decide. */
  alarm(record: AgentRecord, now: number): void {
    const lapsed = this.all().filter((d) => d.status === "open" && Date.parse(d.respondBy) <= now);
    if (lapsed.length === 0) return;
    const escalated = lapsed.map((d): Dispute => ({ ...d, status: "escalated" }));
    this.host.commit(record, {
      at: now,
      control: escalated.map((dispute) => ({ kind: "dispute" as const, dispute })),
      also: () => escalated.forEach((d) => this.save(d)),
    });
  }

  /** The first answer deadline of an open dispute: it escalates then. */
  deadline(): number | null {
    const deadlines = this.all().filter((d) => d.status === "open").map((d) => Date.parse(d.respondBy));
    return deadlines.length > 0 ? Math.min(...deadlines) : null;
  }

  /** The owner disputes one of its agent's reports. The report keeps counting, marked disputed. */
  open(ref: AgentRef, input: { callerId: number; transactionId: number; reason: string; statement: string | null; now: number }): Promise<Result<Dispute>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      const report = await findReport(host.shard(record.shard).withSession("first-primary"), record.sid, record.num, input.transactionId);
      if (!report) return refuse("transaction_not_found");
      if (this.one(input.transactionId)) return refuse("already_disputed");
      // A rebuilt storage holds only unresolved disputes: a resolved one is in the control database.
      if (await getDispute(host.env.DB.withSession("first-primary"), input.transactionId)) return refuse("already_disputed");
      if (input.now - report.at > DISPUTE_WINDOW_MS) return refuse("dispute_window_closed");
      if (this.all().filter((d) => d.status !== "resolved").length >= MAX_OPEN_DISPUTES) return refuse("too_many_disputes");
      const dispute: Dispute = {
        id: report.id,
        sid: record.sid,
        ownerOperatorId: input.callerId,
        reporterOperatorId: report.reporterOperatorId,
        status: "open",
        reason: input.reason,
        statement: input.statement,
        openedAt: new Date(input.now).toISOString(),
        respondBy: new Date(input.now + RESPOND_WITHIN_MS).toISOString(),
        resolvedAt: null,
        outcome: null,
        resolvedBy: null,
        reporterNote: null,
        adminNote: null,
      };
      const committed = host.commit(record, {
        shard: [{ kind: "entryStatus", sid: record.sid, n: report.n, status: "disputed" }],
        control: [{ kind: "dispute", dispute }],
        events: [disputeEvent("dispute.opened", dispute)],
        at: input.now,
        also: () => this.save(dispute),
      });
      if (!committed) return refuse("write_failed");
      await host.scheduleAlarm(Date.parse(dispute.respondBy));
      return ok(dispute, await host.flush());
    });
  }

  /** The reporter answers within 14 days: it stands by its report (kept), or withdraws it. */
  answer(ref: AgentRef, input: { callerId: number; disputeId: number; stand: boolean; note: string | null; now: number }): Promise<Result<Dispute>> {
    return this.host.serial(async () => {
      const record = await this.host.load(ref);
      if (!record) return refuse("not_found");
      const dispute = this.one(input.disputeId);
      if (!dispute || dispute.reporterOperatorId !== input.callerId) return refuse("dispute_not_found");
      if (dispute.status === "resolved") return refuse("dispute_resolved");
      if (dispute.status === "escalated" || input.now >= Date.parse(dispute.respondBy)) return refuse("response_window_closed");
      const answered = { ...dispute, reporterNote: input.note };
      return this.resolve(record, answered, input.stand ? "kept" : "withdrawn", "reporter", input.now, [disputeEvent("dispute.answered", answered)]);
    });
  }

  /** An admin decides a dispute the reporter let lapse: the report withdrawn, or kept. */
  decide(ref: AgentRef, input: { disputeId: number; outcome: "withdraw" | "keep"; note: string | null; now: number }): Promise<Result<Dispute>> {
    return this.host.serial(async () => {
      const record = await this.host.load(ref);
      if (!record) return refuse("not_found");
      const dispute = this.one(input.disputeId);
      if (!dispute) return refuse("dispute_not_found");
      if (dispute.status === "resolved") return refuse("dispute_resolved");
      if (dispute.status !== "escalated") return refuse("dispute_not_escalated");
      return this.resolve(record, { ...dispute, adminNote: input.note }, input.outcome === "withdraw" ? "withdrawn" : "kept", "admin", input.now, []);
    });
  }

  /**
   * Resolves a dispute. A withdrawn report leaves the agent's evidence exactly as if it had never
   * been sent: the history is replayed without it (with the journal applied first, so the shard
   * has all of it). The withdrawal counts toward the reporter's penalty.
   */
  private async resolve(record: AgentRecord, dispute: Dispute, outcome: "withdrawn" | "kept", resolvedBy: "reporter" | "admin", now: number, events: EventDraft[]): Promise<Result<Dispute>> {
    const { host } = this;
    const resolved: Dispute = { ...dispute, status: "resolved", outcome, resolvedBy, resolvedAt: new Date(now).toISOString() };
    const report = await findReport(host.shard(record.shard).withSession("first-primary"), record.sid, record.num, dispute.id);
    if (!report) return refuse("transaction_not_found");
    const shard: ShardWrite[] = [{ kind: "entryStatus", sid: record.sid, n: report.n, status: outcome === "withdrawn" ? "withdrawn" : "active" }];
    const control: ControlWrite[] = [{ kind: "dispute", dispute: resolved }];
    let withdrawn: { record: AgentRecord; recent: Map<number, number[]> } | null = null;
    if (outcome === "withdrawn") {
      // The replay of the chain with the withdrawal after it leaves the report out, as if never sent.
      const replayed = await host.replay(record, now, [{ entry: { kind: "withdrawal", of: report.n } as Entry, who: null }]);
      if (!replayed) return refuse("write_failed");
      const outcomes = { ...record.outcomes };
      if (outcomes[report.outcome]) outcomes[report.outcome] -= 1;
      withdrawn = { record: { ...record, evidence: replayed.evidence, outcomes }, recent: replayed.recent };
      control.push({ kind: "withdrawal", operatorId: dispute.reporterOperatorId, transactionId: dispute.id, at: resolved.resolvedAt! });
    }
    const after = withdrawn?.record ?? record;
    // The withdrawal's entry records the score it left behind; a kept report's, the dispute's end.
    const write = withdrawn ? withdrawalWrite(report.n, scoreOfRecord(after, now), now) : keptWrite(report.n, scoreOfRecord(after, now).composite, now);
    const appended = await host.append(after, [write]);
    const next = appended.record;
    const committed = host.commit(next, {
      shard: [...shard, ...appended.shard, agentRow(next, now)],
      control,
      leaves: appended.leaves,
      events: [...events, disputeEvent("dispute.resolved", resolved)],
      at: now,
      also: () => {
        this.save(resolved);
        if (withdrawn) {
          host.store.replaceRecent(withdrawn.recent);
          rollupsStale(host);
        }
      },
    });
    if (!committed) return refuse("write_failed");
    if (withdrawn) host.recent = withdrawn.recent;
    const bookmarks = await host.flush();
    if (withdrawn) await this.announcePenaltyFacts(dispute.reporterOperatorId);
    return ok(resolved, bookmarks, host.faceMoved(record, next));
  }

  /**
   * The reporter's key facts changed (a withdrawal may start its penalty): its limiter's epoch is
   * raised, and the limiter answers only once every lease it granted under the old facts has run
   * out, so the reporter's next report, whichever isolate serves it, is weighed with the penalty.
   */
  private async announcePenaltyFacts(operatorId: number): Promise<void> {
    try {
      const row = await this.host.env.DB.withSession("first-primary").prepare("SELECT auth_epoch FROM operators WHERE id = ?").bind(operatorId).first<{ auth_epoch: number }>();
      if (row) await this.host.env.RATE_LIMITER.getByName(`operator:${operatorId}`).raiseEpoch(row.auth_epoch);
    } catch (err) {
      // Cached facts live at most 5 minutes: the penalty applies then at the latest.
      log("error", "penalty not announced", { operatorId, error: String(err) });
    }
  }

  private one(id: number): Dispute | null {
    return this.all().find((d) => d.id === id) ?? null;
  }

  private all(): Dispute[] {
    this.memo ??= this.sql.exec<{ dispute: string }>("SELECT dispute FROM disputes ORDER BY id").toArray().map((r) => JSON.parse(r.dispute) as Dispute);
    return this.memo;
  }

  private save(d: Dispute): void {
    this.sql.exec("INSERT INTO disputes (id, dispute) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET dispute = excluded.dispute", d.id, JSON.stringify(d));
    this.memo = undefined;
  }
}
