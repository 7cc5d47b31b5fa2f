import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { db, isUniqueViolation } from "../db/client";
import { configurationOf, independentReporters, type AgentRow } from "../db/agents";
import { confirmChallenge } from "../db/challenges";
import { agents } from "../db/schema";
import type { AgentConfiguration } from "../domain/configuration";
import {
  applyConfigChange,
  applyTransaction,
  classifyChange,
  reporterWeight,
  scoreOf,
  SCORING,
  type EvidenceState,
  type Outcome,
  type ScoreView,
  type SignalDimension,
} from "../domain/scoring";
import type { ConfigUpdated, TransactionRecorded } from "../domain/views";
import type { Refusal, Result } from "../domain/results";
import { IDEMPOTENCY_TTL_MS, type Idempotency } from "../domain/idempotency";
import type { Env } from "../env";


interface Common {
  /** The authenticated operator making the change (the reporter of a transaction). */
  callerId: number;
  now: number;
  idempotency?: Idempotency;
}

export interface TransactionInput extends Common {
  reporterVerified: boolean;
  transactionType: string;
  outcome: Outcome;
  signals: Partial<Record<SignalDimension, number>>;
  metadata: Record<string, unknown> | null;
}

export interface ConfigInput extends Common {
  config: AgentConfiguration;
  fingerprint: string;
}

type Outcome_<T> = Result<T>;

interface PendingReport {
  input: TransactionInput;
  resolve: (outcome: Outcome_<TransactionRecorded>) => void;
}

/** At most this many reports go into one D1 batch. */
const MAX_GROUP = 25;

interface Loaded {
  row: AgentRow;
  evidence: EvidenceState;
  reporters: Record<string, string>;
  outcomes: Record<string, number>;
}

/**
 * One object per agent (named by its SID): every change to the agent (its score, configuration,
 * owner, status and identity level) passes through here, one at a time. D1 is not this object's
 * storage, so its input gate opens while a D1 call is awaited; the promise chain in `serial` is what
 * keeps read-compute-write strictly in order. The agent's state is cached here after the first read
 * (this object is its only writer). Every change is one D1 batch (reports queued behind a running
 * batch share the next one), and a failed batch drops the cache, so nothing half-applied survives.
 */
export class AgentScorer extends DurableObject<Env> {
  private tail: Promise<unknown> = Promise.resolve();
  private db!: D1DatabaseSession;
  private loaded: Loaded | null = null;
  /** Report times (ms) of each reporter on this agent within the damping window. */
  private recent = new Map<number, number[]>();
  /** Reports waiting for the next group commit. */
  private reports: PendingReport[] = [];

  reportTransaction(sid: string, input: TransactionInput): Promise<Outcome_<TransactionRecorded>> {
    return new Promise((resolve) => {
      this.reports.push({ input, resolve });
      // The first report of an empty queue schedules a drain; later ones join the same group.
      if (this.reports.length === 1) void this.serial(() => this.drainReports(sid));
    });
  }

  updateConfig(sid: string, input: ConfigInput): Promise<Outcome_<ConfigUpdated>> {
    return this.serial(() => this.config(sid, input));
  }

  claim(sid: string, input: { operatorId: number; claimTokenHash: string; now: number }): Promise<Outcome_<{ sid: string }>> {
    return this.serial(() => this.claimAgent(sid, input));
  }

  /** An admin's status change (a suspended agent accepts no transactions). */
  setStatus(sid: string, status: "active" | "suspended"): Promise<Outcome_<{ status: string }>> {
    return this.serial(async () => {
      const state = await this.load(sid);
      if (!state) return { ok: false, refusal: "not_found" };
      const written = await this.commit([this.db.prepare("UPDATE agents SET status = ? WHERE sid = ?").bind(status, sid)]);
      if (!Array.isArray(written)) return { ok: false, refusal: written };
      this.loaded = { ...state, row: { ...state.row, status } };
      return { ok: true, result: { status }, bookmark: this.db.getBookmark() };
    });
  }

