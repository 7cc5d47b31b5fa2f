// The kernel's tables in the agent object's SQLite storage, and every statement on them: the
// agent's row (its record and the journal of shard writes not yet applied: ./agent-row), report
// times within the damping window, idempotency records, the outbox of events to publish, what score.changed last told, and
// small facts (`meta`). Each feature module keeps its own tables (./reports, ./identity, ./disputes).
//
// Storage is billed by the row written, and an index, an AUTOINCREMENT counter and a delete each
// count as one: so a change's journal entry rides in the agent's row and its report times share one
// row, the rows a report passes through are reused, not deleted (a change's times past both damping
// windows become the next one's: one row written instead of an insert and a delete), and no table of
// the report path carries an index it does not need.

import type { AgentRecord } from "../../domain/agent";
import type { ControlWrite, ShardWrite } from "../../db/shard-writes";
import { Answers, ANSWERS_SCHEMA, type StoredAnswer } from "./answers";
import { AGENT_ROW_SCHEMA, AgentRow, INLINE_TIMES, type Journaled, type Shown, type Time, type Tracked } from "./agent-row";
import { MODEL } from "../../domain/model";
import type { AgentEvent, Notified } from "../../domain/events";
import type { Leaf } from "../../domain/log/leaf";
import { fnv1a, randomHex } from "../../domain/identifiers";
import type { Feature } from "./feature";

export type { Journaled, Shown };

const SCHEMA = [
  ...AGENT_ROW_SCHEMA,
  ...ANSWERS_SCHEMA,
  // Report times the agent's row could no longer hold, INLINE_TIMES a row ([reporter, at] pairs, a
  // JSON array; `at`: the latest of them), in the order they came (rowid): the oldest row is the one reused.
  "CREATE TABLE IF NOT EXISTS recent_times (at INTEGER NOT NULL, times TEXT NOT NULL)",
  `CREATE TABLE IF NOT EXISTS idempotency (operator_id INTEGER NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL,
     result TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (operator_id, key)) WITHOUT ROWID`,
  "CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL, created_at INTEGER NOT NULL)",
  "CREATE TABLE IF NOT EXISTS notified (id INTEGER PRIMARY KEY CHECK (id = 1), composite INTEGER NOT NULL, recommendation TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
];

export type { StoredAnswer };

/** The storage fact that held the greatest journal id given, before the agent's row kept it. */
const LAST_JOURNAL = "journal_last";

/** Tables made before their present shape, and the text that tells the old shape from the new. */
const RESHAPED: readonly { table: string; columns: string; current: (sql: string) => boolean }[] = [
  { table: "journal", columns: "id, shard, control", current: (sql) => !/AUTOINCREMENT/i.test(sql) },
  { table: "idempotency", columns: "operator_id, key, request_hash, result, created_at", current: (sql) => /WITHOUT ROWID/i.test(sql) },
];
const NEW_EVENT = `INSERT INTO outbox (event, created_at)
  VALUES (json_set(?1, '$.id', ?2 || (coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'outbox'), 0) + 1)), ?3)
  RETURNING id, json_extract(event, '$.id') AS named`;
/** At most this many report times share a row when they are stored together (about 25 bytes each). */
const TIMES_PER_ROW = 10_000;
/** Expired records are forgotten at most this often by changes (and at every alarm). */
const FORGET_EVERY_MS = 3_600_000;

/**
 * What this storage holds that every change would otherwise read again: the journal entries the
 * shard may lack, the newest outbox id, what score.changed last told. Filled on first read, kept in
 * step by the writes here, and dropped whole when a transaction fails (its writes were rolled back,
 * so memory may be ahead of storage).
 */
interface Memo {
  /** Facts read or written in this life (every change asks for a few). */
  facts?: Map<string, unknown>;
  lastEvent?: number;
  notified?: Notified | null;
}

export class KernelStorage {
  private memo: Memo = {};
  /** When expired records were last forgotten (from meta, read once). */
  private forgotAt: number | undefined;

  /** The feature modules whose tables share this storage (set once, before the first migration). */
  features: readonly Feature[] = [];

  private readonly row: AgentRow;
  private readonly answers: Answers;

  /** `sql`: the storage's SQL interface (metered for the benchmark when the meter is on). */
  constructor(
    private readonly storage: DurableObjectStorage,
    readonly sql: SqlStorage = storage.sql,
  ) {
    this.row = new AgentRow(sql, () => this.fact<number>(LAST_JOURNAL) ?? 0);
    this.answers = new Answers(sql, { answers: () => this.row.rowAnswers(), setAnswers: (a) => this.row.setAnswers(a), saveAnswers: (a) => this.row.saveAnswers(a) });
  }

