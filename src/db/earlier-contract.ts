// The move of one agent from an earlier contract to the record's (3) and to scoring model version 4.
// Contract 1: its object's own storage held the record, a journal of shard writes not yet applied,
// idempotency records, receipt ids, challenges, disputes and an outbox of events; what it holds goes
// to the shard first. Contract 2: the row was the record under version 3. Either way the agent's
// history on the shard is replayed under version 4 (its aggregates and every pair), and the row is
// written whole with `contract = 3` in the batch that writes its pairs; the object's storage is
// cleared. The agent object runs this before it first uses a row on an earlier contract (and the
// sweep, `npm run admin -- migrate-objects`, wakes every object so that it does). Interrupted
// anywhere, the next run starts again, idempotently. Once every deployment has swept, this file goes.

import { RECORD_CONTRACT, replaceAgent, rowOf, type Loaded } from "./agent-record";
import { packText } from "./entry-text";
import { jsonRowChunks } from "./json-rows";
import { lastEntry, replayOnShard } from "./history";
import { controlStatements, shardStatements, type ControlWrite } from "./shard-writes";
import { GENESIS } from "../domain/entries";
import { idemOf } from "../domain/idempotency";
import { SEQUENCE_SPACE, type AgentRecord, type AgentRef } from "../domain/agent";
import type { AgentKey } from "../domain/agent-keys";
import { disputesDueOf, type Dispute } from "../domain/disputes";
import type { AgentEvent, Notified } from "../domain/events";
import { sendAll } from "../domain/queue-batches";
import type { Env } from "../env";
import { log } from "../log";

/** The shard writes the earlier contract's journal held (src/db/shard-writes.ts of that contract). */
type LegacyShardWrite =
  | { kind: "agent" | "score" | "current" }
  | { kind: "entry"; row: Record<string, unknown> }
  | { kind: "config"; row: Record<string, unknown> }
  | { kind: "entryStatus"; sid: string; n: number; status: string }
  | { kind: "retireLegacy"; sid: string }
  | { kind: "keyAdded"; row: { sid: string; thumbprint: string; jwk: string; directoryUrl: string | null; addedAt: string } }
  | { kind: "keyRemoved"; sid: string; thumbprint: string }
  | { kind: "rollup"; row: Record<string, unknown> };

type Answer = [operatorId: number, key: string, requestHash: string, result: unknown, at: number];

const ENTRY_COLUMNS = ["sid", "n", "kind", "at", "operator", "status", "ref", "body", "hash", "salt", "private", "composite"] as const;
const ENTRY_PROPS: Record<(typeof ENTRY_COLUMNS)[number], string> = {
  sid: "sid",
  n: "n",
  kind: "kind",
  at: "at",
  operator: "operator",
  status: "status",
  ref: "ref",
  body: "body",
  hash: "hash",
  salt: "salt",
  private: "private",
  composite: "composite",
};

/**
 * Report answers into their entries, many rows a statement. The rows are read once into a table of
 * their own: joined straight to json_each, SQLite scans the JSON again for every entry of the agent.
 */
export const PUT_ANSWERS = `WITH j (n, idem, answer) AS MATERIALIZED (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?))
  UPDATE entries SET idem = j.idem, answer = j.answer FROM j WHERE entries.sid = ? AND entries.n = j.n`;

