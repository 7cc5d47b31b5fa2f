// A group's batch on the agent's shard, in the order the record needs: (1) a plain insert of each
// entry keyed (sid, n), numbered after the head the object read (a stale instance collides, and the
// whole batch rolls back); (2) the changes' other rows; (3) the agent row's update where its `seq` is
// still the one read, checked to have changed exactly one row. Before it, the entries are chained,
// their leaves made, each keyed change's answer recorded in its entry, and what the batch tells
// (score.changed among it) written beside the entry that tells it.

import { insertAgent, RECORD_CONTRACT, rowOf, updateAgent, type Loaded } from "../../db/agent-record";
import { shardStatements, type ShardWrite } from "../../db/shard-writes";
import { scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
import { chainEntries, GENESIS } from "../../domain/entries";
import { entryEventId, scoreChangedData, scoreCrossed, type AgentEvent, type ControlWrite, type EventDraft, type Notified } from "../../domain/events";
import type { Leaf } from "../../domain/log/leaf";
import { shardName } from "../../env";
import { idemOf } from "../../domain/idempotency";
import type { Group } from "./group";
import { log } from "../../log";
import type { AgentHost } from "./host";
import { leafOf } from "../../domain/log/tags";
import type { OutboxItem } from "./outbox";

export interface Committed {
  bookmarks: Record<string, string>;
  loaded: Loaded;
}

/** The agent row's update matched no row: the row moved under this instance (or is gone). */
export class RowMissed extends Error {}

/** Whether a batch failed on a constraint: an entry number another instance of the object took. */
export const isConstraintError = (err: unknown) => err instanceof RowMissed || /constraint/i.test(String((err as Error)?.message ?? err));

/** What a batch needs of the kernel: its shard, clock and faults, its timers, its outbox. */
export type CommitHost = Pick<AgentHost, "env" | "now" | "failing" | "shard"> & {
  readonly timers: { earlier(at: number): Promise<void> };
  readonly outbox: { publishedFor(before: Loaded | null): number; queue(items: readonly OutboxItem[]): void };
};

/** The pairs the group moved, each written once as the group's last change left it (none moved and none replaced: no statement). */
const pairWrite = (sid: string, group: Group): ShardWrite => ({ kind: "pairs", sid, rows: [...group.moved.values()], replaced: group.replaced });

export async function commitGroup(kernel: CommitHost, ref: AgentRef, group: Group): Promise<Committed> {
  const before = group.before;
  const drafts = group.applied.flatMap((a) => a.change.entries ?? []);
  const head = { n: before?.record.seq ?? 0, hash: before?.record.chainHash ?? GENESIS };
  const toChain = drafts.map((d) => d.draft);
  const { chained, head: after } = await chainEntries(ref.sid, head, toChain);
  group.chainHead = after;
  const record: AgentRecord = { ...group.record!, seq: after.n, chainHash: after.hash };
  const made = await Promise.all(
    chained.map((c, i) => leafOf(kernel.env, ref.sid, { n: c.entry.n, hash: c.hash, composite: drafts[i].composite, nonce: c.entry.nonce }, record.logTags)),
  );
  const leaves: Leaf[] = made.map((m) => m.leaf);
  const at = drafts.at(-1)?.draft.at ?? kernel.now();

  // Each change's answer, and what it leaves with its last entry: its events and control writes, a
  // keyed change's answer (recorded) and a spent receipt's id; score.changed goes with the batch's
  // last entry when what the row shows crossed the threshold.
  type Told = { events: EventDraft[]; control: ControlWrite[]; idem?: string; answer?: string; jti?: string };
  const told = new Map<number, Told>();
  const tell = (i: number) => told.get(i) ?? told.set(i, { events: [], control: [] }).get(i)!;
  for (const a of group.applied) {
    a.result = a.answer({ chained: chained.slice(a.from, a.to), leaves: leaves.slice(a.from, a.to) });
    if (a.to === a.from) continue;
    const k = a.change.keyed;
    const keyed = k && { idem: idemOf(k.operatorId, k.idempotency.key), answer: JSON.stringify({ h: k.idempotency.requestHash, r: a.result }) };
    told.set(a.to - 1, { events: [...(a.change.events ?? [])], control: [...(a.change.control ?? [])], ...keyed, jti: a.change.jti });
  }
  const shown = scoreOfRecord(record, at);
  // A new agent was told at the neutral start; a row that never told anything, at what it shows now.
  let notified: Notified =
    before === null ? { composite: 500, recommendation: "review" } : (before.notified ?? { composite: shown.composite, recommendation: shown.recommendation });
  for (const a of group.applied) {
    if (a.change.notified) notified = a.change.notified;
    if (a.change.faceMoved) group.crossed = true;
  }
  if (chained.length > 0 && scoreCrossed(notified, shown)) {
    tell(chained.length - 1).events.push({ type: "score.changed", data: scoreChangedData(record.sid, shown, notified, record.identityLevel) });
    notified = { composite: shown.composite, recommendation: shown.recommendation };
    group.crossed = true;
  }

  const items: OutboxItem[] = chained.map((c, i) => {
    const t = told.get(i);
    const events: AgentEvent[] = (t?.events ?? []).map((e, k) => ({
      ...e,
      id: entryEventId(record.sid, c.entry.n, k),
      sid: record.sid,
      ownerId: record.operatorId,
      timestamp: c.entry.at,
    }));
    return { n: c.entry.n, leaf: leaves[i], epoch: made[i].epoch, events, control: t?.control ?? [] };
  });
  const entryRows: ShardWrite[] = chained.map((c, i) => ({
    kind: "entry",
    row: {
      sid: record.sid,
      n: c.entry.n,
      kind: c.entry.kind,
      at: Date.parse(c.entry.at),
      body: c.text,
      hash: c.hash,
      composite: drafts[i].composite,
      ...drafts[i].row,
      idem: told.get(i)?.idem ?? null,
      answer: told.get(i)?.answer ?? null,
      jti: told.get(i)?.jti ?? null,
      outbox: items[i].events.length || items[i].control.length ? JSON.stringify({ events: items[i].events, control: items[i].control }) : null,
    },
  }));

  const published = kernel.outbox.publishedFor(before);
  const row = rowOf(record, at, published, notified);
  const d1 = kernel.shard(ref.shard).withSession("first-primary");
  const statements = shardStatements(d1, [...entryRows, ...group.applied.flatMap((a) => a.change.rows ?? []), pairWrite(record.sid, group)]);
  const writesRow = group.rowChanges();
  const whole = group.applied.some((a) => a.change.whole);
  if (writesRow) statements.push(before === null ? insertAgent(d1, row) : updateAgent(d1, row, before.record.seq, whole));
  // An entry not yet handed to the queues has an alarm behind it, within a minute: a crash after the
  // batch loses nothing (./outbox).
  if (chained.length > 0) await kernel.timers.earlier(kernel.now() + 60_000);
  if (kernel.failing("beforeBatch")) throw new Error("injected: the shard did not take the batch");
  const results = await d1.batch(statements);
  if (kernel.failing("afterBatch")) throw new Error("injected: the batch committed and its answer was lost");
  const changed = results[results.length - 1]?.meta?.changes ?? 0;
  if (writesRow && changed !== 1) {
    log("error", "agent row update matched no row: another instance changed it, or it is gone", { sid: ref.sid, expected_seq: before?.record.seq ?? null });
    throw new RowMissed(`the row of ${ref.sid} did not match seq ${before?.record.seq}`);
  }
  const bookmark = d1.getBookmark();
  kernel.outbox.queue(items);
  return {
    bookmarks: bookmark ? { [shardName(ref.shard)]: bookmark } : {},
    loaded: writesRow
      ? {
          record,
          published,
          notified,
          contract: RECORD_CONTRACT,
          shown: { composite: row.composite!, confidence: row.confidence!, recommendation: row.recommendation! },
        }
      : before!,
  };
}
