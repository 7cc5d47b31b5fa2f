// The agent's row in its object's storage: its record, what its shard row shows, and the journal of
// the shard writes (and control writes) of changes the shard may not have yet. Every change writes
// the record, so its journal entry rides in the same row: one row written per change where a record
// row and a journal row were two, and the entries the shard has leave with the next change's write
// (or the alarm's, one row) instead of a delete each. An entry that would take the row's journal
// past INLINE_MAX (the shard down for a while) goes to the `journal` table instead, one row each,
// reusing the row of the oldest entry the shard has: a row holds 2 MB at most, and rewriting a long
// journal with every change would cost more than it saves. The agent's recent report times (for
// damping) ride in the row the same way, up to INLINE_TIMES; past that, the ones it held go to a row
// of their own (./storage's `recent_times`), one row per INLINE_TIMES reports. So do the log leaves
// the log has not acknowledged, up to INLINE_LEAVES (./chain's `log_outbox` takes the rest), and the
// rollup tracks of up to INLINE_TRACKS of the agent's busiest reporters (./rollups' `rollup_tracks`
// takes the others): a report then writes no row for its reporter's track. And the idempotency records of its
// recent keyed changes (./answers).

import type { AgentRecord } from "../../domain/agent";
import type { ControlWrite, ShardWrite } from "../../db/shard-writes";
import type { Leaf } from "../../domain/log/leaf";
import type { RollupTrack } from "../../domain/model";

export const AGENT_ROW_SCHEMA = [
  // `journal`: the entries kept in the row (a JSON list); `journal_last`: the greatest journal id given.
  // `times`: report times kept in the row ([reporter, at] pairs, oldest first); `leaves`: log leaves kept in the row;
  // `tracks`: rollup tracks kept in the row ([reporter, track, waiting] triples); `answers`: idempotency records kept in the row.
  "CREATE TABLE IF NOT EXISTS agent (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL, shown TEXT, journal TEXT, journal_last INTEGER, times TEXT, leaves TEXT, tracks TEXT, answers TEXT)",
  // Entries past the row's share, one per row (ids given by the row, never reused).
  "CREATE TABLE IF NOT EXISTS journal (id INTEGER PRIMARY KEY, shard TEXT NOT NULL, control TEXT NOT NULL)",
];

/** The bytes of journal text the agent's row holds at most (a change's entry is 1-3 KB). */
const INLINE_MAX = 64 * 1024;
/** The report times the agent's row holds at most (about 25 bytes each). */
export const INLINE_TIMES = 1_000;

/** The log leaves the agent's row holds at most (about 230 bytes each). */
const INLINE_LEAVES = 200;

/** The reporters whose rollup tracks the agent's row holds at most (about 500 bytes each). */
export const INLINE_TRACKS = 32;

/** A reporter's rollup track, and since when its row has waited to go to the shard (0: it is there). */
export interface Tracked {
  track: RollupTrack;
  waiting: number;
}

/** An idempotency record: the caller, its key, the request's hash, the answer given, and when. */
export type Answer = [operatorId: number, key: string, requestHash: string, result: unknown, at: number];

/** A report time: the reporter's number on this agent, and when. */
export type Time = [reporter: number, at: number];

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

interface Kept extends Journaled {
  /** In the agent's row (else a row of the journal table). */
  inline: boolean;
  size: number;
}

/** The row's columns that change outside a save. */
type Column = "journal" | "tracks" | "answers";

/** An entry's share of the row's journal text: its own and the comma after it. */
const sizeOf = (j: Journaled) => JSON.stringify(j).length + 1;

export class AgentRow {
  /** The journal as storage holds it, oldest first (undefined: not read in this life, or dropped). */
  private entries: Kept[] | undefined;
  /** The report times in the row, read with the journal. */
  private times: Time[] = [];
  /** The log leaves in the row, read with the journal. */
  private leaves: Leaf[] = [];
  /** The rollup tracks in the row, by reporter, read with the journal. */
  private tracks = new Map<number, Tracked>();
  /** The idempotency records in the row, read with the journal. */
  private answers: Answer[] = [];
  /**
   * The greatest journal id given. Ids only grow, in this object's life (kept through `forget`) and
   * across lives (every write of the row stores it): an id given again would be taken for an entry
   * the shard already has.
   */
  private last = 0;
  /**
   * While held (the alarm's housekeeping: the journal it applied, the tracks' waiting marks, expired
   * idempotency records), the columns changed outside a save, written in one update by `release`
   * (storage is billed by the row written, and each update of the row is one).
   */
  private held: Set<Column> | null = null;

  /** `legacyLast`: the greatest id as storage from before `journal_last` kept it (a fact). */
  constructor(
    private readonly sql: SqlStorage,
    private readonly legacyLast: () => number,
  ) {}

  /** Storage made before the row kept the journal gets its columns (its journal table stays, and is read). */
  upgrade(): void {
    const columns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('agent')").toArray();
    for (const column of ["journal TEXT", "journal_last INTEGER", "times TEXT", "leaves TEXT", "tracks TEXT", "answers TEXT"]) {
      if (!columns.some((c) => c.name === column.split(" ")[0])) this.sql.exec(`ALTER TABLE agent ADD COLUMN ${column}`);
    }
  }

