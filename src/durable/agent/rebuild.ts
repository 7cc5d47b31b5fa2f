// The rebuild of an agent object whose storage is empty: the agent's row and history on its shard are
// the truth. Its history is replayed under the scoring model that serves it, and the result becomes
// the object's working state, with what each feature restores of its own (the disputes still to decide).

import { readAgentRow, recordOfRow } from "../../db/agents";
import { readEntries, readKeys, whoOf } from "../../db/history";
import { agentRow } from "../../db/shard-writes";
import { type AgentRecord, type AgentRef } from "../../domain/agent";
import { replayOf } from "../../domain/replay";
import { GENESIS } from "../../domain/entries";
import type { Feature } from "./feature";
import { migrateChain, type MigrationHost } from "./legacy";
import { modelAtRebuild } from "./model";

export async function rebuild(
  host: MigrationHost,
  features: readonly Feature[],
  ref: AgentRef,
  refresh: (record: AgentRecord) => Promise<void>,
): Promise<AgentRecord | null> {
  const shard = host.shard(ref.shard);
  const row = await readAgentRow(shard, ref.sid);
  if (!row) return null;
  const now = Date.now();
  const keys = await readKeys(shard, ref.sid);
  if (row.historyVersion < 2) {
    // Its history is still in the tables from before the chain: the move builds its working state.
    const restores = await Promise.all(features.map((f) => f.restore?.(ref) ?? Promise.resolve(() => {})));
    return migrateChain(host, recordOfRow(ref, row, keys, { at: now, reporters: {}, lastConfigChangeAt: null }, { seq: 0, chainHash: GENESIS, locals: {} }), restores, 2);
  }
  const [stored, ...restores] = await Promise.all([readEntries(shard, ref.sid), ...features.map((f) => f.restore?.(ref) ?? Promise.resolve(() => {}))]);
  const version = await modelAtRebuild(host, ref.sid, Date.parse(row.createdAt), stored, now);
  const replayed = replayOf(stored.map((e) => ({ entry: e.entry, who: whoOf(e) })), Date.parse(row.createdAt), now, version);
  const last = stored[stored.length - 1];
  const record = recordOfRow(ref, row, keys, replayed.evidence, { seq: last?.n ?? 0, chainHash: last?.hash ?? GENESIS, locals: replayed.locals });
  // Written back at once: the row now carries the current model's evidence. Not stored, it must not
  // be used either: a later commit would store the record without the disputes and report times.
  const committed = host.commit(record, {
    shard: [agentRow(record, now)],
    at: now,
    also: () => {
      host.store.replaceRecent(replayed.recent);
      for (const restore of restores) restore();
    },
  });
  if (!committed) throw new Error(`the rebuilt state of ${ref.sid} could not be stored`);
  host.recent = replayed.recent;
  await refresh(record);
  return record;
}
