// Transaction reports: queued as they arrive, applied in order in groups (group commit: the reports
// that queued while the previous change was written share one storage transaction and one shard
// batch), each with its receipt checked and its receipt id used once. Owns the `receipts` table.

import { scoreColumns } from "../../db/shard-writes";
import { applyReportTo, localOf, SEQUENCE_SPACE, type AgentRecord, type AgentRef, type Report } from "../../domain/agent";
import type { Idempotency } from "../../domain/idempotency";
import { evidenceFactor, MODEL, type CredibilitySource } from "../../domain/model";
import { isV3 } from "../../domain/scoring";
import { checkReceipt, type ReceiptCheck } from "../../domain/receipts";
import type { Result } from "../../domain/results";
import type { TransactionRecorded } from "../../domain/views";
import type { Leaf } from "../../domain/log/leaf";
import type { EntryWrite } from "./chain";
import { reportWrite } from "./entry-writes";
import { log, ok, refuse, replayedAnswer, type AgentHost, type Deferred, type Feature } from "./host";
import { reshape } from "./storage";
import { credibilityStep, reportSource } from "./model";
import type { RollupReportFacts, Rollups } from "./rollups";

export interface ReportInput extends Omit<Report, "evidenceFactor"> {
  idempotency?: Idempotency;
  /** A receipt the agent signed for the reporter (compact JWS), if the report carries one. */
  receipt?: string;
}

interface Pending {
  input: ReportInput;
  resolve: (outcome: Result<TransactionRecorded>) => void;
}

/** At most this many queued reports share one commit (a batch's reports on one agent are one group). */
const MAX_GROUP = 100;
/** A receipt id kept before forget_at existed is forgotten this long after its report. */
const LEGACY_RECEIPT_KEEP_MS = 2 * 86_400_000;

/** A group's reports applied in memory: what the one commit stores and what each report is answered. */
class Group {
  record: AgentRecord;
  /** Each applied report's entry, chained when the group is stored. */
  readonly entries: EntryWrite[] = [];
  leaves: Leaf[] = [];
  readonly times: { reporter: number; at: number }[] = [];
  /** The applied reports as the daily rollups count them (R1). */
  readonly rolled: RollupReportFacts[] = [];
  readonly answers: { operatorId: number; idempotency: Idempotency; result: TransactionRecorded; at: number }[] = [];
  /** Receipt ids credited in this group, with when each may be forgotten. */
  readonly jtis = new Map<string, number>();

  /** Idempotency keys answered in this group (a repeat within the group replays it). */
  readonly keyed = new Map<string, { requestHash: string; result: TransactionRecorded }>();
  /** Each report's answer: settled now (a replay or a refusal), or applied and answered after the batch (`entry`: its entry's index in the group). */
  readonly settled: { report: Pending; answer: Result<TransactionRecorded> | { applied: TransactionRecorded; entry: number } }[] = [];

  constructor(readonly before: AgentRecord) {
    this.record = before;
  }
}

export class Reports implements Feature {
  readonly schema = [
    // Every receipt id the agent's reports were credited for: a receipt never counts twice. Kept
    // until `forget_at`, after which any receipt with that id is refused as too old anyway.
    // (WITHOUT ROWID: the key is the table, one row written per receipt instead of a row and its index.)
    "CREATE TABLE IF NOT EXISTS receipts (jti TEXT PRIMARY KEY, at INTEGER NOT NULL, forget_at INTEGER) WITHOUT ROWID",
  ];
  private queue: Pending[] = [];

  constructor(
    private readonly host: AgentHost,
    private readonly rollups: Rollups,
  ) {}

  private get sql() {
    return this.host.store.sql;
  }

  upgrade(): void {
    // Storage from before receipts were forgotten has no forget_at.
    const columns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('receipts')").toArray();
    if (!columns.some((c) => c.name === "forget_at")) {
      this.sql.exec("ALTER TABLE receipts ADD COLUMN forget_at INTEGER");
      this.sql.exec("UPDATE receipts SET forget_at = at + ?", LEGACY_RECEIPT_KEEP_MS);
    }
    this.host.store.atomically(() => reshape(this.sql, this.schema, "receipts", "jti, at, forget_at", (sql) => /WITHOUT ROWID/i.test(sql)));
  }

