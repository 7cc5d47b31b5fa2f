// The retention window of the agent's history: entries older than the window leave the shard for
// the archive (R2), in order, after a snapshot entry records the model's state at the window's start
// (version 3's state, the reporters' numbers by commitment, their recent report times, the owner),
// so every later replay (rebuilds, claims, withdrawals, a verifier's) starts there and gives the same
// scores. And erasure: an entry's free text goes with its salt, from the shard and the archive.

import { deleteRows, eraseText, firstOnShard, PAGE_ENTRIES, rowsThrough, writePage } from "../../db/history-archive";
import { latestSnapshot, readEntries, whoOf, type SnapshotPrivate } from "../../db/history";
import { agentRow } from "../../db/shard-writes";
import { modelOf, scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
import { ERASED } from "../../domain/entries";
import { snapshotOf } from "../../domain/replay";
import type { Result } from "../../domain/results";
import type { EntryWrite } from "./chain";
import { ok, refuse, type AgentHost } from "./host";

export interface Archived {
  /** The entries the latest snapshot covers (0: none). */
  through: number;
  /** Whether this call wrote a new snapshot entry. */
  snapshot: boolean;
  moved: number;
  pages: number;
  bytes: number;
  /** False when entries the snapshot covers are still on the shard (the page budget ran out). */
  done: boolean;
}

export interface ArchiveInput {
  /** Entries stamped before this instant (ms) leave the shard. */
  cutoff: number;
  /** They leave only once the oldest is older than this (a period before the cutoff): one snapshot a period, not one a day. */
  dueBefore: number;
  now: number;
  maxPages: number;
}

const NOTHING: Archived = { through: 0, snapshot: false, moved: 0, pages: 0, bytes: 0, done: true };

export class Retention {
  constructor(private readonly host: AgentHost) {}

  /**
   * Moves the entries before the cutoff to the archive, at most `maxPages` pages: first a snapshot
   * entry of the state after the last of them, then page by page, each written before its rows leave
   * the shard. Interrupted anywhere, the next call goes on from what the shard still holds. Agents
   * still served by version 2 keep their history (their replays need all of it).
   */
  archive(ref: AgentRef, input: ArchiveInput): Promise<Result<Archived>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.load(ref);
      if (!record) return refuse("not_found");
      if (modelOf(record) !== 3) return ok(NOTHING);
      if ((await host.flush()) === null) return refuse("write_failed");
      const d1 = host.shard(record.shard).withSession("first-primary");
      // Most days most agents have nothing to move: two small reads say so.
      const first = await firstOnShard(d1, record.sid);
      if (!first || first.at >= input.cutoff) return ok(NOTHING);
      const latest = await latestSnapshot(d1, record.sid);
      const covered = latest?.through ?? 0;
      let through = covered;
      let snapshot = false;
      // A move under way (rows the latest snapshot covers still on the shard) finishes first.
      if (first.n > covered && first.at < input.dueBefore) {
        const stored = await readEntries(d1, record.sid);
        // A report under dispute stays on the shard, with everything after it, until the dispute is decided.
        const disputed = stored.find((e) => e.status === "disputed");
        const cutoff = Math.min(input.cutoff, disputed?.at ?? Infinity);
        let cut = stored.findIndex((e) => e.at >= cutoff);
        if (cut < 0) cut = stored.length;
        // Snapshots right after the cut change no state: the new one covers them too, so they leave.
        while (cut < stored.length && stored[cut].kind === "snapshot") cut++;
        const last = cut > 0 ? stored[cut - 1].n : 0;
        if (last > covered) {
          if (!(await this.snapshot(record, stored, last, cutoff, input.now))) return refuse("write_failed");
          through = last;
          snapshot = true;
        }
      }
      let moved = 0;
      let pages = 0;
      let bytes = 0;
      const bucket = host.env.ARCHIVE_BUCKET;
      let done = false;
      for (; pages < input.maxPages; pages++) {
        const rows = await rowsThrough(d1, record.sid, through, PAGE_ENTRIES);
        if (rows.length === 0) {
          done = true;
          break;
        }
        bytes += await writePage(bucket, record.sid, rows);
        if (host.failing("archiveAfterPut")) throw new Error("injected failure between the archive's put and the shard's delete");
        await deleteRows(d1, record.sid, rows[0].n, rows[rows.length - 1].n);
        moved += rows.length;
      }
      // The page budget ran out: whether rows are left says if the move is done.
      if (!done) done = (await rowsThrough(d1, record.sid, through, 1)).length === 0;
      // The journal keeps nothing the archive took (a restart would send it to the shard again).
      host.dropApplied();
      return ok({ through, snapshot, moved, pages, bytes, done });
    });
  }

  /** Appends the snapshot of the chain (`stored`) cut after entry `through` at `cut`, and applies it to the shard. */
  private async snapshot(record: AgentRecord, stored: Awaited<ReturnType<typeof readEntries>>, through: number, cut: number, now: number): Promise<boolean> {
    const { host } = this;
    const { body, operators } = snapshotOf(
      stored.map((e) => ({ entry: e.entry, who: whoOf(e) })),
      Date.parse(record.createdAt),
      cut,
      through,
    );
    const ownerLocal = body.owner === null ? null : body.locals[body.owner];
    const owner = Object.entries(operators).find(([, local]) => local === ownerLocal)?.[0];
    const kept: SnapshotPrivate = { operators, owner: owner === undefined ? null : Number(owner) };
    const write: EntryWrite = {
      draft: { kind: "snapshot", at: now, body },
      composite: scoreOfRecord(record, now).composite,
      row: { private: JSON.stringify(kept) },
    };
    const appended = await host.append(record, [write]);
    const next = appended.record;
    if (!host.commit(next, { shard: [...appended.shard, agentRow(next, now)], leaves: appended.leaves, at: now })) return false;
    return (await host.flush()) !== null;
  }

  /**
   * Erases the free text of one entry (`target`) or of all the agent's entries. All of them takes
   * the registration's text from the record too: the agent is named ERASED from then on, with no
   * description, wherever it is shown.
   */
  erase(ref: AgentRef, target: { n: number | null; ref: number | null } | null, now: number): Promise<Result<{ found: boolean; erased: number }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.load(ref);
      if (!record) return refuse("not_found");
      if (target === null && (record.name !== ERASED || record.description !== null)) {
        const next: AgentRecord = { ...record, name: ERASED, description: null };
        if (!host.commit(next, { shard: [agentRow(next, now)], at: now })) return refuse("write_failed");
      }
      if ((await host.flush()) === null) return refuse("write_failed");
      host.dropApplied();
      const d1 = host.shard(record.shard).withSession("first-primary");
      return ok(await eraseText(d1, host.env.ARCHIVE_BUCKET, record.sid, target));
    });
  }
}
