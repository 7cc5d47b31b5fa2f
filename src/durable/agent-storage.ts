// The agent object's own SQLite storage: its working state, and every statement on it, in one place.
// Tables: the agent's record; the journal of shard writes not yet applied; report times within the
// damping window; idempotency records; the outbox of events to publish; callback challenge tokens;
// small facts (`meta`).

import type { AgentRecord } from "../domain/agent";
import type { ControlWrite, ShardWrite } from "../db/shard-writes";
import { IDEMPOTENCY_TTL_MS } from "../domain/idempotency";
import { MODEL } from "../domain/model";
import type { AgentEvent, Notified } from "../domain/events";
import type { Dispute } from "../domain/disputes";
import { randomHex } from "../domain/identifiers";

/** Bumped with every change to SCHEMA; an object whose storage is at it creates nothing at start. */
const SCHEMA_VERSION = 6;
const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS agent (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL, shown TEXT)",
  // One entry per change: its shard writes and control writes, in order.
  "CREATE TABLE IF NOT EXISTS journal (id INTEGER PRIMARY KEY AUTOINCREMENT, shard TEXT NOT NULL, control TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS recent (reporter INTEGER NOT NULL, at INTEGER NOT NULL)",
  "CREATE INDEX IF NOT EXISTS recent_at ON recent (at)",
  `CREATE TABLE IF NOT EXISTS idempotency (operator_id INTEGER NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
     result TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (operator_id, key))`,
  "CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL, created_at INTEGER NOT NULL)",
  "CREATE TABLE IF NOT EXISTS notified (id INTEGER PRIMARY KEY CHECK (id = 1), composite INTEGER NOT NULL, recommendation TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS challenges (token_hash TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0)",
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  // Every receipt id the agent's reports were credited for: a receipt never counts twice. Kept
  // until `forget_at`, after which any receipt with that id is refused as too old anyway.
  "CREATE TABLE IF NOT EXISTS receipts (jti TEXT PRIMARY KEY, at INTEGER NOT NULL, forget_at INTEGER)",
  // The agent's disputes (the control database lists them; this storage decides).
  "CREATE TABLE IF NOT EXISTS disputes (id INTEGER PRIMARY KEY, dispute TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS nonces (nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0)",
];

export interface Journaled {
  id: number;
  shard: ShardWrite[];
  control: ControlWrite[];
}

/** What the agent's shard row shows: the alarm compares it with the score now. */
export interface Shown {
  composite: number;
  confidence: string;
  recommendation: string;
}

/** Old report times are pruned once this many were added since the last pruning. */
const PRUNE_EVERY = 64;
/** Expired idempotency records and receipt ids are forgotten at most this often by changes. */
const FORGET_EVERY_MS = 3_600_000;
/** A receipt id kept before version 6 (no forget_at) is forgotten this long after its report. */
const LEGACY_RECEIPT_KEEP_MS = 2 * 86_400_000;

export interface StoredAnswer {
  requestHash: string;
  result: unknown;
}

/**
 * What this storage holds that every change would otherwise read again: the journal entries the
 * shard may lack, the newest outbox id, what score.changed last told, the disputes. Filled on first
 * read, kept in step by the writes here, and dropped whole when a transaction fails (its writes
 * were rolled back, so memory may be ahead of storage).
 */
interface Memo {
  journal?: Journaled[];
  lastEvent?: number;
  notified?: Notified | null;
  disputes?: Dispute[];
}

export class AgentStorage {
  private addedSincePrune = 0;
  private memo: Memo = {};
  /** When expired records were last forgotten (from meta, read once). */
  private forgotAt: number | undefined;

  constructor(private readonly storage: DurableObjectStorage) {}

  private get sql() {
    return this.storage.sql;
  }

  /** Creates the tables once; at every later start a single read finds them current. */
  migrate(): void {
    this.forget();
    try {
      const current = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'schema'").toArray()[0];
      if (current && Number(JSON.parse(current.value)) === SCHEMA_VERSION) return;
    } catch {
      // No meta table yet: a new object.
    }
    for (const statement of SCHEMA) this.sql.exec(statement);
    // Storage from before version 6: its receipts table has no forget_at.
    const columns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('receipts')").toArray();
    if (!columns.some((c) => c.name === "forget_at")) {
      this.sql.exec("ALTER TABLE receipts ADD COLUMN forget_at INTEGER");
      this.sql.exec("UPDATE receipts SET forget_at = at + ?", LEGACY_RECEIPT_KEEP_MS);
    }
    this.setFact("schema", SCHEMA_VERSION);
  }

