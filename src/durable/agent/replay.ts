// The replay of an agent's whole history from its shard (and the archive's snapshot it starts from),
// with the entries of the change at hand after it: a claim re-weighs the claimer's reports as the
// owner's, a withdrawal leaves its report out. Jobs that replay run alone, so the shard holds every
// change before them.

import { readEntries, whoOf } from "../../db/history";
import type { AgentRecord } from "../../domain/agent";
import type { Entry, EntryDraft } from "../../domain/entries";
import { replayOf } from "../../domain/replay";
import { versionOf } from "../../domain/scoring";
import type { AgentHost } from "./host";

export async function replayOnShard(host: AgentHost, record: AgentRecord, now: number, pending: readonly { draft: EntryDraft; who: number | null }[] = []) {
  const stored = await readEntries(host.shard(record.shard).withSession("first-primary"), record.sid);
  const after = pending.map(({ draft, who }, i) => ({
    entry: { v: 1, sid: record.sid, n: record.seq + 1 + i, kind: draft.kind, at: new Date(draft.at).toISOString(), prev: "", nonce: "", ...draft.body } as Entry,
    who,
  }));
  return replayOf([...stored.map((e) => ({ entry: e.entry, who: whoOf(e) })), ...after], Date.parse(record.createdAt), now, versionOf(record.evidence));
}