  forgetExpired(now: number): void {
    this.sql.exec("DELETE FROM receipts WHERE forget_at <= ?", now);
  }

  report(ref: AgentRef, input: ReportInput): Promise<Result<TransactionRecorded>> {
    return new Promise((resolve) => {
      this.queue.push({ input, resolve });
      // The first report of an empty queue schedules a drain; later ones join the same group.
      if (this.queue.length === 1) void this.host.serial(() => this.drain(ref));
    });
  }

  /**
   * A batch's reports on this agent, in order, as one group. With `defer`, the shard writes are left
   * to the caller, which applies them with other agents' in one batch per shard and acknowledges
   * them (`deferred` says what to apply; null when this object applied them itself).
   */
  reportMany(ref: AgentRef, inputs: ReportInput[], defer: boolean): Promise<{ results: Result<TransactionRecorded>[]; deferred: Deferred | null }> {
    return this.host.serial(async () => {
      const results: Result<TransactionRecorded>[] = [];
      await this.guarded(ref, inputs.map((input, i) => ({ input, resolve: (r) => (results[i] = r) })), !defer);
      return { results, deferred: defer ? await this.host.deferred() : null };
    });
  }

  private async drain(ref: AgentRef): Promise<void> {
    const reports = this.queue.splice(0, MAX_GROUP);
    if (this.queue.length > 0) void this.host.serial(() => this.drain(ref));
    await this.guarded(ref, reports, true);
  }

  private async guarded(ref: AgentRef, reports: Pending[], flush: boolean): Promise<void> {
    try {
      await this.write(ref, reports, flush);
    } catch (err) {
      // Storage may or may not hold the group: a repeat with the same Idempotency-Key finds out.
      log("error", "report group interrupted", { sid: ref.sid, error: String(err) });
      this.host.forget();
      for (const report of reports) report.resolve(refuse("interrupted"));
    }
  }

  private async write(ref: AgentRef, reports: Pending[], flush: boolean): Promise<void> {
    const record = await this.host.load(ref);
    if (!record || record.status === "suspended") {
      for (const report of reports) report.resolve(refuse(record ? "suspended" : "not_found"));
      return;
    }
    // Receipts are checked first (their signatures need no order); single use of their jti is
    // decided in order, against the stored ones and those earlier in the group.
    const receipts = await Promise.all(
      reports.map((p) => (p.input.receipt === undefined ? null : checkReceipt(p.input.receipt, { sid: record.sid, reporter: p.input.reporter, keys: record.keys, now: p.input.at }))),
    );
    const rolling = await this.rollups.ready(record);
    const group = new Group(record);
    // Version 3 weighs each reporter by its credibility: the source is asked once per group.
    const source = isV3(record.evidence) ? await reportSource(this.host, record, reports[reports.length - 1].input.at, reports.map((r) => r.input.reporter)) : null;
    for (const [i, report] of reports.entries()) await this.apply(group, report, receipts[i], source);
    const applied = group.times.length > 0;
    if (applied && !(await this.store(group, reports[reports.length - 1].input.at, rolling))) {
      for (const report of reports) report.resolve(refuse("write_failed"));
      return;
    }
    const bookmarks = applied && flush ? await this.host.flush() : {};
    const faceChanged = applied && this.host.faceMoved(record, group.record);
    for (const { report, answer } of group.settled) {
      report.resolve("applied" in answer ? ok(answer.applied, bookmarks, faceChanged) : answer);
    }
  }