  /** Drops what memory holds of storage; the next reads go to storage. */
  forget(): void {
    this.memo = {};
  }

  /** Runs `work` as one SQLite transaction: all of it is stored, or none. */
  atomically<T>(work: () => T): T {
    try {
      return this.storage.transactionSync(work);
    } catch (err) {
      this.memo = {};
      throw err;
    }
  }

  record(): AgentRecord | null {
    const row = this.sql.exec<{ record: string }>("SELECT record FROM agent WHERE id = 1").toArray()[0];
    return row ? (JSON.parse(row.record) as AgentRecord) : null;
  }

  /** The record, and what its shard row shows when this change writes it (else that stays as it was). */
  saveRecord(record: AgentRecord, shown: Shown | null): void {
    if (shown) {
      this.sql.exec(
        "INSERT INTO agent (id, record, shown) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record, shown = excluded.shown",
        JSON.stringify(record),
        JSON.stringify(shown),
      );
    } else {
      this.sql.exec("INSERT INTO agent (id, record) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record", JSON.stringify(record));
    }
  }

  shown(): Shown | null {
    const row = this.sql.exec<{ shown: string | null }>("SELECT shown FROM agent WHERE id = 1").toArray()[0];
    return row?.shown ? (JSON.parse(row.shown) as Shown) : null;
  }

  journal(shard: ShardWrite[], control: ControlWrite[] = []): void {
    if (shard.length === 0 && control.length === 0) return;
    const { id } = this.sql.exec<{ id: number }>("INSERT INTO journal (shard, control) VALUES (?, ?) RETURNING id", JSON.stringify(shard), JSON.stringify(control)).one();
    this.memo.journal?.push({ id, shard, control });
  }

  /** Journal entries after `afterId` (those up to it are known to be on the shard). */
  pending(afterId = 0): Journaled[] {
    this.memo.journal ??= this.sql
      .exec<{ id: number; shard: string; control: string }>("SELECT id, shard, control FROM journal ORDER BY id")
      .toArray()
      .map((j) => ({ id: j.id, shard: JSON.parse(j.shard) as ShardWrite[], control: JSON.parse(j.control) as ControlWrite[] }));
    return this.memo.journal.filter((j) => j.id > afterId);
  }

  applied(upToId: number): void {
    this.sql.exec("DELETE FROM journal WHERE id <= ?", upToId);
    if (this.memo.journal) this.memo.journal = this.memo.journal.filter((j) => j.id > upToId);
  }

  /** Report times per reporter, for the damping of the next report. */
  recentReports(): Map<number, number[]> {
    const recent = new Map<number, number[]>();
    for (const r of this.sql.exec<{ reporter: number; at: number }>("SELECT reporter, at FROM recent ORDER BY rowid")) {
      recent.set(r.reporter, [...(recent.get(r.reporter) ?? []), r.at]);
    }
    return recent;
  }

  /**
   * Adds report times and forgets those long past. Times are kept two damping windows, not one: a
   * report stamped a little before an earlier one (clocks of different isolates) still counts it,
   * as a replay would.
   */
  rememberReports(times: { reporter: number; at: number }[], now: number): void {
    for (const t of times) this.sql.exec("INSERT INTO recent (reporter, at) VALUES (?, ?)", t.reporter, t.at);
    this.addedSincePrune += times.length;
    if (this.addedSincePrune < PRUNE_EVERY) return;
    this.addedSincePrune = 0;
    this.sql.exec("DELETE FROM recent WHERE at <= ?", now - 2 * MODEL.dampingWindowMs);
  }

  replaceRecent(recent: Map<number, number[]>): void {
    this.sql.exec("DELETE FROM recent");
    for (const [reporter, times] of recent) for (const at of times) this.sql.exec("INSERT INTO recent (reporter, at) VALUES (?, ?)", reporter, at);
  }

