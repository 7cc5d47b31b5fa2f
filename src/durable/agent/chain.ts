// The agent's chain of history entries, as the kernel appends to it: each change's entries are
// numbered after the record's head, chained, written as the shard's entry rows, and each gives a
// leaf for the agent's transparency log, kept until the log has it: in the agent's row, written with
// the change's record anyway (./agent-row), up to 200 leaves; past that, the ones the row held go
// to a row of the `log_outbox` table (storage is billed by the row written, so a change writes no
// row for its leaves, and a busy agent one per 200 or so). Outbox rows of leaves the log has are not
// deleted: the next leaves that go there take them over (one row written where an insert and a
// delete are two); how far the log holds the agent's leaves is a fact.

import type { EntryRow, ShardWrite } from "../../db/shard-writes";
import type { AgentRecord } from "../../domain/agent";
import { chainEntries, reporterCommitment, scoreCommit, type Chained, type EntryDraft } from "../../domain/entries";
import { agentTag, logKey, type Leaf } from "../../domain/log/leaf";
import { sendLeaves, type LogItem } from "../../domain/log/messages";
import type { Env } from "../../env";
import { sequencerName } from "../log-sequencer";
import type { Feature } from "./feature";

/** The storage fact holding the last seq the log acknowledged. */
const ACKED = "log_acked";
/** Leaves the log has not acknowledged are checked and sent again this long after they were sent. */
const LOG_CHECK_MS = 60_000;
/** At most this many leaves share an outbox row (about 230 bytes each; a row holds 2 MB at most). */
const LEAVES_PER_ROW = 1_000;

/** An entry a change appends: the entry itself, the composite that followed it, and what its row keeps beside it. */
export interface EntryWrite {
  draft: EntryDraft;
  composite: number;
  row?: Pick<EntryRow, "operator" | "status" | "ref" | "salt" | "private">;
}

export interface Appended {
  record: AgentRecord;
  chained: Chained[];
  shard: ShardWrite[];
  leaves: Leaf[];
}

export class Chain implements Feature {
  // `n`: the greatest seq among the row's leaves; `leaf`: leaves (a JSON array), or one leaf (an
  // object) in rows from before leaves shared a row.
  readonly schema = ["CREATE TABLE IF NOT EXISTS log_outbox (n INTEGER PRIMARY KEY, leaf TEXT NOT NULL)"];
  /** Reporters' commitments on this agent, by operator id (an HMAC each: computed once per object life). */
  private commitments = new Map<number, Promise<string>>();
  private agentName: Promise<string> | undefined;
  /** Whether the outbox may hold leaves (false once read empty, until a commit adds some). */
  private maybePending = true;
  /** Leaves up to this entry number were sent to the log in this object's life. */
  private sent = 0;
  /** Leaves up to this entry number were handed to a caller to send (`handOut`) in this object's life. */
  private handed = 0;
  /** Leaves up to this entry number are in the log (read from storage once). */
  private acked: number | undefined;
  /** When the alarm next asks the log about sent leaves: undefined in a new object life (the first alarm asks), null while none waits. */
  private checkAt: number | null | undefined;

  constructor(
    private readonly env: Env,
    private readonly sql: () => SqlStorage,
    private readonly store: {
      fact<T>(key: string): T | null;
      setFact(key: string, value: unknown): void;
      rowLeaves(): Leaf[];
      addRowLeaves(leaves: readonly Leaf[], acked: number, spill: (leaves: Leaf[]) => void): void;
    },
  ) {}

  forget(): void {
    this.maybePending = true;
    this.sent = 0;
    this.handed = 0;
    this.acked = undefined;
    this.checkAt = undefined;
  }

  /** Leaves went out at `now`: when the log is to be asked about them (an earlier check stands). */
  checkLater(now: number): number {
    const at = now + LOG_CHECK_MS;
    if (this.checkAt == null || this.checkAt > at) this.checkAt = at;
    return this.checkAt;
  }

  /** When the alarm is to ask the log about sent leaves (kept when the alarm is moved). */
  deadline(): number | null {
    return this.checkAt ?? null;
  }

