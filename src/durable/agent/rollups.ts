// The daily rollups (R1) this agent's reports add to its shard for the credibility job: one row per
// (reporter, agent, UTC day), written whole with each group commit of the day (the journal may send
// it twice; the second write changes nothing). What it needs per reporter (first report, distinct
// days, the day's row) lives in the table `rollup_tracks`. An object without tracks (storage from
// before rollups, or rebuilt) first makes them, and the rows of its last 180 days, from its history
// on the shard: resumable by construction, since every row it writes is whole.

import { readEntries, type SnapshotPrivate } from "../../db/history";
import { deleteAgentRollups, replaceRollup, storedRollup } from "../../db/rollups";
import { rollupWrite, type ShardWrite } from "../../db/shard-writes";
import type { AgentRecord } from "../../domain/agent";
import { DAY_MS, MODEL, rollupsOf, type RollupTrack, type TrackedReport } from "../../domain/model";
import type { Outcome, SignalDimension } from "../../domain/model";
import { log, type AgentHost, type Feature } from "./host";

/** The storage fact that says the tracks are made (its value: the version of how they were made). */
const MADE = "rollups";
const MADE_VERSION = 1;
/** Rows written per shard batch by the migration. */
const MIGRATION_BATCH = 50;

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
  readonly schema = ["CREATE TABLE IF NOT EXISTS rollup_tracks (reporter INTEGER PRIMARY KEY, track TEXT NOT NULL)"];

  constructor(private readonly host: AgentHost) {}

  private get sql() {
    return this.host.store.sql;
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
        for (const [reporter, track] of tracks) this.sql.exec("INSERT INTO rollup_tracks (reporter, track) VALUES (?, ?)", Number(reporter), JSON.stringify(track));
        this.host.store.setFact(MADE, MADE_VERSION);
      });
      return true;
    } catch (err) {
      log("error", "rollups not made; the next change tries again", { sid: record.sid, error: String(err) });
      return false;
    }
  }

  /**
   * The rollup rows of a group's reports (one per reporter and day, the day's last state) and the
   * storage writes of their tracks, to join the group's commit.
   */
  add(record: AgentRecord, reports: readonly RollupReportFacts[]): { shard: ShardWrite[]; store: () => void } {
    const owner = record.operatorId === null ? null : String(record.operatorId);
    const start = new Map<string, RollupTrack>();
    for (const r of reports) {
      const track = this.track(r.reporter);
      if (track) start.set(String(r.reporter), track);
    }
    const { rows, tracks } = rollupsOf(
      reports.map((r) => ({ reporter: String(r.reporter), agent: record.sid, owner, at: r.at, outcome: r.outcome, signals: r.signals, receipted: r.receipted })),
      -Infinity,
      start,
    );
    return {
      shard: rows.map(rollupWrite),
      store: () => {
        for (const [reporter, track] of tracks) {
          this.sql.exec("INSERT INTO rollup_tracks (reporter, track) VALUES (?, ?) ON CONFLICT (reporter) DO UPDATE SET track = excluded.track", Number(reporter), JSON.stringify(track));
        }
      },
    };
  }

  private track(reporter: number): RollupTrack | null {
    const row = this.sql.exec<{ track: string }>("SELECT track FROM rollup_tracks WHERE reporter = ?", reporter).toArray()[0];
    return row ? (JSON.parse(row.track) as RollupTrack) : null;
  }
}
