// The daily rollups (R1) this agent's reports add to its shard for the credibility job: one row per
// (reporter, agent, UTC day), written whole (the journal may send it twice; the second write changes
// nothing). What it needs per reporter (first report, distinct days, the day's row) is its track: in
// the agent's row for up to INLINE_TRACKS reporters (written with the change's record anyway; a
// reporter busier than the row's idlest takes its place), in the table `rollup_tracks` for the
// others. A day's row waits in its track for up to the lag (ROLLUP_LAG_SECONDS, default an hour)
// and goes to the shard at the alarm, with every later report of that hour in it (written from the
// track itself, which keeps it until the shard has it): the job reads the rows once a day, so a row
// per report and commit bought nothing but D1 writes. A
// row whose day is over goes with the commit that starts the reporter's next day. An object without
// tracks (storage from before rollups, or rebuilt) first makes them, and the rows of its last 180
// days, from its history on the shard: resumable by construction, since every row it writes is whole.

import { readEntries, type SnapshotPrivate } from "../../db/history";
import { deleteAgentRollups, replaceRollup, storedRollup, upsertRollup } from "../../db/rollups";
import { rollupWrite, type ShardWrite } from "../../db/shard-writes";
import type { AgentRecord } from "../../domain/agent";
import { DAY_MS, MODEL, rollupsOf, type RollupTrack, type TrackedReport } from "../../domain/model";
import type { Outcome, SignalDimension } from "../../domain/model";
import { INLINE_TRACKS, type Tracked } from "./agent-row";
import { Backoff, log, type AgentHost, type Feature } from "./host";

/** The storage fact that says the tracks are made (its value: the version of how they were made). */
const MADE = "rollups";
const MADE_VERSION = 1;
/** Rows written per shard batch by the migration. */
const MIGRATION_BATCH = 50;
const DEFAULT_LAG_S = 3600;
const UPSERT_TRACK =
  "INSERT INTO rollup_tracks (reporter, track, waiting) VALUES (?, ?, ?) ON CONFLICT (reporter) DO UPDATE SET track = excluded.track, waiting = excluded.waiting";
/** The job's daily run starts at 03:30 UTC: a day's last rows must be on the shards before it. */
const MAX_LAG_S = 3 * 3600;

/** How long a changed rollup row may wait in the object (ms): ROLLUP_LAG_SECONDS, 0 to 3 hours, else an hour. */
export function rollupLagMs(env: { ROLLUP_LAG_SECONDS?: string }): number {
  const s = Number(env.ROLLUP_LAG_SECONDS ?? DEFAULT_LAG_S);
  return (Number.isInteger(s) && s >= 0 && s <= MAX_LAG_S ? s : DEFAULT_LAG_S) * 1000;
}

/**
 * A withdrawal takes a report out of the agent's history: the tracks and rows are made again from
 * the history (without it) at the next report. Called inside the withdrawal's commit.
 */
export function rollupsStale(host: Pick<AgentHost, "store">): void {
  host.store.setFact(MADE, 0);
}

export interface RollupReportFacts {
  reporter: number;
  at: number;
  outcome: Outcome;
  signals: Partial<Record<SignalDimension, number>>;
  receipted: boolean;
}

export class Rollups implements Feature {
  // `waiting`: since when (the object's clock) the track's row has not been on the shard; 0 once it is.
  readonly schema = ["CREATE TABLE IF NOT EXISTS rollup_tracks (reporter INTEGER PRIMARY KEY, track TEXT NOT NULL, waiting INTEGER NOT NULL DEFAULT 0)"];

  /** After a failed write, the alarm tries again no sooner than this (memory: a new life tries at once). */
  private retryAt = 0;
  /** Failed writes in a row: each waits longer (./host retryDelay). */
  private readonly backoff: Backoff;
  /** Since when the oldest waiting row waits (0: none): read from the tracks once per object life, then kept, so no commit scans them. */
  private oldest: number | undefined;

  constructor(private readonly host: AgentHost) {
    this.backoff = new Backoff(host.store, "rollup_failures");
  }

  upgrade(): void {
    const columns = this.sql.exec<{ name: string }>("SELECT name FROM pragma_table_info('rollup_tracks')").toArray();
    if (!columns.some((c) => c.name === "waiting")) this.sql.exec("ALTER TABLE rollup_tracks ADD COLUMN waiting INTEGER NOT NULL DEFAULT 0");
  }

  private get sql() {
    return this.host.store.sql;
  }

  forget(): void {
    this.oldest = undefined;
  }

  private oldestWaiting(): number {
    if (this.oldest === undefined) {
      const inTable = this.sql.exec<{ since: number | null }>("SELECT min(waiting) AS since FROM rollup_tracks WHERE waiting > 0").one().since ?? 0;
      const waiting = [inTable, ...[...this.host.store.rowTracks().values()].map((t) => t.waiting)].filter((w) => w > 0);
      this.oldest = waiting.length > 0 ? Math.min(...waiting) : 0;
    }
    return this.oldest;
  }