  /**
   * Creates every table (the kernel's and each feature's) once; at every later start a single read
   * finds them current. The schema's version is its own text: any change to a statement runs them all.
   */
  migrate(): void {
    this.forget();
    const statements = [...SCHEMA, ...this.features.flatMap((f) => f.schema)];
    const version = schemaVersion(statements);
    try {
      const current = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'schema'").toArray()[0];
      if (current && JSON.parse(current.value) === version) return;
    } catch {
      // No meta table yet: a new object.
    }
    for (const statement of statements) this.sql.exec(statement);
    // The journal's ids went on from its AUTOINCREMENT counter: they go on from there.
    const counter = this.sql.exec<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'journal'").toArray()[0];
    if (counter && counter.seq > (this.fact<number>(LAST_JOURNAL) ?? 0)) this.setFact(LAST_JOURNAL, counter.seq);
    for (const r of RESHAPED) this.storage.transactionSync(() => reshape(this.sql, SCHEMA, r.table, r.columns, r.current));
    this.storage.transactionSync(() => this.moveRecent());
    this.row.upgrade();
    for (const f of this.features) f.upgrade?.();
    this.setFact("schema", version);
  }

  /** Drops what memory holds of storage; the next reads go to storage. */
  forget(): void {
    this.memo = {};
    this.row.forget();
    this.answers.forget();
    for (const f of this.features) f.forget?.();
  }

  /** Runs `work` as one SQLite transaction: all of it is stored, or none. */
  atomically<T>(work: () => T): T {
    try {
      return this.storage.transactionSync(work);
    } catch (err) {
      this.forget();
      throw err;
    }
  }

  record(): AgentRecord | null {
    return this.row.record();
  }

  shown(): Shown | null {
    return this.row.shown();
  }

  /** A change: the record, what its shard row shows (null: as it was), its journal entry; the entries up to `applied` leave. */
  save(record: AgentRecord, shown: Shown | null, shard: ShardWrite[], control: ControlWrite[], applied: number): void {
    this.row.save(record, shown, shard, control, applied);
  }

  /** Journal entries after `afterId` (those up to it are known to be on the shard). */
  pending(afterId = 0): Journaled[] {
    return this.row.pending(afterId);
  }

  /** The log leaves the agent's row holds (./chain reads them with its outbox's). */
  rowLeaves(): Leaf[] {
    return this.row.rowLeaves();
  }

  /** A change's log leaves into the agent's row (./chain: those it gives up go to `spill`). */
  addRowLeaves(leaves: readonly Leaf[], acked: number, spill: (leaves: Leaf[]) => void): void {
    this.row.addLeaves(leaves, acked, spill);
  }

  /** The rollup tracks the agent's row holds (./rollups keeps the others in a table). */
  rowTracks(): Map<number, Tracked> {
    return this.row.rowTracks();
  }

  /** Writes the row's rollup tracks outside a change: now, or with the alarm's held writes (`now` false). */
  saveRowTracks(now = false): void {
    this.row.saveTracks(now);
  }

  /** Holds the agent row's housekeeping writes (the alarm's) until `releaseRow`, which makes them one update. */
  holdRow(): void {
    this.row.hold();
  }

  releaseRow(): void {
    this.row.release();
  }

  /** Drops the journal entries the shard has (the alarm's; erasure's, with their clear text). */
  applied(upToId: number): void {
    this.row.applied(upToId);
  }

  appliedRows(upToId: number): void {
    this.row.appliedRows(upToId);
  }

  /** Report times per reporter, for the damping of the next report: those in rows of their own, then the agent's row's. */
  recentReports(): Map<number, number[]> {
    const recent = new Map<number, number[]>();
    const add = (times: readonly Time[]) => {
      for (const [reporter, at] of times) {
        const kept = recent.get(reporter);
        if (kept) kept.push(at);
        else recent.set(reporter, [at]);
      }
    };
    for (const r of this.sql.exec<{ times: string }>("SELECT times FROM recent_times ORDER BY rowid")) add(JSON.parse(r.times) as Time[]);
    add(this.row.recentTimes());
    return recent;
  }

  /**
   * Adds a change's report times to the agent's row (written with the change's record). Times are
   * kept two damping windows, not one: a report stamped a little before an earlier one (clocks of
   * different isolates) still counts it, as a replay would. The alarm forgets the past rows no change reused.
   */
  rememberReports(times: { reporter: number; at: number }[], now: number): void {
    const since = now - 2 * MODEL.dampingWindowMs;
    this.row.addTimes(
      times.map((t) => [t.reporter, t.at]),
      since,
      (spilled) => this.spill(spilled, since),
    );
  }

  /** Times the agent's row gives up, in one row: that of the oldest when all of its times are past. */
  private spill(times: Time[], since: number): void {
    if (times.length === 0) return;
    const text = JSON.stringify(times);
    const latest = latestOf(times.map(([, at]) => ({ at })));
    const reused = this.sql.exec(
      "UPDATE recent_times SET rowid = (SELECT max(rowid) + 1 FROM recent_times), at = ?, times = ? WHERE rowid = (SELECT min(rowid) FROM recent_times) AND at <= ?",
      latest,
      text,
      since,
    ).rowsWritten;
    if (reused === 0) this.sql.exec("INSERT INTO recent_times (at, times) VALUES (?, ?)", latest, text);
  }