  forget(): void {
    this.entries = undefined;
    this.held?.clear();
  }

  /** Holds the row's housekeeping writes until `release` (a crash in between loses only housekeeping, done again later). */
  hold(): void {
    this.held ??= new Set();
  }

  /** Writes what was held, in one update, and stops holding. */
  release(): void {
    const held = this.held;
    this.held = null;
    if (held && held.size > 0) this.write(held);
  }

  private changed(column: Column): void {
    if (this.held) this.held.add(column);
    else this.write(new Set([column]));
  }

  private write(columns: ReadonlySet<Column>): void {
    const set: [string, string | number | null][] = [];
    if (columns.has("journal")) set.push(["journal", inlineText(this.entries ?? [])], ["journal_last", this.last]);
    if (columns.has("tracks")) set.push(["tracks", tracksText(this.tracks)]);
    if (columns.has("answers")) set.push(["answers", this.answers.length === 0 ? null : JSON.stringify(this.answers)]);
    this.sql.exec(`UPDATE agent SET ${set.map(([c]) => `${c} = ?`).join(", ")} WHERE id = 1`, ...set.map(([, v]) => v));
  }

  record(): AgentRecord | null {
    const row = this.sql.exec<{ record: string }>("SELECT record FROM agent WHERE id = 1").toArray()[0];
    return row ? (JSON.parse(row.record) as AgentRecord) : null;
  }

  shown(): Shown | null {
    const row = this.sql.exec<{ shown: string | null }>("SELECT shown FROM agent WHERE id = 1").toArray()[0];
    return row?.shown ? (JSON.parse(row.shown) as Shown) : null;
  }

  /**
   * Stores a change: the record, what its shard row shows when the change writes it (else that stays
   * as it was), and its journal entry when it has writes. Entries up to `applied` (the shard has
   * them) leave the row.
   */
  save(record: AgentRecord, shown: Shown | null, shard: ShardWrite[], control: ControlWrite[], applied: number): void {
    const entries = this.load().filter((j) => j.id > applied || !j.inline);
    if (shard.length > 0 || control.length > 0) {
      const entry: Journaled = { id: ++this.last, shard, control };
      const size = sizeOf(entry);
      // The list's text is its entries' shares and the brackets, less one comma.
      const room = INLINE_MAX - 1 - entries.reduce((sum, j) => sum + (j.inline ? j.size : 0), 0);
      if (size <= room) {
        entries.push({ ...entry, inline: true, size });
      } else {
        this.intoTable(entries, entry, applied);
        entries.push({ ...entry, inline: false, size });
      }
    }
    this.sql.exec(
      `INSERT INTO agent (id, record, shown, journal, journal_last, times, leaves, tracks, answers) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET record = excluded.record, shown = coalesce(excluded.shown, agent.shown), journal = excluded.journal,
         journal_last = excluded.journal_last, times = excluded.times, leaves = excluded.leaves, tracks = excluded.tracks, answers = excluded.answers`,
      JSON.stringify(record),
      shown && JSON.stringify(shown),
      inlineText(entries),
      this.last,
      JSON.stringify(this.times),
      JSON.stringify(this.leaves),
      tracksText(this.tracks),
      this.answers.length === 0 ? null : JSON.stringify(this.answers),
    );
    this.entries = entries;
    this.held?.clear();
  }

  /** An entry into the journal table, in the row of its oldest entry the shard has when there is one. */
  private intoTable(entries: Kept[], entry: Journaled, applied: number): void {
    const text = [JSON.stringify(entry.shard), JSON.stringify(entry.control)];
    const oldest = entries.findIndex((j) => !j.inline && j.id <= applied);
    if (oldest >= 0) {
      this.sql.exec("UPDATE journal SET id = ?, shard = ?, control = ? WHERE id = ?", entry.id, ...text, entries[oldest].id);
      entries.splice(oldest, 1);
    } else {
      this.sql.exec("INSERT INTO journal (id, shard, control) VALUES (?, ?, ?)", entry.id, ...text);
    }
  }

  private load(): Kept[] {
    if (!this.entries) {
      const row = this.sql
        .exec<{ journal: string | null; journal_last: number | null; times: string | null; leaves: string | null; tracks: string | null; answers: string | null }>(
          "SELECT journal, journal_last, times, leaves, tracks, answers FROM agent WHERE id = 1",
        )
        .toArray()[0];
      this.times = row?.times ? (JSON.parse(row.times) as Time[]) : [];
      this.leaves = row?.leaves ? (JSON.parse(row.leaves) as Leaf[]) : [];
      this.answers = row?.answers ? (JSON.parse(row.answers) as Answer[]) : [];
      const tracks = row?.tracks ? (JSON.parse(row.tracks) as [number, RollupTrack, number][]) : [];
      this.tracks = new Map(tracks.map(([reporter, track, waiting]) => [reporter, { track, waiting }]));
      const inline = (row?.journal ? (JSON.parse(row.journal) as Journaled[]) : []).map((j) => ({ ...j, inline: true, size: sizeOf(j) }));
      const table = this.sql
        .exec<{ id: number; shard: string; control: string }>("SELECT id, shard, control FROM journal ORDER BY id")
        .toArray()
        .map((j) => ({ id: j.id, shard: JSON.parse(j.shard) as ShardWrite[], control: JSON.parse(j.control) as ControlWrite[], inline: false, size: 0 }));
      this.entries = [...inline, ...table].sort((a, b) => a.id - b.id);
      this.last = Math.max(this.last, this.entries.at(-1)?.id ?? 0, row?.journal_last ?? 0, this.legacyLast());
    }
    return this.entries;
  }