  private get lag(): number {
    return rollupLagMs(this.host.env);
  }

  /** When the rows waiting longest are due on the shard (null: none waits), or when a failed write is tried again. */
  deadline(): number | null {
    const since = this.oldestWaiting();
    return since > 0 ? Math.max(since + this.lag, this.retryAt) : null;
  }

  /**
   * Once the oldest waiting row is due, every waiting row goes to the shard in one batch, straight
   * from the tracks (they keep it until the batch passed, so no journal entry or record is written).
   */
  async alarm(record: AgentRecord, now: number): Promise<void> {
    const since = this.oldestWaiting();
    if (since === 0 || since + this.lag > now || this.retryAt > now) return;
    // Tracks a withdrawal left stale are made again from the history first (that writes their rows;
    // a failure is logged there).
    if (!(await this.ready(record))) {
      this.retryAt = now + this.backoff.failed(record.sid);
      return;
    }
    const inRow = [...this.host.store.rowTracks().values()].filter((t) => t.waiting > 0);
    const waiting = [...this.sql.exec<{ track: string }>("SELECT track FROM rollup_tracks WHERE waiting > 0")].map((w) => JSON.parse(w.track) as RollupTrack);
    waiting.push(...inRow.map((t) => t.track));
    try {
      if (this.host.failing("shardBatch")) throw new Error("injected shard batch failure");
      const shard = this.host.shard(record.shard).withSession("first-primary");
      if (waiting.length > 0) await shard.batch(waiting.map((track) => upsertRollup(shard, storedRollup(track.row))));
    } catch (err) {
      log("error", "rollup rows not written; they wait for the next alarm", { sid: record.sid, rows: waiting.length, error: String(err) });
      this.retryAt = now + this.backoff.failed(record.sid);
      return;
    }
    this.backoff.succeeded();
    // The object's changes run one at a time (this is the kernel's alarm): no track changed since the read.
    this.sql.exec("UPDATE rollup_tracks SET waiting = 0 WHERE waiting > 0");
    if (inRow.length > 0) {
      for (const t of inRow) t.waiting = 0;
      this.host.store.saveRowTracks();
    }
    this.oldest = 0;
  }

  /**
   * Makes the tracks from the agent's history when storage has none (once). False when the shard
   * failed: the group goes on without rollups, and the next one makes them with its reports counted.
   */
  async ready(record: AgentRecord): Promise<boolean> {
    if (this.host.store.fact<number>(MADE) === MADE_VERSION) return true;
    try {
      if ((await this.host.flush()) === null) return false;
      const shard = this.host.shard(record.shard).withSession("first-primary");
      const stored = await readEntries(shard, record.sid);
      const withdrawn = new Set(stored.flatMap(({ entry }) => (entry.kind === "withdrawal" ? [entry.of] : [])));
      // The owner as each report found it: a report before a claim was on an unclaimed agent. When
      // the registration has left for the archive and no claim is left on the shard, the retention
      // snapshot names the owner (an agent is claimed once, from no owner).
      const snapshot = stored.findLast((e) => e.kind === "snapshot");
      const snapshotOwner = (snapshot?.private as SnapshotPrivate | null | undefined)?.owner ?? null;
      const ownerOnShard = stored.some((e) => e.kind === "registration" || e.kind === "claim");
      let owner: string | null = ownerOnShard || snapshotOwner === null ? null : String(snapshotOwner);
      const reports: TrackedReport[] = [];
      for (const { entry, operator, at } of stored) {
        if (entry.kind === "registration" || entry.kind === "claim") owner = operator === null ? null : String(operator);
        if (entry.kind !== "report" || operator === null || withdrawn.has(entry.n)) continue;
        reports.push({ reporter: String(operator), agent: record.sid, owner, at, outcome: entry.outcome, signals: entry.signals, receipted: entry.receipt });
      }
      const fromDay = Math.floor(this.host.now() / DAY_MS) - MODEL.credibility.standingWindowMs / DAY_MS + 1;
      const { rows, tracks } = rollupsOf(reports, fromDay);
      // The history is the truth: its rows replace what the shard holds (a withdrawn report's day included).
      const statements = [deleteAgentRollups(shard, record.sid, fromDay), ...rows.map((row) => replaceRollup(shard, storedRollup(row)))];
      for (let i = 0; i < statements.length; i += MIGRATION_BATCH) await shard.batch(statements.slice(i, i + MIGRATION_BATCH));
      this.host.store.atomically(() => {
        this.sql.exec("DELETE FROM rollup_tracks");
        const inRow = this.host.store.rowTracks();
        inRow.clear();
        // The row takes the reporters of the latest days; the table the rest.
        for (const [reporter, track] of [...tracks].sort(([, a], [, b]) => b.lastDay - a.lastDay)) {
          if (inRow.size < INLINE_TRACKS) inRow.set(Number(reporter), { track, waiting: 0 });
          else this.sql.exec("INSERT INTO rollup_tracks (reporter, track) VALUES (?, ?)", Number(reporter), JSON.stringify(track));
        }
        this.host.store.saveRowTracks(true);
        this.host.store.setFact(MADE, MADE_VERSION);
      });
      this.oldest = 0;
      return true;
    } catch (err) {
      log("error", "rollups not made; the next change tries again", { sid: record.sid, error: String(err) });
      return false;
    }
  }