  /** One report of the group, in order: replayed, refused, or applied to the group's record. */
  private async apply(group: Group, report: Pending, checked: ReceiptCheck | null, source: CredibilitySource | null): Promise<void> {
    const { input } = report;
    const idem = input.idempotency;
    const groupKey = idem && `${input.reporter}\n${idem.key}`;
    const prior = groupKey ? (group.keyed.get(groupKey) ?? this.host.store.answer(input.reporter, idem!.key, input.at)) : null;
    const answer = replayedAnswer<TransactionRecorded>(prior, idem?.requestHash ?? "");
    if (answer) {
      group.settled.push({ report, answer });
      return;
    }
    if (group.record.seq + 1 >= SEQUENCE_SPACE) {
      group.settled.push({ report, answer: refuse("history_full") });
      return;
    }
    if (source) {
      // The credibility in force before the report (a new reporter's first report is weighed with its value).
      const commit = (op: number) => this.host.chain.commitment(group.record.sid, op);
      const step = await credibilityStep(group.record, source, input.at, commit, { operatorId: input.reporter, verified: input.verified });
      if (step) {
        group.record = step.record;
        group.entries.push(step.write);
      }
    }
    const since = input.at - MODEL.dampingWindowMs;
    const { local } = localOf(group.record, input.reporter);
    const earlier = this.recentOf(local, group.times).filter((t) => t > since).length;
    let receipt = checked;
    if (receipt?.accepted && (group.jtis.has(receipt.jti) || this.seenReceipt(receipt.jti))) receipt = { accepted: false, reason: "reused" };
    if (receipt?.accepted) group.jtis.set(receipt.jti, receipt.forgetAt);
    const applied = applyReportTo(group.record, { ...input, evidenceFactor: evidenceFactor(receipt?.accepted === true) }, earlier);
    group.record = applied.record;
    const { recorded } = applied;
    group.entries.push(await reportWrite({ ...recorded, receipt: receipt?.accepted === true }, applied.score, (op) => this.host.chain.commitment(group.record.sid, op)));
    group.times.push({ reporter: local, at: input.at });
    group.rolled.push({ reporter: input.reporter, at: input.at, outcome: input.outcome, signals: input.signals, receipted: receipt?.accepted === true });
    const result: TransactionRecorded = {
      transactionId: recorded.id,
      recordedAt: input.at,
      score: applied.score,
      ...(receipt ? { receipt: receipt.accepted ? { accepted: true } : { accepted: false, reason: receipt.reason } } : {}),
    };
    if (idem) {
      group.answers.push({ operatorId: input.reporter, idempotency: idem, result, at: input.at });
      group.keyed.set(groupKey!, { requestHash: idem.requestHash, result });
    }
    group.settled.push({ report, answer: { applied: result, entry: group.entries.length - 1 } });
  }

  /** The group's one commit: the record, its entries, report times, receipt ids and idempotency records. */
  private async store(group: Group, last: number, rolling: boolean): Promise<boolean> {
    const { host } = this;
    const rolled = rolling ? this.rollups.add(group.record, group.rolled) : { shard: [], store: () => {} };
    const appended = await host.append({ ...group.record, seq: group.before.seq, chainHash: group.before.chainHash }, group.entries);
    group.record = appended.record;
    group.leaves = appended.leaves;
    // Each answer (and the idempotency record that replays it) names the report's leaf: the route's promise is made of it.
    for (const { answer } of group.settled) if ("applied" in answer) answer.applied.leaf = appended.leaves[answer.entry];
    const committed = host.commit(group.record, {
      shard: [...appended.shard, ...rolled.shard, scoreColumns(group.record, last)],
      leaves: appended.leaves,
      at: last,
      also: () => {
        host.store.rememberReports(group.times, last);
        rolled.store();
        for (const [jti, forgetAt] of group.jtis) this.sql.exec("INSERT INTO receipts (jti, at, forget_at) VALUES (?, ?, ?)", jti, last, forgetAt);
        for (const a of group.answers) host.store.keepAnswer(a.operatorId, a.idempotency.key, a.idempotency.requestHash, a.result, a.at);
      },
    });
    if (!committed) return false;
    for (const t of group.times) host.recent.set(t.reporter, [...(host.recent.get(t.reporter) ?? []).filter((x) => x > last - 2 * MODEL.dampingWindowMs), t.at]);
    return true;
  }

  /** Report times of a reporter: stored ones and those of the group being applied. */
  private recentOf(reporter: number, group: { reporter: number; at: number }[]): number[] {
    return [...(this.host.recent.get(reporter) ?? []), ...group.filter((t) => t.reporter === reporter).map((t) => t.at)];
  }

  private seenReceipt(jti: string): boolean {
    return this.sql.exec("SELECT 1 FROM receipts WHERE jti = ?", jti).toArray().length > 0;
  }
}
