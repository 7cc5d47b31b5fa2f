// The retention window of the agent's history: entries older than the window leave the shard for
// the archive (R2), in order, after a snapshot entry records the model's state at the window's start
// (version 3's state, the reporters' numbers by commitment, their recent report times, the owner),
// so every later replay (rebuilds, claims, withdrawals, a verifier's) starts there and gives the same
// scores. And erasure: an entry's free text goes with its salt, from the shard and the archive.

import { deleteRows, eraseText, firstOnShard, PAGE_ENTRIES, rowsThrough, writePage } from "../../db/history-archive";
import { latestSnapshot, readEntries, whoOf, type SnapshotPrivate } from "../../db/history";
import { agentRow } from "../../db/shard-writes";
import { modelOf, scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
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
      if (first.at < input.dueBefore) {
        const stored = await readEntries(d1, record.sid);
        let cut = stored.findIndex((e) => e.at >= input.cutoff);
        if (cut < 0) cut = stored.length;
        // Snapshots right after the cut change no state: the new one covers them too, so they leave.
        while (cut < stored.length && stored[cut].kind === "snapshot") cut++;
        const upTo = stored.slice(0, cut);
        if (upTo.length > 0 && upTo[upTo.length - 1].n > covered) {
          if (!(await this.snapshot(record, upTo, input))) return refuse("write_failed");
          through = upTo[upTo.length - 1].n;
          snapshot = true;
        }
      }
      let moved = 0;
      let pages = 0;
      let bytes = 0;
      const bucket = host.env.ARCHIVE_BUCKET;
      for (; pages < input.maxPages; pages++) {
        const rows = await rowsThrough(d1, record.sid, through, PAGE_ENTRIES);
        if (rows.length === 0) break;
        bytes += await writePage(bucket, record.sid, rows);
        if (host.failing("archiveAfterPut")) throw new Error("injected failure between the archive's put and the shard's delete");
        await deleteRows(d1, record.sid, rows[0].n, rows[rows.length - 1].n);
        moved += rows.length;
      }
      const done = (await rowsThrough(d1, record.sid, through, 1)).length === 0;
      return ok({ through, snapshot, moved, pages, bytes, done });
    });
  }

  /** Appends the snapshot of the state after the last of `upTo` (the chain cut at `cutoff`) and applies it to the shard. */
  private async snapshot(record: AgentRecord, upTo: Awaited<ReturnType<typeof readEntries>>, input: ArchiveInput): Promise<boolean> {
    const { host } = this;
    const { body, operators } = snapshotOf(
      upTo.map((e) => ({ entry: e.entry, who: whoOf(e) })),
      Date.parse(record.createdAt),
      input.cutoff,
    );
    const ownerLocal = body.owner === null ? null : body.locals[body.owner];
    const owner = Object.entries(operators).find(([, local]) => local === ownerLocal)?.[0];
    const kept: SnapshotPrivate = { operators, owner: owner === undefined ? null : Number(owner) };
    const write: EntryWrite = {
      draft: { kind: "snapshot", at: input.now, body },
      composite: scoreOfRecord(record, input.now).composite,
      row: { private: JSON.stringify(kept) },
    };
    const appended = await host.append(record, [write]);
    const next = appended.record;
    if (!host.commit(next, { shard: [...appended.shard, agentRow(next, input.now)], leaves: appended.leaves, at: input.now })) return false;
    return (await host.flush()) !== null;
  }

  /** Erases the free text of one entry (`target`) or of all the agent's entries. */
  erase(ref: AgentRef, target: { n: number | null; ref: number | null } | null): Promise<Result<{ found: boolean; erased: number }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.load(ref);
      if (!record) return refuse("not_found");
      if ((await host.flush()) === null) return refuse("write_failed");
      const d1 = host.shard(record.shard).withSession("first-primary");
      return ok(await eraseText(d1, host.env.ARCHIVE_BUCKET, record.sid, target));
    });
  }
}