  /**
   * The rollup rows of a group's reports that go with the group's commit (rows of a day before the
   * reporter's last; every row when there is no lag) and the storage writes of their tracks: the
   * reporter's row of its last day waits in its track.
   */
  add(record: AgentRecord, reports: readonly RollupReportFacts[]): { shard: ShardWrite[]; store: () => void } {
    const owner = record.operatorId === null ? null : String(record.operatorId);
    const start = new Map<string, Tracked & { inTable: boolean }>();
    for (const r of reports) {
      const stored = this.track(r.reporter);
      if (stored) start.set(String(r.reporter), stored);
    }
    const { rows, tracks } = rollupsOf(
      reports.map((r) => ({ reporter: String(r.reporter), agent: record.sid, owner, at: r.at, outcome: r.outcome, signals: r.signals, receipted: r.receipted })),
      -Infinity,
      new Map([...start].map(([reporter, s]) => [reporter, s.track])),
    );
    const lag = this.lag;
    const now = this.host.now();
    const ready = rows.filter((row) => lag === 0 || row.day < tracks.get(row.reporter)!.lastDay);
    // A waiting row of a day this group closed without adding to it.
    for (const [reporter, s] of start) {
      if (s.waiting > 0 && tracks.get(reporter)!.lastDay > s.track.lastDay && !rows.some((row) => row.reporter === reporter && row.day === s.track.lastDay)) ready.push(s.track.row);
    }
    return {
      shard: ready.map(rollupWrite),
      store: () => {
        const inRow = this.host.store.rowTracks();
        for (const [reporter, track] of tracks) {
          const n = Number(reporter);
          const before = start.get(reporter);
          const waiting = lag === 0 ? 0 : before && before.waiting > 0 && before.track.lastDay === track.lastDay ? before.waiting : now;
          // The row full, a reporter that reported on a later day than the row's idlest track (not one
          // of this group) takes its place: busy reporters end up in the row. One who reports once a
          // day finds no idler track there and stays put, so no reporter swaps in daily.
          if (before && !inRow.has(n) && inRow.size >= INLINE_TRACKS) {
            const idle = idlest(inRow, tracks);
            if (idle && idle[1].track.lastDay < before.track.lastDay) {
              inRow.delete(idle[0]);
              this.sql.exec(UPSERT_TRACK, idle[0], JSON.stringify(idle[1].track), idle[1].waiting);
            }
          }
          if (inRow.has(n) || inRow.size < INLINE_TRACKS) {
            // Moving into the row: the table's row goes (one row written, as its update would have been).
            if (before?.inTable) this.sql.exec("DELETE FROM rollup_tracks WHERE reporter = ?", n);
            inRow.set(n, { track, waiting });
            continue;
          }
          this.sql.exec(UPSERT_TRACK, n, JSON.stringify(track), waiting);
        }
        // A failed transaction drops this with the rest of memory (forget); a refused one leaves at worst an early alarm.
        if (lag > 0 && tracks.size > 0 && this.oldestWaiting() === 0) this.oldest = now;
      },
    };
  }

  private track(reporter: number): (Tracked & { inTable: boolean }) | null {
    const inRow = this.host.store.rowTracks().get(reporter);
    if (inRow) return { ...inRow, inTable: false };
    const row = this.sql.exec<{ track: string; waiting: number }>("SELECT track, waiting FROM rollup_tracks WHERE reporter = ?", reporter).toArray()[0];
    return row ? { track: JSON.parse(row.track) as RollupTrack, waiting: row.waiting, inTable: true } : null;
  }
}

/** The row's track whose reporter last reported longest ago, leaving out the reporters of `group`. */
function idlest(inRow: ReadonlyMap<number, Tracked>, group: ReadonlyMap<string, unknown>): [number, Tracked] | null {
  let found: [number, Tracked] | null = null;
  for (const entry of inRow) if (!group.has(String(entry[0])) && (!found || entry[1].track.lastDay < found[1].track.lastDay)) found = entry;
  return found;
}