export class EarlierContract {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly env: Env,
  ) {}

  private get sql() {
    return this.storage.sql;
  }

  /** Whether the object's storage still holds this table of the earlier contract. */
  table(name: string): boolean {
    return this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
  }

  /** A row on the earlier contract, read by the kernel: what this object's storage holds moves to the shard. */
  async upgrade(loaded: Loaded, d1: D1DatabaseSession, now: number): Promise<Loaded> {
    const ref: AgentRef = loaded.record;
    const stored = this.table("agent")
      ? this.sql
          .exec<{ record: string; journal: string | null; answers: string | null }>("SELECT record, journal, answers FROM agent WHERE id = 1")
          .toArray()[0]
      : undefined;
    let record: AgentRecord = loaded.record;
    let notified: Notified | null = loaded.notified;
    let published = loaded.published;
    if (loaded.contract >= 2) {
      // On the record's contract already: only the model moves.
    } else if (stored) {
      record = { ...ref, ...(JSON.parse(stored.record) as AgentRecord) };
      await this.applyJournal(d1, ref.sid, stored.journal);
      await this.sendEvents();
      notified = this.table("notified")
        ? (this.sql.exec<{ composite: number; recommendation: string }>("SELECT composite, recommendation FROM notified WHERE id = 1").toArray()[0] ?? null)
        : null;
      // The log has every leaf up to its acknowledgement: the outbox sends the rest again.
      published = Math.min(record.seq, this.fact<number>("log_acked") ?? 0);
      await this.moveAnswers(d1, ref, stored.answers, now);
      await this.moveReceipts(d1, ref.sid, now);
      await this.moveChallenges(d1, ref.sid, now);
      record = { ...record, disputesDue: await this.moveDisputes(d1, ref.sid) };
    } else {
      // An agent untouched since before the history was a chain: release 1.1's objects move that history when woken.
      const version = await d1.prepare("SELECT history_version AS v FROM agents WHERE sid = ?").bind(ref.sid).first<number>("v");
      if (version !== null && version < 2)
        throw new Error(`${ref.sid}: its history is still in the tables from before the chain; wake it under release 1.1 first (docs/operations.md)`);
      // No storage (it was never written, or lost): the shard's record is rebuilt from its history.
      record = await this.rebuilt(d1, loaded);
    }
    const replay = await replayOnShard(d1, record);
    record = { ...record, evidence: replay.evidence };
    const row = rowOf(record, now, published, notified);
    await d1.batch([...shardStatements(d1, [{ kind: "pairs", sid: ref.sid, rows: replay.pairs, replaced: true }]), replaceAgent(d1, row)]);
    await this.storage.deleteAll();
    log("info", "agent moved to the record's contract", { sid: ref.sid, seq: record.seq, published });
    return {
      record,
      published,
      notified,
      contract: RECORD_CONTRACT,
      shown: { composite: row.composite!, confidence: row.confidence!, recommendation: row.recommendation! },
    };
  }

  private fact<T>(key: string): T | null {
    if (!this.table("meta")) return null;
    const row = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0];
    return row ? (JSON.parse(row.value) as T) : null;
  }

  /** The journal's writes the shard may lack, applied again (each is idempotent as the earlier contract made them). */
  private async applyJournal(d1: D1DatabaseSession, sid: string, inline: string | null): Promise<void> {
    const journal: { shard: LegacyShardWrite[]; control: ControlWrite[] }[] = inline
      ? (JSON.parse(inline) as { shard: LegacyShardWrite[]; control: ControlWrite[] }[])
      : [];
    if (this.table("journal")) {
      for (const r of this.sql.exec<{ shard: string; control: string }>("SELECT shard, control FROM journal ORDER BY id")) {
        journal.push({ shard: JSON.parse(r.shard) as LegacyShardWrite[], control: JSON.parse(r.control) as ControlWrite[] });
      }
    }
    const statements: D1PreparedStatement[] = [];
    const control: ControlWrite[] = [];
    for (const j of journal) {
      control.push(...j.control);
      for (const w of j.shard) {
        if (w.kind === "entry") {
          const row = w.row as Record<string, unknown>;
          const values = ENTRY_COLUMNS.map((c) => {
            const v = row[ENTRY_PROPS[c]] ?? null;
            return (c === "body" || c === "private") && typeof v === "string" ? packText(v) : v;
          });
          statements.push(
            d1.prepare(`INSERT OR IGNORE INTO entries (${ENTRY_COLUMNS.join(", ")}) VALUES (${ENTRY_COLUMNS.map(() => "?").join(", ")})`).bind(...values),
          );
        } else if (w.kind === "config") {
          const r = w.row as Record<string, unknown>;
          statements.push(
            d1
              .prepare(
                "INSERT OR IGNORE INTO config_history (sid, seq, fingerprint, model_provider, model_name, change_type, changes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
              )
              .bind(r.sid, r.seq ?? null, r.fingerprint, r.modelProvider, r.modelName, r.changeType ?? null, r.changes ?? null, r.createdAt),
          );
        } else if (w.kind === "entryStatus") {
          statements.push(d1.prepare("UPDATE entries SET status = ? WHERE sid = ? AND n = ?").bind(w.status, w.sid, w.n));
        }
        // Rollup rows (version 3's job input) are not moved: version 4's job reads the pairs.
        // The agent's row is written whole from the record below; its keys live in the row's state.
      }
    }
    for (let i = 0; i < statements.length; i += 50) await d1.batch(statements.slice(i, i + 50));
    if (control.length > 0) await this.env.DB.withSession("first-primary").batch(controlStatements(this.env.DB, control));
    if (statements.length > 0) log("info", "journal entries of the earlier contract applied", { sid, statements: statements.length, control: control.length });
  }

  /** Events the earlier outbox had not sent go to the events queue (their ids stay: deliveries dedupe repeats). */
  private async sendEvents(): Promise<void> {
    if (!this.table("outbox") || !this.env.EVENTS) return;
    const events = this.sql
      .exec<{ event: string }>("SELECT event FROM outbox ORDER BY id")
      .toArray()
      .map((r) => JSON.parse(r.event) as AgentEvent);
    await sendAll(this.env.EVENTS, events);
  }

  /** Idempotency records younger than 24 hours join the entries they answered (a report's: by its transaction id). */
  private async moveAnswers(d1: D1DatabaseSession, ref: AgentRef, inline: string | null, now: number): Promise<void> {
    const since = now - 86_400_000;
    const answers: Answer[] = inline ? (JSON.parse(inline) as Answer[]) : [];
    if (this.table("answer_rows"))
      for (const r of this.sql.exec<{ answers: string }>("SELECT answers FROM answer_rows")) answers.push(...(JSON.parse(r.answers) as Answer[]));
    if (this.table("idempotency")) {
      for (const r of this.sql.exec<{ operator_id: number; key: string; request_hash: string; result: string; created_at: number }>(
        "SELECT * FROM idempotency",
      )) {
        answers.push([r.operator_id, r.key, r.request_hash, JSON.parse(r.result), r.created_at]);
      }
    }
    // A report's answer names its entry: all of them in a few statements (./json-rows), the last
    // record of an entry winning as it did when each was its own statement.
    const reports = new Map<number, [number, string, string]>();
    const statements: D1PreparedStatement[] = [];
    for (const [operatorId, key, requestHash, result, at] of answers.filter((a) => a[4] > since)) {
      const id = (result as { transactionId?: unknown } | null)?.transactionId;
      if (typeof id === "number" && Math.floor(id / SEQUENCE_SPACE) === ref.num) {
        const n = id % SEQUENCE_SPACE;
        reports.set(n, [n, idemOf(operatorId, key), JSON.stringify({ h: requestHash, r: result })]);
        continue;
      }
      // A configuration change's answer names no entry: its record is the config entry made at its time.
      statements.push(
        d1
          .prepare("UPDATE entries SET idem = ?, answer = ? WHERE sid = ? AND n = (SELECT max(n) FROM entries WHERE sid = ? AND kind = 'config' AND at = ?)")
          .bind(idemOf(operatorId, key), JSON.stringify({ h: requestHash, r: { ...(result as object), at } }), ref.sid, ref.sid, at),
      );
    }
    for (const json of jsonRowChunks(reports.values())) statements.push(d1.prepare(PUT_ANSWERS).bind(json, ref.sid));
    for (let i = 0; i < statements.length; i += 50) await d1.batch(statements.slice(i, i + 50));
  }

  /** Receipt ids still within their window join the receipted reports made when they were spent. */
  private async moveReceipts(d1: D1DatabaseSession, sid: string, now: number): Promise<void> {
    if (!this.table("receipts")) return;
    const live = this.sql.exec<{ jti: string; at: number }>("SELECT jti, at FROM receipts WHERE forget_at > ?", now).toArray();
    const statements = live.map((r) =>
      d1
        .prepare("UPDATE entries SET jti = ? WHERE sid = ? AND n = (SELECT max(n) FROM entries WHERE sid = ? AND kind = 'report' AND at <= ? AND jti IS NULL)")
        .bind(r.jti, sid, sid, r.at),
    );
    for (let i = 0; i < statements.length; i += 50) await d1.batch(statements.slice(i, i + 50));
  }

  /** Unexpired challenge tokens and nonces go to the shard's `challenges`. */
  private async moveChallenges(d1: D1DatabaseSession, sid: string, now: number): Promise<void> {
    const rows: D1PreparedStatement[] = [];
    for (const [table, column, kind] of [
      ["challenges", "token_hash", "callback"],
      ["nonces", "nonce", "nonce"],
    ] as const) {
      if (!this.table(table)) continue;
      for (const r of this.sql.exec<{ token: string; expires_at: number; used: number }>(
        `SELECT ${column} AS token, expires_at, used FROM ${table} WHERE expires_at > ?`,
        now,
      )) {
        rows.push(
          d1
            .prepare("INSERT OR REPLACE INTO challenges (sid, token, kind, expires_at, used) VALUES (?, ?, ?, ?, ?)")
            .bind(sid, r.token, kind, r.expires_at, r.used),
        );
      }
    }
    if (rows.length > 0) await d1.batch(rows);
  }

  /** The disputes the object decided go to the shard's `disputes`; the earliest open deadline stays with the record. */
  private async moveDisputes(d1: D1DatabaseSession, sid: string): Promise<number | null> {
    if (!this.table("disputes")) return null;
    const disputes = this.sql
      .exec<{ dispute: string }>("SELECT dispute FROM disputes")
      .toArray()
      .map((r) => JSON.parse(r.dispute) as Dispute);
    if (disputes.length > 0) {
      await d1.batch(
        disputes.map((d) =>
          d1.prepare("INSERT OR REPLACE INTO disputes (sid, id, status, dispute) VALUES (?, ?, ?, ?)").bind(sid, d.id, d.status, JSON.stringify(d)),
        ),
      );
    }
    return disputesDueOf(disputes);
  }

  /** An agent whose object holds nothing: its record from the shard's row, keys and chain head. */
  private async rebuilt(d1: D1DatabaseSession, loaded: Loaded): Promise<AgentRecord> {
    const { record } = loaded;
    const last = await lastEntry(d1, record.sid);
    const { results: keys } = await d1
      .prepare("SELECT thumbprint, jwk, directory_url, added_at FROM agent_keys WHERE sid = ? ORDER BY added_at")
      .bind(record.sid)
      .all<{ thumbprint: string; jwk: string; directory_url: string | null; added_at: string }>();
    return {
      ...record,
      keys: keys.map((k): AgentKey => ({ thumbprint: k.thumbprint, jwk: JSON.parse(k.jwk), directoryUrl: k.directory_url, addedAt: k.added_at })),
      seq: last?.n ?? 0,
      chainHash: last?.hash ?? GENESIS,
    };
  }
}