  /** At an alarm: true when the log is to be asked now (always in a new object life), else when it is (null: nothing waits for it). */
  checkDue(now: number): true | number | null {
    return this.checkAt === undefined || (this.checkAt !== null && this.checkAt <= now) ? true : this.checkAt;
  }

  /** The log is being asked: no check waits until leaves go out again. */
  checking(): void {
    this.checkAt = null;
  }

  private ackedUpTo(): number {
    this.acked ??= this.store.fact<number>(ACKED) ?? 0;
    return this.acked;
  }

  /** The reporter's (or owner's) commitment on this agent. */
  commitment(sid: string, operatorId: number): Promise<string> {
    let c = this.commitments.get(operatorId);
    if (!c) this.commitments.set(operatorId, (c = reporterCommitment(secret(this.env.REPORTER_KEY, "REPORTER_KEY"), sid, operatorId)));
    return c;
  }

  /** Chains the entries after the record's head: the record moves its head; rows and leaves to store with the change. */
  async append(record: AgentRecord, writes: readonly EntryWrite[]): Promise<Appended> {
    const { chained, head } = await chainEntries(record.sid, { n: record.seq, hash: record.chainHash }, writes.map((w) => w.draft));
    const agent = await this.tag(record.sid);
    const leaves = await Promise.all(
      chained.map(async (c, i): Promise<Leaf> => ({ agent, seq: c.entry.n, entry_hash: c.hash, score_commit: await scoreCommit(writes[i].composite, c.entry.nonce) })),
    );
    const shard: ShardWrite[] = chained.map((c, i) => ({
      kind: "entry",
      row: { sid: record.sid, n: c.entry.n, kind: c.entry.kind, at: Date.parse(c.entry.at), body: c.text, hash: c.hash, composite: writes[i].composite, ...writes[i].row },
    }));
    return { record: { ...record, seq: head.n, chainHash: head.hash }, chained, shard, leaves };
  }

  /**
   * Keeps a change's leaves until the log acknowledges them: in the agent's row, stored with the
   * change (so called inside its storage transaction, before the record is saved).
   */
  keep(leaves: readonly Leaf[]): void {
    if (leaves.length === 0) return;
    // A whole history's leaves (a move into the chain) take several rows: a row holds 2 MB at most.
    this.store.addRowLeaves(leaves, this.ackedUpTo(), (spilled) => {
      for (let i = 0; i < spilled.length; i += LEAVES_PER_ROW) this.keepRow(spilled.slice(i, i + LEAVES_PER_ROW));
    });
    this.maybePending = true;
  }

  private keepRow(leaves: readonly Leaf[]): void {
    const n = leaves.reduce((max, l) => Math.max(max, l.seq), 0);
    const text = JSON.stringify(leaves);
    // The oldest row is free once the log has its greatest leaf (and so every leaf in it).
    const reused = this.sql().exec(
      "UPDATE OR REPLACE log_outbox SET n = ?, leaf = ? WHERE n = (SELECT min(n) FROM log_outbox) AND n <= ?",
      n,
      text,
      this.ackedUpTo(),
    ).rowsWritten;
    if (reused === 0) this.sql().exec("INSERT OR REPLACE INTO log_outbox (n, leaf) VALUES (?, ?)", n, text);
  }

  /** The leaves the log has not acknowledged, in order; past entry `after` only, when given. */
  pending(after = 0): Leaf[] {
    if (!this.maybePending) return [];
    const acked = this.ackedUpTo();
    const from = Math.max(after, acked);
    // A row holds leaves up to its n: the rows past `from` hold every leaf past it (and maybe some before).
    const bySeq = new Map<number, Leaf>();
    const rows = this.sql().exec<{ leaf: string }>("SELECT leaf FROM log_outbox WHERE n > ? ORDER BY n", from);
    for (const leaf of [...[...rows].flatMap((r) => [JSON.parse(r.leaf) as Leaf | Leaf[]].flat()), ...this.store.rowLeaves()]) {
      if (leaf.seq > from) bySeq.set(leaf.seq, leaf);
    }
    const leaves = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    if (after <= acked) this.maybePending = leaves.length > 0;
    return leaves;
  }

