// The retention window of the agent's history: entries older than the window leave the shard for
// the archive (R2), in order, after a snapshot entry records the model's state at the window's
// start, so every later replay (rebuilds, claims, withdrawals) starts there and gives the same
// scores. And erasure: an entry's free text goes with its salt, from the shard and the archive.

import { deleteRows, eraseText, PAGE_ENTRIES, rowsThrough, writePage } from "../../db/history-archive";
import { readEntries, whoOf } from "../../db/history";
import { agentRow } from "../../db/shard-writes";
import { replayOf, scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
import type { Entry, SnapshotState } from "../../domain/entries";
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

export class Retention {
  constructor(private readonly host: AgentHost) {}

  /**
   * Moves the entries before `cutoff` (ms) to the archive, once the oldest is older than `dueBefore`,
   * at most `maxPages` pages: first a snapshot
   * entry of the state after the last of them, then page by page, each written before its rows leave
   * the shard. Interrupted anywhere, the next call goes on from what the shard still holds.
   */
  archive(ref: AgentRef, input: { cutoff: number; dueBefore: number; now: number; maxPages: number }): Promise<Result<Archived>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.load(ref);
      if (!record) return refuse("not_found");
      if ((await host.flush()) === null) return refuse("write_failed");
      const d1 = host.shard(record.shard).withSession("first-primary");
      const stored = await readEntries(d1, record.sid);
      let through = 0;
      let i = 0;
      for (; i < stored.length && stored[i].at < input.cutoff; i++) through = stored[i].n;
      const latest = stored.findLast((e) => e.kind === "snapshot")?.entry as (Entry & { kind: "snapshot" }) | undefined;
      const covered = latest?.through ?? 0;
      let snapshot = false;
      // Moved a period at a time (one snapshot a period, not one a day): only once the oldest entry
      // on the shard is a period past the window's start; then everything before the start goes.
      const due = stored.length > 0 && stored[0].at < input.dueBefore;
      if (through > covered && due) {
        // Snapshots right after the cut change no state: the new one covers them too, so they leave.
        for (; i < stored.length && stored[i].kind === "snapshot"; i++) through = stored[i].n;
        const written = await this.snapshot(record, stored.filter((e) => e.n <= through), through, input);
        if (!written) return refuse("write_failed");
        snapshot = true;
      }
      const target = due ? Math.max(through, covered) : covered;
      let moved = 0;
      let pages = 0;
      let bytes = 0;
      const bucket = host.env.ARCHIVE_BUCKET;
      for (; pages < input.maxPages; pages++) {
        const rows = await rowsThrough(d1, record.sid, target, PAGE_ENTRIES);
        if (rows.length === 0) break;
        bytes += await writePage(bucket, record.sid, rows);
        if (host.failing("archiveAfterPut")) throw new Error("injected failure between the archive's put and the shard's delete");
        await deleteRows(d1, record.sid, rows[0].n, rows[rows.length - 1].n);
        moved += rows.length;
      }
      const done = (await rowsThrough(d1, record.sid, target, 1)).length === 0;
      return ok({ through: target, snapshot, moved, pages, bytes, done });
    });
  }

  /** Appends the snapshot of the state after entry `through` (the fold of `upTo`), and applies it to the shard. */
  private async snapshot(record: AgentRecord, upTo: Awaited<ReturnType<typeof readEntries>>, through: number, input: { cutoff: number; now: number }): Promise<boolean> {
    const { host } = this;
    // Report times after cutoff − the damping window: what the first reports after the cut count.
    const replayed = replayOf(
      upTo.map((e) => ({ entry: e.entry, who: whoOf(e) })),
      Date.parse(record.createdAt),
      input.cutoff,
    );
    const locals: Record<string, number> = {};
    for (const [operator, local] of Object.entries(replayed.locals)) locals[await host.chain.commitment(record.sid, Number(operator))] = local;
    const state: SnapshotState = {
      evidence: replayed.evidence,
      recent: Object.fromEntries([...replayed.recent].map(([r, times]) => [String(r), times])),
      owner: replayed.owner,
      locals,
    };
    const write: EntryWrite = {
      draft: { kind: "snapshot", at: input.now, body: { through, state } },
      composite: scoreOfRecord(record, input.now).composite,
      row: { private: JSON.stringify({ locals: replayed.locals }) },
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