  /** The report times the row holds, oldest first. */
  recentTimes(): Time[] {
    this.load();
    return this.times;
  }

  /**
   * A change's report times join the row's, written with its next save (those at or before `since`
   * leave). When the row would hold more than INLINE_TIMES, the ones it held go to `spill` first.
   */
  addTimes(times: readonly Time[], since: number, spill: (times: Time[]) => void): void {
    this.times = admit(
      this.recentTimes().filter(([, at]) => at > since),
      times,
      INLINE_TIMES,
      spill,
    );
  }

  /** The row's report times from now on (at most INLINE_TIMES), written with the next save. */
  replaceTimes(times: readonly Time[]): void {
    this.load();
    this.times = [...times];
  }

  /** The log leaves the row holds (some may be acknowledged since: they leave with the next leaves). */
  rowLeaves(): Leaf[] {
    this.load();
    return this.leaves;
  }

  /**
   * A change's leaves join the row's, written with its next save (those up to `acked` leave). When
   * the row would hold more than INLINE_LEAVES, the ones it held go to `spill` first (and a change's
   * own, when they alone are more).
   */
  addLeaves(leaves: readonly Leaf[], acked: number, spill: (leaves: Leaf[]) => void): void {
    this.leaves = admit(
      this.rowLeaves().filter((l) => l.seq > acked),
      leaves,
      INLINE_LEAVES,
      spill,
    );
  }

  /** Journal entries after `afterId` (those up to it are known to be on the shard). */
  pending(afterId = 0): Journaled[] {
    return this.load().filter((j) => j.id > afterId);
  }

  /** The rollup tracks the row holds, by reporter: changed in place, written with the next save (or `saveTracks`). */
  rowTracks(): Map<number, Tracked> {
    this.load();
    return this.tracks;
  }

  /** The idempotency records the row holds, oldest first. */
  rowAnswers(): Answer[] {
    this.load();
    return this.answers;
  }

  /** The row's idempotency records from now on, written with the next save (./answers bounds them). */
  setAnswers(answers: Answer[]): void {
    this.load();
    this.answers = answers;
  }

  /** Writes the row's idempotency records now (the hourly housekeeping's, when some expired). */
  saveAnswers(answers: Answer[]): void {
    this.load();
    this.answers = answers;
    this.changed("answers");
  }

  /** Writes the row's tracks now, or with the held writes (the rollups' alarm); `now`: never held (their making, whose transaction they belong to). */
  saveTracks(now = false): void {
    this.load();
    if (now) this.write(new Set(["tracks"]));
    else this.changed("tracks");
  }

  /**
   * Drops the entries the shard has once some of them are rows of the journal table (a row change's
   * save does not drop those): a new object life would apply them again after the changes that
   * followed them (a key added, then removed: added again).
   */
  appliedRows(upToId: number): void {
    if (this.load().some((j) => !j.inline && j.id <= upToId)) this.applied(upToId);
  }

  /**
   * Drops the entries the shard has (the alarm's: the object may be evicted before its next change;
   * and erasure's: the clear text goes from here too), keeping the greatest id given.
   */
  applied(upToId: number): void {
    const entries = this.load();
    const rest = entries.filter((j) => j.id > upToId);
    if (rest.length === entries.length) return;
    if (entries.some((j) => !j.inline && j.id <= upToId)) this.sql.exec("DELETE FROM journal WHERE id <= ?", upToId);
    this.entries = rest;
    // The greatest id goes with it even when only table rows leave (storage from before the row kept it).
    this.changed("journal");
  }
}

/**
 * What the row holds after `added` joins `held`, at most `max`: when both do not fit, `held` goes to
 * `spill` (a row of its own), and `added` too when it alone does not fit.
 */
function admit<T>(held: T[], added: readonly T[], max: number, spill: (items: T[]) => void): T[] {
  if (held.length + added.length <= max) return [...held, ...added];
  if (held.length > 0) spill(held);
  if (added.length <= max) return [...added];
  spill([...added]);
  return [];
}

function tracksText(tracks: ReadonlyMap<number, Tracked>): string | null {
  return tracks.size === 0 ? null : JSON.stringify([...tracks].map(([reporter, t]) => [reporter, t.track, t.waiting]));
}

function inlineText(entries: readonly Kept[]): string {
  return JSON.stringify(entries.filter((j) => j.inline).map(({ id, shard, control }) => ({ id, shard, control })));
}