  /** The log has every leaf up to `n`: they leave the outbox (their rows wait for the next leaves). */
  acknowledged(n: number): void {
    if (n === this.ackedUpTo()) return;
    this.store.setFact(ACKED, n);
    this.acked = n;
  }

  /**
   * Asks the agent's log how far it holds the agent's leaves and drops those from the outbox; the
   * highest seq it holds, null when nothing waits, or "unavailable" when the log cannot be asked now.
   */
  async reconcile(record: AgentRecord): Promise<number | null | "unavailable"> {
    if (this.pending().length === 0) return null;
    try {
      const status = await this.env.LOG_SEQUENCER.getByName(sequencerName(record.log ?? 0)).status(await this.tag(record.sid));
      this.acknowledged(status.acknowledged);
      this.maybePending = true;
      return status.acknowledged;
    } catch (err) {
      console.error(JSON.stringify({ level: "error", message: "log: the sequencer's status is unavailable; leaves stay in the outbox", sid: record.sid, error: String(err) }));
      return "unavailable";
    }
  }

  /**
   * Sends the leaves of new entries to the agent's log (through the log queue), once per object life;
   * they stay in the outbox until the log acknowledges them, and the alarm sends again what it has not.
   * True when leaves went out (or failed to): the caller checks on them later.
   */
  async publish(record: AgentRecord): Promise<boolean> {
    const queue = this.env.LOG_QUEUE;
    if (!queue) return false;
    // Only what this life has not sent: the leaves waiting for the log's acknowledgement stay unread.
    const leaves = this.pending(this.sent);
    if (leaves.length === 0) return false;
    try {
      await sendLeaves(queue, leaves.map((leaf) => ({ log: record.log ?? 0, sid: record.sid, leaf })));
      this.sent = leaves[leaves.length - 1].seq;
    } catch (err) {
      console.error(JSON.stringify({ level: "error", message: "leaves not sent; the log outbox keeps them", sid: record.sid, leaves: leaves.length, error: String(err) }));
    }
    return true;
  }

  /**
   * The leaves neither sent nor handed out yet, for a caller that sends them with other agents' (a
   * batch of reports) and then says so (`sentBy`); they stay in the outbox all the same.
   */
  handOut(record: AgentRecord): { after: number; to: number; items: LogItem[] } | null {
    if (!this.env.LOG_QUEUE) return null;
    const after = Math.max(this.sent, this.handed);
    const leaves = this.pending(after);
    if (leaves.length === 0) return null;
    this.handed = leaves[leaves.length - 1].seq;
    return { after, to: this.handed, items: leaves.map((leaf) => ({ log: record.log ?? 0, sid: record.sid, leaf })) };
  }

  /**
   * A caller sent the leaves handed out past `after` up to `to`. True when that moves what was sent:
   * not when an earlier hand-out was never confirmed (then the alarm sends from the gap on), nor past
   * what this object life handed out.
   */
  sentBy(after: number, to: number): boolean {
    if (after > this.sent || to > this.handed || to <= this.sent) return false;
    this.sent = to;
    return true;
  }

  /**
   * At the alarm: the leaves the log lacks go again, from the first it lacks (a lost message). True
   * when the log is to be asked again later (leaves went out, or the log could not be asked).
   */
  async resend(record: AgentRecord): Promise<boolean> {
    const held = await this.reconcile(record);
    if (held === "unavailable") return true;
    if (held === null) return false;
    this.sent = held;
    return this.publish(record);
  }

  /** The agent's name in its log, HMAC-SHA256(LOG_KEY, sid): computed once per object life. */
  private tag(sid: string): Promise<string> {
    this.agentName ??= logKey(this.env.LOG_KEY).then((key) => {
      if (!key) throw new Error("LOG_KEY is not set (32 bytes, base64): history entries cannot be written");
      return agentTag(key, sid);
    });
    return this.agentName;
  }
}

function secret(value: string | undefined, name: string): string {
  if (!value || value.length < 16) throw new Error(`${name} is not set: history entries cannot be written`);
  return value;
}