  /** The report times from now on (a replay's): the newest in the agent's row, the rest in rows of their own. */
  replaceRecent(recent: Map<number, number[]>): void {
    this.sql.exec("DELETE FROM recent_times");
    const times = [...recent].flatMap(([reporter, ats]) => ats.map((at) => ({ reporter, at }))).sort((a, b) => a.at - b.at);
    const cut = Math.max(0, times.length - INLINE_TIMES);
    this.insertTimes(times.slice(0, cut));
    this.row.replaceTimes(times.slice(cut).map((t) => [t.reporter, t.at]));
  }

  /** Times in rows of at most TIMES_PER_ROW (a row holds 2 MB at most). */
  private insertTimes(times: readonly { reporter: number; at: number }[]): void {
    for (let i = 0; i < times.length; i += TIMES_PER_ROW) {
      const row = times.slice(i, i + TIMES_PER_ROW);
      this.sql.exec("INSERT INTO recent_times (at, times) VALUES (?, ?)", latestOf(row), JSON.stringify(row.map((t) => [t.reporter, t.at])));
    }
  }

  /** Storage from before a change's times shared a row kept one row per time (`recent`): they move into rows of many. */
  private moveRecent(): void {
    if (this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'recent'").toArray().length === 0) return;
    this.insertTimes(this.sql.exec<{ reporter: number; at: number }>("SELECT reporter, at FROM recent ORDER BY rowid").toArray());
    this.sql.exec("DROP TABLE recent");
  }

  /** The answer recorded under an Idempotency-Key within 24 hours, if any (./answers). */
  answer(operatorId: number, key: string, now: number): StoredAnswer | null {
    return this.answers.find(operatorId, key, now);
  }

  keepAnswer(operatorId: number, key: string, requestHash: string, result: unknown, now: number): void {
    this.answers.keep(operatorId, key, requestHash, result, now);
  }

  /** Forgets expired idempotency records and what each feature keeps for a time (through forgetExpiredHourly, by a change or the alarm). */
  forgetExpired(now: number): void {
    this.answers.prune(now);
    for (const f of this.features) f.forgetExpired?.(now);
    this.forgotAt = now;
    this.setFact("forgot_at", now);
  }

  /** The alarm's: report times past both windows that no report reused (the agent went quiet). */
  forgetPastReports(now: number): void {
    this.sql.exec("DELETE FROM recent_times WHERE at <= ?", now - 2 * MODEL.dampingWindowMs);
  }

  /** forgetExpired, when it last ran an hour or more before `now`: a number compared, most times. */
  forgetExpiredHourly(now: number): void {
    this.forgotAt ??= this.fact<number>("forgot_at") ?? 0;
    if (now - this.forgotAt >= FORGET_EVERY_MS) this.forgetExpired(now);
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
    const prefix = `evt_${event.sid.slice(6)}_${this.epoch()}_`;
    // The row's number is one past the AUTOINCREMENT counter: the id goes in with the insert (one
    // row written, where an update after it was one more), checked against the number it took.
    const { id, named } = this.sql.exec<{ id: number; named: string }>(NEW_EVENT, JSON.stringify(event), prefix, Date.now()).one();
    if (named !== `${prefix}${id}`) this.sql.exec("UPDATE outbox SET event = json_set(event, '$.id', ?) WHERE id = ?", `${prefix}${id}`, id);
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

  fact<T>(key: string): T | null {
    const facts = (this.memo.facts ??= new Map());
    if (!facts.has(key)) {
      const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0];
      facts.set(key, row ? JSON.parse(row.value) : null);
    }
    return facts.get(key) as T | null;
  }

  setFact(key: string, value: unknown): void {
    const text = JSON.stringify(value);
    this.sql.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, text);
    (this.memo.facts ??= new Map()).set(key, JSON.parse(text));
  }
}

/**
 * Gives a table made in an older shape its present one (the statement in `schema`), keeping its rows:
 * CREATE TABLE IF NOT EXISTS leaves an existing table as it was.
 */
export function reshape(sql: SqlStorage, schema: readonly string[], table: string, columns: string, current: (sql: string) => boolean): void {
  const made = sql.exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", table).toArray()[0];
  if (!made || current(made.sql)) return;
  const create = schema.find((s) => s.includes(`IF NOT EXISTS ${table} (`));
  if (!create) throw new Error(`no statement makes ${table}`);
  sql.exec(create.replace(`IF NOT EXISTS ${table} (`, `${table}_reshaped (`));
  sql.exec(`INSERT INTO ${table}_reshaped (${columns}) SELECT ${columns} FROM ${table}`);
  sql.exec(`DROP TABLE ${table}`);
  sql.exec(`ALTER TABLE ${table}_reshaped RENAME TO ${table}`);
}

/** The latest of report times (a loop: a spread of a long history's times would overflow the stack). */
function latestOf(times: readonly { at: number }[]): number {
  let latest = -Infinity;
  for (const t of times) latest = Math.max(latest, t.at);
  return latest;
}

/** A short digest of the schema's statements (FNV-1a): storage made under other statements runs them again. */
function schemaVersion(statements: readonly string[]): string {
  return `s${fnv1a(statements.join(";")).toString(16)}`;
}
