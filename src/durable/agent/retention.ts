// The retention window of the agent's history: entries older than the window leave the shard for
// the archive (R2), in order, after a snapshot entry records the model's state at the window's start
// (src/db/model-steps.ts: the aggregates, every pair by its reporter's commitment, the owner),
// so every later replay (claims, withdrawals, a verifier's) starts there and gives the same scores.
// And erasure: an entry's free text goes with its salt, from the shard and the archive.

import { deleteRows, eraseText, firstOnShard, PAGE_ENTRIES, rowsThrough, writePage } from "../../db/history-archive";
import { latestSnapshot, readEntries } from "../../db/history";
import { snapshotCut, snapshotWrite } from "../../db/model-steps";
import type { AgentRef } from "../../domain/agent";
import { ERASED } from "../../domain/entries";
import type { Result } from "../../domain/results";
import { answer, ok, refuse, type AgentHost } from "./host";

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
   * entry of the state after the last of them (a change of the agent, committed like any), then page
   * by page, each written before its rows leave the shard. Interrupted anywhere, the next call goes
   * on from what the shard still holds.
   */
  async archive(ref: AgentRef, input: ArchiveInput): Promise<Result<Archived>> {
    const { host } = this;
    const loaded = await host.exclusive(() => host.read(ref));
    if (!loaded) return refuse("not_found");
    const d1 = host.shard(ref.shard).withSession("first-primary");
    // Most days most agents have nothing to move: two small reads say so.
    const first = await firstOnShard(d1, ref.sid);
    if (!first || first.at >= input.cutoff) return ok(NOTHING);
    const covered = (await latestSnapshot(d1, ref.sid))?.through ?? 0;
    let through = covered;
    let snapshot = false;
    // A move under way (rows the latest snapshot covers still on the shard) finishes first.
    if (first.n > covered && first.at < input.dueBefore) {
      const taken = await host.change<number>(ref, {
        alone: true,
        async run(group) {
          const record = group.record;
          if (!record) return answer(refuse("not_found"));
          const stored = await readEntries(d1, record.sid);
          const cut = snapshotCut(stored, input.cutoff);
          const last = cut.last;
          if (last <= covered) return answer(ok(covered));
          return {
            change: {
              record: { ...record, seq: record.seq + 1 },
              entries: [snapshotWrite(stored, record, cut, input.now)],
            },
            answer: () => last,
          };
        },
      });
      if (!taken.ok) return taken;
      snapshot = taken.result > covered;
      through = taken.result;
    }
    return host.exclusive(async () => {
      let moved = 0;
      let pages = 0;
      let bytes = 0;
      let done = false;
      for (; pages < input.maxPages; pages++) {
        const rows = await rowsThrough(d1, ref.sid, through, PAGE_ENTRIES);
        if (rows.length === 0) {
          done = true;
          break;
        }
        bytes += await writePage(host.env.ARCHIVE_BUCKET, ref.sid, rows);
        if (host.failing("archiveAfterPut")) throw new Error("injected failure between the archive's put and the shard's delete");
        await deleteRows(d1, ref.sid, rows[0].n, rows[rows.length - 1].n);
        moved += rows.length;
      }
      // The page budget ran out: whether rows are left says if the move is done.
      if (!done) done = (await rowsThrough(d1, ref.sid, through, 1)).length === 0;
      return ok({ through, snapshot, moved, pages, bytes, done });
    });
  }

  /**
   * Erases the free text of one entry (`target`) or of all the agent's entries; erasing all of them
   * also takes the agent's name and description off its record (every public surface reads them).
   */
  async erase(ref: AgentRef, target: { n: number | null; ref: number | null } | null, now: number): Promise<Result<{ found: boolean; erased: number }>> {
    const { host } = this;
    if (target === null) {
      const renamed = await host.change<null>(ref, {
        async run(group) {
          const record = group.record;
          if (!record) return answer(refuse("not_found"));
          if (record.name === ERASED && record.description === null) return answer(ok(null));
          return {
            change: { record: { ...record, name: ERASED, description: null, updatedAt: new Date(now).toISOString() }, whole: true },
            answer: () => null,
          };
        },
      });
      if (!renamed.ok) return renamed;
    }
    return host.exclusive(async () => {
      if (!(await host.read(ref))) return refuse("not_found");
      return ok(await eraseText(host.shard(ref.shard).withSession("first-primary"), host.env.ARCHIVE_BUCKET, ref.sid, target));
    });
  }
}