  /** The answer recorded under an Idempotency-Key within 24 hours, if any. */
  answer(operatorId: number, key: string, now: number): StoredAnswer | null {
    const row = this.sql
      .exec<{ request_hash: string; result: string }>(
        "SELECT request_hash, result FROM idempotency WHERE operator_id = ? AND key = ? AND created_at > ?",
        operatorId,
        key,
        now - IDEMPOTENCY_TTL_MS,
      )
      .toArray()[0];
    return row ? { requestHash: row.request_hash, result: JSON.parse(row.result) } : null;
  }

  keepAnswer(operatorId: number, key: string, requestHash: string, result: unknown, now: number): void {
    this.sql.exec(
      `INSERT INTO idempotency (operator_id, key, request_hash, result, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (operator_id, key) DO UPDATE SET request_hash = excluded.request_hash, result = excluded.result, created_at = excluded.created_at`,
      operatorId,
      key,
      requestHash,
      JSON.stringify(result),
      now,
    );
  }

  forgetOldAnswers(now: number): void {
    this.sql.exec("DELETE FROM idempotency WHERE created_at <= ?", now - IDEMPOTENCY_TTL_MS);
  }

  /** Forgets receipt ids no receipt could be accepted with any more (too old by then). */
  forgetOldReceipts(now: number): void {
    this.sql.exec("DELETE FROM receipts WHERE forget_at <= ?", now);
  }

  /** Forgets expired idempotency records and receipt ids (the alarm's, and every hour a change's). */
  forgetExpired(now: number): void {
    this.forgetOldAnswers(now);
    this.forgetOldReceipts(now);
    this.forgotAt = now;
    this.setFact("forgot_at", now);
  }

  /** forgetExpired, when it last ran an hour or more before `now`: a number compared, most times. */
  forgetExpiredHourly(now: number): void {
    this.forgotAt ??= this.fact<number>("forgot_at") ?? 0;
    if (now - this.forgotAt >= FORGET_EVERY_MS) this.forgetExpired(now);
  }

  addChallenge(tokenHash: string, expiresAt: number): void {
    this.sql.exec("INSERT OR REPLACE INTO challenges (token_hash, expires_at, used) VALUES (?, ?, 0)", tokenHash, expiresAt);
  }

  /** Consumes an unexpired, unused challenge token: true once, then never again. */
  consumeChallenge(tokenHash: string, now: number): boolean {
    const consumed = this.sql
      .exec("UPDATE challenges SET used = 1 WHERE token_hash = ? AND used = 0 AND expires_at > ? RETURNING token_hash", tokenHash, now)
      .toArray();
    this.sql.exec("DELETE FROM challenges WHERE expires_at <= ?", now - 86_400_000);
    return consumed.length === 1;
  }

  /** What score.changed last told: the next event is due when the score crosses the threshold from here. */
  notified(): Notified | null {
    if (this.memo.notified === undefined) {
      const row = this.sql.exec<{ composite: number; recommendation: string }>("SELECT composite, recommendation FROM notified WHERE id = 1").toArray()[0];
      this.memo.notified = row ? { composite: row.composite, recommendation: row.recommendation } : null;
    }
    return this.memo.notified;
  }

  setNotified(n: Notified): void {
    this.sql.exec(
      "INSERT INTO notified (id, composite, recommendation) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET composite = excluded.composite, recommendation = excluded.recommendation",
      n.composite,
      n.recommendation,
    );
    this.memo.notified = { composite: n.composite, recommendation: n.recommendation };
  }

  /**
   * Adds an event to the outbox. Its id is the agent's SID, this storage's epoch and the entry's
   * number; it is written into the entry, so every retry of the event keeps it. The entry numbers
   * start at 1 again in a storage rebuilt from the shard: the epoch, new with every storage, keeps
   * the ids of its events from ever matching those of events sent before (which deliveries would
   * take for ones already made).
   */
  addEvent(event: Omit<AgentEvent, "id">): void {
    const epoch = this.epoch();
    const { id } = this.sql.exec<{ id: number }>("INSERT INTO outbox (event, created_at) VALUES (?, ?) RETURNING id", JSON.stringify(event), Date.now()).one();
    this.sql.exec("UPDATE outbox SET event = json_set(event, '$.id', ?) WHERE id = ?", `evt_${event.sid.slice(6)}_${epoch}_${id}`, id);
    this.memo.lastEvent = id;
  }