  /** The owner returns a challenge token: consumed and the agent raised to level 1, or refused. */
  confirmIdentity(sid: string, input: { callerId: number; tokenHash: string; now: number }): Promise<Outcome_<{ identityLevel: number }>> {
    return this.serial(async () => {
      const state = await this.load(sid);
      if (!state) return { ok: false, refusal: "not_found" };
      if (state.row.operatorId !== input.callerId) return { ok: false, refusal: "forbidden" };
      if (!(await confirmChallenge(this.db, sid, input.tokenHash, input.now))) return { ok: false, refusal: "invalid_challenge" };
      const identityLevel = Math.max(state.row.identityLevel, 1);
      this.loaded = { ...state, row: { ...state.row, identityLevel } };
      return { ok: true, result: { identityLevel }, bookmark: this.db.getBookmark(), faceChanged: true };
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const step = () => {
      // Each update reads and writes through a session on the primary: it must see the last write.
      this.db = this.env.DB.withSession("first-primary");
      return work();
    };
    const run = this.tail.then(step, step);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async load(sid: string): Promise<Loaded | null> {
    if (this.loaded) return this.loaded;
    const row = await db(this.db).select().from(agents).where(eq(agents.sid, sid)).get();
    if (!row) return null;
    this.loaded = {
      row,
      evidence: JSON.parse(row.evidence) as EvidenceState,
      reporters: JSON.parse(row.reporters) as Record<string, string>,
      outcomes: JSON.parse(row.outcomeCounts) as Record<string, number>,
    };
    return this.loaded;
  }

  private async earlierReports(sid: string, reporterId: number, now: number): Promise<number[]> {
    const since = now - SCORING.dampingWindowMs;
    let times = this.recent.get(reporterId);
    if (!times) {
      const { results } = await this.db.prepare(
        "SELECT created_at FROM transactions WHERE sid = ? AND reporter_operator_id = ? AND created_at > ?",
      )
        .bind(sid, reporterId, new Date(since).toISOString())
        .all<{ created_at: string }>();
      times = results.map((r) => Date.parse(r.created_at));
    }
    times = times.filter((t) => t > since);
    this.recent.set(reporterId, times);
    return times;
  }

  /**
   * Group commit: the reports queued while the previous batch was being written are applied in
   * order, in memory, and written in one D1 batch (each keeps its own transaction row, score event
   * and idempotency record). If that batch fails, each report is tried on its own, so one bad
   * report (an idempotency collision) never fails the others.
   */
  private async drainReports(sid: string): Promise<void> {
    const group = this.reports.splice(0, MAX_GROUP);
    if (this.reports.length > 0) void this.serial(() => this.drainReports(sid));
    try {
      const written = await this.writeReports(sid, group);
      if (written) return;
      for (const report of group) await this.writeReports(sid, [report]);
    } catch (err) {
      console.error("agent score update failed", err);
      this.loaded = null;
      this.recent.clear();
      for (const report of group) report.resolve({ ok: false, refusal: "write_failed" });
    }
  }

  /** Writes the reports in one batch; false when a group of several must be retried one by one. */
  private async writeReports(sid: string, group: PendingReport[]): Promise<boolean> {
    const state = await this.load(sid);
    if (!state) {
      for (const report of group) report.resolve({ ok: false, refusal: "not_found" });
      return true;
    }
    if (state.row.status === "suspended") {
      for (const report of group) report.resolve({ ok: false, refusal: "suspended" });
      return true;
    }
    const { row } = state;
    let { evidence, reporters, outcomes } = state;
    const planned: { report: PendingReport; score: ScoreView; statement: number }[] = [];
    const statements: D1PreparedStatement[] = [];
    const recent = new Map<number, number[]>();
    let score = this.scoreAt(evidence, reporters, row, group[0].input.now);
    let lastIso = row.updatedAt;

    for (const report of group) {
      const { input } = report;
      const now = input.now;
      const nowIso = new Date(now).toISOString();
      const isOwner = row.operatorId === input.callerId;
      const earlier = recent.get(input.callerId) ?? (await this.earlierReports(sid, input.callerId, now));
      const weight = reporterWeight({ isOwner, reporterVerified: input.reporterVerified, earlierReportsInWindow: earlier.length });
      recent.set(input.callerId, [...earlier, now]);
      evidence = applyTransaction(evidence, { outcome: input.outcome, signals: input.signals }, weight, now);
      if (!isOwner) reporters = { ...reporters, [input.callerId]: nowIso };
      outcomes = { ...outcomes, [input.outcome]: (outcomes[input.outcome] ?? 0) + 1 };
      score = this.scoreAt(evidence, reporters, row, now);
      lastIso = nowIso;
      planned.push({ report, score, statement: statements.length });
      statements.push(
        this.db
          .prepare(
            `INSERT INTO transactions (sid, reporter_operator_id, transaction_type, outcome, reliability_signal, quality_signal,
               financial_signal, security_signal, weight, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          )
          .bind(
            sid,
            input.callerId,
            input.transactionType,
            input.outcome,
            input.signals.reliability ?? null,
            input.signals.quality ?? null,
            input.signals.financial ?? null,
            input.signals.security ?? null,
            weight,
            input.metadata === null ? null : JSON.stringify(input.metadata),
            nowIso,
          ),
        // Right after the insert, so last_insert_rowid() is this transaction's id.
        ...this.idempotencyRecord(input, 201, { score }, "$.transactionId"),
        this.scoreEvent(sid, `transaction:${input.outcome}`, score, nowIso),
      );
    }
    const now = group[group.length - 1].input.now;
    reporters = { ...reporters };
    for (const [id, at] of Object.entries(reporters)) if (now - Date.parse(at) > SCORING.independentReporterWindowMs) delete reporters[id];
    statements.push(
      ...this.projections(sid, state, evidence, score, lastIso, {
        reporters: JSON.stringify(reporters),
        outcome_counts: JSON.stringify(outcomes),
      }),
    );

    const results = await this.commit(statements);
    if (!Array.isArray(results)) {
      if (group.length > 1) return false;
      group[0].resolve({ ok: false, refusal: results });
      return true;
    }
    this.loaded = {
      row: { ...row, composite: score.composite, evidenceTotal: score.evidence, updatedAt: lastIso },
      evidence,
      reporters,
      outcomes,
    };
    for (const [reporter, times] of recent) this.recent.set(reporter, times);
    const faceChanged = this.faceChanged(state, score, now);
    const bookmark = this.db.getBookmark();
    for (const p of planned) {
      const transactionId = (results[p.statement].results[0] as { id: number }).id;
      p.report.resolve({ ok: true, result: { transactionId, score: p.score }, bookmark, faceChanged });
    }
    return true;
  }

  private async config(sid: string, input: ConfigInput): Promise<Outcome_<ConfigUpdated>> {
    const state = await this.load(sid);
    if (!state) return { ok: false, refusal: "not_found" };
    if (state.row.operatorId !== input.callerId) return { ok: false, refusal: "forbidden" };
    const { row } = state;
    const nowIso = new Date(input.now).toISOString();
    const { changes, changeType } = classifyChange(configurationOf(row), input.config);

    if (!changeType) {
      const score = this.scoreAt(state.evidence, state.reporters, row, input.now);
      const result: ConfigUpdated = { changeDetected: false, changeType: null, fingerprint: row.fingerprint, score };
      if (input.idempotency) {
        const written = await this.commit(this.idempotencyRecord(input, 200, result));
        if (!Array.isArray(written)) return { ok: false, refusal: written };
      }
      return { ok: true, result, bookmark: this.db.getBookmark() };
    }

    const evidence = applyConfigChange(state.evidence, changes, input.now);
    const score = this.scoreAt(evidence, state.reporters, row, input.now);
    const result: ConfigUpdated = { changeDetected: true, changeType, fingerprint: input.fingerprint, score };
    const c = input.config;
    const DB = this.db;
    const tools = JSON.stringify(c.tools);
    const memory = c.memoryConfig === null ? null : JSON.stringify(c.memoryConfig);
    const statements = [
      ...this.idempotencyRecord(input, 200, result),
      this.scoreEvent(sid, `config_change:${changeType}`, score, nowIso),
      ...this.projections(sid, state, evidence, score, nowIso, {
        model_provider: c.modelProvider,
        model_name: c.modelName,
        system_prompt_hash: c.systemPromptHash,
        tools,
        memory_config: memory,
        fingerprint: input.fingerprint,
        config_version: row.configVersion + 1,
        last_config_change_at: nowIso,
      }),
      DB.prepare(
        `INSERT INTO config_history (sid, fingerprint, model_provider, model_name, change_type, created_at)
           VALUES (?, ?, ?, ?, ?, ?)`,
      ).bind(sid, input.fingerprint, c.modelProvider, c.modelName, changeType, nowIso),
    ];
    const written = await this.commit(statements);
    if (!Array.isArray(written)) return { ok: false, refusal: written };
    this.loaded = {
      ...state,
      row: {
        ...row,
        modelProvider: c.modelProvider,
        modelName: c.modelName,
        systemPromptHash: c.systemPromptHash,
        tools,
        memoryConfig: memory,
        fingerprint: input.fingerprint,
        configVersion: row.configVersion + 1,
        lastConfigChangeAt: nowIso,
        composite: score.composite,
        evidenceTotal: score.evidence,
        updatedAt: nowIso,
      },
      evidence,
    };
    return { ok: true, result, bookmark: this.db.getBookmark(), faceChanged: this.faceChanged(state, score, input.now) };
  }

  private async claimAgent(sid: string, input: { operatorId: number; claimTokenHash: string; now: number }): Promise<Outcome_<{ sid: string }>> {
    const state = await this.load(sid);
    if (!state) return { ok: false, refusal: "not_found" };
    const { row } = state;
    if (row.operatorId !== null) return { ok: false, refusal: "already_claimed" };
    if (!row.claimTokenHash || row.claimTokenHash !== input.claimTokenHash) return { ok: false, refusal: "invalid_claim_token" };
    const DB = this.db;
    const written = await this.commit([
      DB.prepare("UPDATE agents SET operator_id = ?, claim_token_hash = NULL WHERE sid = ? AND operator_id IS NULL").bind(input.operatorId, sid),
      // The agent brings the evidence it gathered while unclaimed into its new owner's score.
      DB.prepare(
        "UPDATE operators SET agent_evidence = agent_evidence + ?, agent_weighted_composite = agent_weighted_composite + ? WHERE id = ?",
      ).bind(row.evidenceTotal, row.evidenceTotal * row.composite, input.operatorId),
    ]);
    if (!Array.isArray(written)) return { ok: false, refusal: written };
    this.loaded = { ...state, row: { ...row, operatorId: input.operatorId, claimTokenHash: null } };
    return { ok: true, result: { sid }, bookmark: this.db.getBookmark() };
  }

  private scoreAt(evidence: EvidenceState, reporters: Record<string, string>, row: AgentRow, now: number): ScoreView {
    return scoreOf(evidence, {
      now,
      identityLevel: row.identityLevel,
      independentReporters: independentReporters(reporters, row.operatorId, now),
    });
  }

  /**
   * The new evidence and its projections: one UPDATE of the agent's row (with `alsoSet`, other
   * columns of the same change, named by this code only) and the delta of its owner's sums.
   */
  private projections(
    sid: string,
    before: Loaded,
    evidence: EvidenceState,
    score: ScoreView,
    nowIso: string,
    alsoSet: Record<string, string | number | null> = {},
  ): D1PreparedStatement[] {
    const { row } = before;
    const sets = { evidence: JSON.stringify(evidence), composite: score.composite, evidence_total: score.evidence, updated_at: nowIso, ...alsoSet };
    const statements = [
      this.db
        .prepare(`UPDATE agents SET ${Object.keys(sets).map((column) => `${column} = ?`).join(", ")} WHERE sid = ?`)
        .bind(...Object.values(sets), sid),
    ];
    if (row.operatorId !== null) {
      // Deltas, so concurrent scorers of the same operator's agents never overwrite each other.
      statements.push(
        this.db
          .prepare("UPDATE operators SET agent_evidence = agent_evidence + ?, agent_weighted_composite = agent_weighted_composite + ? WHERE id = ?")
          .bind(score.evidence - row.evidenceTotal, score.evidence * score.composite - row.evidenceTotal * row.composite, row.operatorId),
      );
    }
    return statements;
  }

  private scoreEvent(sid: string, eventType: string, score: ScoreView, nowIso: string): D1PreparedStatement {
    const d = score.dimensions;
    return this.db
      .prepare(
        `INSERT INTO score_events (sid, event_type, composite, reliability, quality, financial, security, stability, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(sid, eventType, score.composite, d.reliability, d.quality, d.financial, d.security, d.stability, nowIso);
  }

  /**
   * Whether what public faces show (composite, recommendation) moved, so the caller drops cached
   * badges; most reports on an agent with some history move neither.
   */
  private faceChanged(before: Loaded, after: ScoreView, now: number): boolean {
    const shown = this.scoreAt(before.evidence, before.reporters, before.row, now);
    return shown.composite !== after.composite || shown.recommendation !== after.recommendation;
  }

  /**
   * The idempotency record, written in the same batch as the change it records. The primary key
   * (operator, key) makes a concurrent duplicate fail the whole batch; the route then replays.
   */
  private idempotencyRecord(input: Common, status: number, result: object, idPath?: string) {
    const idem = input.idempotency;
    const operatorId = input.callerId;
    if (!idem) return [];
    const DB = this.db;
    const nowIso = new Date(input.now).toISOString();
    const body = JSON.stringify(result);
    return [
      DB.prepare("DELETE FROM idempotency_records WHERE operator_id = ? AND key = ? AND created_at <= ?").bind(
        operatorId,
        idem.key,
        new Date(input.now - IDEMPOTENCY_TTL_MS).toISOString(),
      ),
      DB.prepare(
        `INSERT INTO idempotency_records (operator_id, key, request_hash, status, response, created_at)
           VALUES (?, ?, ?, ?, ${idPath ? `json_set(?, '${idPath}', last_insert_rowid())` : "?"}, ?)`,
      ).bind(operatorId, idem.key, idem.requestHash, status, body, nowIso),
    ];
  }

  /**
   * Runs the batch (one SQL transaction). On failure the cache is dropped, so the next update starts
   * again from what D1 holds, and the refusal says whether an idempotency key collided.
   */
  private async commit(statements: D1PreparedStatement[]): Promise<D1Result[] | Refusal> {
    try {
      return await this.db.batch(statements);
    } catch (err) {
      this.loaded = null;
      this.recent.clear();
      const text = String((err as Error).message) + String((err as { cause?: unknown }).cause);
      if (isUniqueViolation(err) && text.includes("idempotency_records")) return "idempotency_conflict";
      console.error("agent score write failed", err);
      return "write_failed";
    }
  }
}
