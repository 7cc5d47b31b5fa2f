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
import type { Env } from "../env";
import { purgeBadge } from "../routes/badges";

const INDEPENDENT_WINDOW_MS = SCORING.independentReporterWindowMs;
const IDEMPOTENCY_TTL_MS = 86_400_000;

export interface Idempotency {
  key: string;
  requestHash: string;
}

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

export type Refusal =
  | "not_found"
  | "forbidden"
  | "suspended"
  | "idempotency_conflict"
  | "already_claimed"
  | "invalid_claim_token"
  | "invalid_challenge"
  | "write_failed";
/** `bookmark`: the D1 bookmark after this update, so the client can read its own write from a replica. */
export type Outcome_<T> = { ok: true; result: T; bookmark: string | null } | { ok: false; refusal: Refusal };

interface Loaded {
  row: AgentRow;
  evidence: EvidenceState;
  reporters: Record<string, string>;
  outcomes: Record<string, number>;
}

/**
 * One object per agent (named by its SID): every change to the agent (its score, configuration,
 * owner, status and identity level) passes through here, one at a time. D1 is not this object's storage, so its input gate opens while a D1 call is
 * awaited; the promise chain in `serial` is what keeps read-compute-write strictly in order.
 * The agent's scoring state is cached here after the first read (this object is its only writer);
 * each update is one D1 batch, and a failed batch drops the cache so nothing half-applied survives.
 */
export class AgentScorer extends DurableObject<Env> {
  private tail: Promise<unknown> = Promise.resolve();
  private db!: D1DatabaseSession;
  private loaded: Loaded | null = null;
  /** Report times (ms) of each reporter on this agent within the damping window. */
  private recent = new Map<number, number[]>();

  reportTransaction(sid: string, input: TransactionInput): Promise<Outcome_<TransactionRecorded>> {
    return this.serial(() => this.transaction(sid, input));
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
      this.ctx.waitUntil(purgeBadge(sid));
      return { ok: true, result: { identityLevel }, bookmark: this.db.getBookmark() };
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

  private async transaction(sid: string, input: TransactionInput): Promise<Outcome_<TransactionRecorded>> {
    const state = await this.load(sid);
    if (!state) return { ok: false, refusal: "not_found" };
    if (state.row.status === "suspended") return { ok: false, refusal: "suspended" };
    const { row } = state;
    const now = input.now;
    const nowIso = new Date(now).toISOString();
    const isOwner = row.operatorId === input.callerId;
    const earlier = await this.earlierReports(sid, input.callerId, now);
    const weight = reporterWeight({ isOwner, reporterVerified: input.reporterVerified, earlierReportsInWindow: earlier.length });
    const evidence = applyTransaction(state.evidence, { outcome: input.outcome, signals: input.signals }, weight, now);
    const reporters = isOwner ? { ...state.reporters } : { ...state.reporters, [input.callerId]: nowIso };
    for (const [id, at] of Object.entries(reporters)) if (now - Date.parse(at) > INDEPENDENT_WINDOW_MS) delete reporters[id];
    const outcomes = { ...state.outcomes, [input.outcome]: (state.outcomes[input.outcome] ?? 0) + 1 };
    const score = this.scoreAt(evidence, reporters, row, input.now);

    const DB = this.db;
    const statements = [
      DB.prepare(
        `INSERT INTO transactions (sid, reporter_operator_id, transaction_type, outcome, reliability_signal, quality_signal,
           financial_signal, security_signal, weight, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      ).bind(
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
      // Right after the insert, so last_insert_rowid() is the new transaction's id.
      ...this.idempotencyRecord(input, 201, { score }, "$.transactionId"),
      ...this.scoreWrites(sid, state, evidence, score, `transaction:${input.outcome}`, nowIso, {
        reporters: JSON.stringify(reporters),
        outcome_counts: JSON.stringify(outcomes),
      }),
    ];
    const results = await this.commit(statements);
    if (!Array.isArray(results)) return { ok: false, refusal: results };

    const transactionId = (results[0].results[0] as { id: number }).id;
    this.loaded = {
      row: { ...row, composite: score.composite, evidenceTotal: score.evidence, updatedAt: nowIso },
      evidence,
      reporters,
      outcomes,
    };
    this.recent.set(input.callerId, [...earlier, now]);
    this.purgeBadgeIfChanged(sid, state, score, now);
    return { ok: true, result: { transactionId, score }, bookmark: this.db.getBookmark() };
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
      ...this.scoreWrites(sid, state, evidence, score, `config_change:${changeType}`, nowIso, {
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
    this.purgeBadgeIfChanged(sid, state, score, input.now);
    return { ok: true, result, bookmark: this.db.getBookmark() };
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
   * The new evidence and its projections on the agent (one UPDATE of its row, with `alsoSet`: other
   * columns of the same change, named by this code only) and its owner, and the history event.
   */
  private scoreWrites(
    sid: string,
    state: Loaded,
    evidence: EvidenceState,
    score: ScoreView,
    eventType: string,
    nowIso: string,
    alsoSet: Record<string, string | number | null> = {},
  ) {
    const DB = this.db;
    const { row } = state;
    const d = score.dimensions;
    const sets = { evidence: JSON.stringify(evidence), composite: score.composite, evidence_total: score.evidence, updated_at: nowIso, ...alsoSet };
    const statements = [
      DB.prepare(`UPDATE agents SET ${Object.keys(sets).map((column) => `${column} = ?`).join(", ")} WHERE sid = ?`).bind(
        ...Object.values(sets),
        sid,
      ),
      DB.prepare(
        `INSERT INTO score_events (sid, event_type, composite, reliability, quality, financial, security, stability, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).bind(sid, eventType, score.composite, d.reliability, d.quality, d.financial, d.security, d.stability, nowIso),
    ];
    if (row.operatorId !== null) {
      // Deltas, so concurrent scorers of the same operator's agents never overwrite each other.
      statements.push(
        DB.prepare(
          "UPDATE operators SET agent_evidence = agent_evidence + ?, agent_weighted_composite = agent_weighted_composite + ? WHERE id = ?",
        ).bind(score.evidence - row.evidenceTotal, score.evidence * score.composite - row.evidenceTotal * row.composite, row.operatorId),
      );
    }
    return statements;
  }

  /**
   * Drops the agent's cached badges when what they show (composite, recommendation) changed; most
   * reports on an agent with some history move neither.
   */
  private purgeBadgeIfChanged(sid: string, before: Loaded, after: ScoreView, now: number): void {
    const shown = this.scoreAt(before.evidence, before.reporters, before.row, now);
    if (shown.composite !== after.composite || shown.recommendation !== after.recommendation) this.ctx.waitUntil(purgeBadge(sid));
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