  /**
   * Where this storage's events stand: its epoch (drawn now when it has none yet) and the number of
   * its last event (0: none yet). A later event of this storage has a greater number.
   */
  eventPosition(): { epoch: string; n: number } {
    const epoch = this.epoch();
    const row = this.sql.exec<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").toArray()[0];
    return { epoch, n: row?.seq ?? 0 };
  }

  /** This storage's epoch: 12 random hex digits, drawn once, when its first event is added. */
  private epoch(): string {
    const stored = this.fact<string>("epoch");
    if (stored) return stored;
    const epoch = randomHex(6);
    this.setFact("epoch", epoch);
    return epoch;
  }

  /** Events after `afterId` (those up to it were sent). */
  outbox(afterId = 0): { id: number; event: AgentEvent }[] {
    // Most changes add no event: then the newest id known here says there is nothing to read.
    if (this.memo.lastEvent !== undefined && this.memo.lastEvent <= afterId) return [];
    const events = this.sql
      .exec<{ id: number; event: string }>("SELECT id, event FROM outbox WHERE id > ? ORDER BY id", afterId)
      .toArray()
      .map((r) => ({ id: r.id, event: JSON.parse(r.event) as AgentEvent }));
    this.memo.lastEvent = events.length > 0 ? events[events.length - 1].id : afterId;
    return events;
  }

  published(upToId: number): void {
    this.sql.exec("DELETE FROM outbox WHERE id <= ?", upToId);
  }

  dispute(id: number): Dispute | null {
    const row = this.sql.exec<{ dispute: string }>("SELECT dispute FROM disputes WHERE id = ?", id).toArray()[0];
    return row ? (JSON.parse(row.dispute) as Dispute) : null;
  }

  disputes(): Dispute[] {
    this.memo.disputes ??= this.sql.exec<{ dispute: string }>("SELECT dispute FROM disputes ORDER BY id").toArray().map((r) => JSON.parse(r.dispute) as Dispute);
    return this.memo.disputes;
  }

  saveDispute(d: Dispute): void {
    this.sql.exec("INSERT INTO disputes (id, dispute) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET dispute = excluded.dispute", d.id, JSON.stringify(d));
    this.memo.disputes = undefined;
  }

  seenReceipt(jti: string): boolean {
    return this.sql.exec("SELECT 1 FROM receipts WHERE jti = ?", jti).toArray().length > 0;
  }

  keepReceipt(jti: string, at: number, forgetAt: number): void {
    this.sql.exec("INSERT INTO receipts (jti, at, forget_at) VALUES (?, ?, ?)", jti, at, forgetAt);
  }

  /** Keeps a signature challenge; expired ones are forgotten (a used one stays used until then). */
  addNonce(nonce: string, expiresAt: number, now: number): void {
    this.sql.exec("DELETE FROM nonces WHERE expires_at <= ?", now);
    this.sql.exec("INSERT OR IGNORE INTO nonces (nonce, expires_at, used) VALUES (?, ?, 0)", nonce, expiresAt);
  }

  /**
   * Spends a nonce the service issued without storing it (a credential request's): true the first
   * time, false ever after while it is kept (until it expires; it is refused as expired then).
   */
  spendNonce(nonce: string, expiresAt: number, now: number): boolean {
    this.sql.exec("DELETE FROM nonces WHERE expires_at <= ?", now);
    return this.sql.exec("INSERT INTO nonces (nonce, expires_at, used) VALUES (?, ?, 1) ON CONFLICT (nonce) DO NOTHING RETURNING nonce", nonce, expiresAt).toArray().length === 1;
  }

  /** Consumes an issued, unexpired, unused nonce: true once, then never again. */
  consumeNonce(nonce: string, now: number): boolean {
    return this.sql.exec("UPDATE nonces SET used = 1 WHERE nonce = ? AND used = 0 AND expires_at > ? RETURNING nonce", nonce, now).toArray().length === 1;
  }

  voidChallenge(tokenHash: string): void {
    this.sql.exec("UPDATE challenges SET used = 1 WHERE token_hash = ?", tokenHash);
  }

  fact<T>(key: string): T | null {
    const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0];
    return row ? (JSON.parse(row.value) as T) : null;
  }

  setFact(key: string, value: unknown): void {
    this.sql.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, JSON.stringify(value));
  }
}
