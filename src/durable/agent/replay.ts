// The replay of an agent's whole history from its shard (from the archive's snapshot it starts from),
// with the entries of the change at hand after it: a claim re-weighs the claimer's reports as the
// owner's, a withdrawal leaves its report out. Jobs that replay run alone, so the shard holds every
// change before them. Gives the aggregates and every pair, with the operator each pair belongs to.

import { readEntries, whoOf } from "../../db/history";
import type { PairRow } from "../../db/pairs";
import type { AgentRecord } from "../../domain/agent";
import type { Entry, EntryDraft } from "../../domain/entries";
import type { AgentModel } from "../../domain/model";
import { replayOf } from "../../domain/replay";
import type { AgentHost } from "./host";

export async function replayOnShard(
  host: AgentHost,
  record: AgentRecord,
  pending: readonly { draft: EntryDraft; who: number | null }[] = [],
): Promise<{ evidence: AgentModel; pairs: PairRow[] }> {
  const stored = await readEntries(host.shard(record.shard).withSession("first-primary"), record.sid);
  const after = pending.map(({ draft, who }, i) => ({
    entry: {
      v: 1,
      sid: record.sid,
      n: record.seq + 1 + i,
      kind: draft.kind,
      at: new Date(draft.at).toISOString(),
      prev: "",
      nonce: "",
      ...draft.body,
    } as Entry,
    who,
  }));
  const { state, operators } = replayOf([...stored.map((e) => ({ entry: e.entry, who: whoOf(e) })), ...after], Date.parse(record.createdAt));
  // Every pair's operator is named by the entry that made it (its report, or the change that told it beside its entry).
  const pairs = [...state.pairs.values()].map((pair) => ({ pair, operatorId: operators.get(pair.reporter) ?? -1 }));
  return { evidence: state.model, pairs };
}
