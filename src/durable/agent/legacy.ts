// The one-time move of an agent's history from the tables before the chain (transactions, score
// events) into its chain of entries. Its reports keep their transaction ids (as `ref`), its
// evidence is the replay of the new chain, and a withdrawn report is followed by its withdrawal.
// It survives interruption: the shard's entries are the truth, so a rerun steps the model over the
// entries already written and goes on after them, in chunks, each one commit and one shard batch.

import { agentRow } from "../../db/shard-writes";
import { readEntries, readLegacyHistory, type LegacyItem } from "../../db/history";
import { applyReportTo, scoreOfRecord, type AgentRecord } from "../../domain/agent";
import { replayOf } from "../../domain/replay";
import { GENESIS, type Entry } from "../../domain/entries";
import { MODEL } from "../../domain/model";
import { configInto, emptyEvidenceOf } from "../../domain/scoring";
import type { EntryWrite } from "./chain";
import { configWrite, registrationWrite, reportWrite, withdrawalWrite } from "./entry-writes";
import { log, type AgentHost } from "./host";

/** What the move needs of the kernel beyond its feature modules' host. */
export interface MigrationHost extends AgentHost {
  adopt(record: AgentRecord, recent: Map<number, number[]>): void;
  now(): number;
  failing(point: "migrationChunk"): boolean;
}

/** Entries per commit: a journal entry stays well under a storage row's size. */
const CHUNK = 200;

type Plan = { kind: "registration" } | { kind: "item"; item: LegacyItem } | { kind: "withdrawal"; of: LegacyItem & { kind: "report" } };

export async function migrateChain(kernel: MigrationHost, start: AgentRecord, restores: readonly (() => void)[] = [], version: 2 | 3 = 3): Promise<AgentRecord> {
  if ((await kernel.flush()) === null) throw new Error(`the journal of ${start.sid} could not be applied`);
  const shard = kernel.shard(start.shard).withSession("first-primary");
  const [legacy, stored] = await Promise.all([readLegacyHistory(shard, start.sid), readEntries(shard, start.sid)]);
  const plans: Plan[] = [{ kind: "registration" }];
  for (const item of legacy) {
    plans.push({ kind: "item", item });
    if (item.kind === "report" && item.row.status === "withdrawn") plans.push({ kind: "withdrawal", of: item });
  }

  const createdAt = Date.parse(start.createdAt);
  const commitment = (op: number) => kernel.chain.commitment(start.sid, op);
  let state: AgentRecord = {
    ...start,
    evidence: emptyEvidenceOf(version, createdAt),
    outcomes: {},
    seq: 0,
    chainHash: GENESIS,
    locals: start.operatorId === null ? {} : { [start.operatorId]: 1 },
    migrating: true,
  };
  const chain: { entry: Entry; who: number | null }[] = stored.map((e) => ({ entry: e.entry, who: e.operator }));
  let recent = new Map<number, number[]>();
  /** Each report's entry number, for its withdrawal. */
  const numbered = new Map<LegacyItem, number>();

  /** One plan's change to the model's state, and the entry it appends. */
  const step = async (plan: Plan, n: number): Promise<EntryWrite> => {
    if (plan.kind === "registration") return registrationWrite(state, scoreOfRecord(state, createdAt), createdAt, commitment);
    if (plan.kind === "withdrawal") {
      const at = plan.of.at;
      const replayed = replayOf([...chain, { entry: { kind: "withdrawal", of: numbered.get(plan.of)! } as Entry, who: null }], createdAt, at, version);
      const outcomes = { ...state.outcomes, [plan.of.outcome]: (state.outcomes[plan.of.outcome] ?? 1) - 1 };
      state = { ...state, evidence: replayed.evidence, outcomes };
      recent = replayed.recent;
      return withdrawalWrite(numbered.get(plan.of)!, scoreOfRecord(state, at), at);
    }
    const { item } = plan;
    if (item.kind === "config") {
      state = { ...state, evidence: configInto(state.evidence, item.changes, item.at), lastConfigChangeAt: new Date(item.at).toISOString() };
      return configWrite(item.changes, item.fingerprint, scoreOfRecord(state, item.at), item.at);
    }
    const { row } = item;
    const local = state.locals[row.reporterOperatorId];
    const earlier = local === undefined ? 0 : (recent.get(local) ?? []).filter((t) => t > item.at - MODEL.dampingWindowMs).length;
    const report = {
      reporter: row.reporterOperatorId,
      verified: item.base >= MODEL.reporterBase.verified,
      at: item.at,
      transactionType: row.transactionType,
      outcome: item.outcome,
      signals: item.signals,
      metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
      evidenceFactor: item.evidenceFactor,
      penalty: item.penalty,
    };
    const applied = applyReportTo({ ...state, seq: n - 1 }, report, earlier);
    state = { ...applied.record, seq: state.seq };
    const times = recent.get(applied.recorded.local) ?? [];
    recent.set(applied.recorded.local, [...times.filter((t) => t > item.at - MODEL.dampingWindowMs), item.at]);
    numbered.set(item, n);
    return reportWrite({ ...applied.recorded, receipt: row.evidence === "receipt", ref: row.id }, applied.score, commitment, row.status);
  };

  // The entries already on the shard (a move interrupted after its batch): the model steps over them.
  for (let i = 0; i < stored.length && i < plans.length; i++) {
    await step(plans[i], stored[i].n);
    state = { ...state, seq: stored[i].n, chainHash: stored[i].hash };
  }
  for (let i = stored.length; i < plans.length; i += CHUNK) {
    const writes: EntryWrite[] = [];
    for (let j = i; j < Math.min(i + CHUNK, plans.length); j++) writes.push(await step(plans[j], state.seq + writes.length + 1));
    const appended = await kernel.append(state, writes);
    state = appended.record;
    chain.push(...appended.chained.map((c, k) => ({ entry: c.entry, who: writes[k].row?.operator ?? null })));
    if (!kernel.commit(state, { shard: appended.shard, leaves: appended.leaves, at: Date.now() })) throw new Error(`the chain of ${start.sid} could not be stored`);
    if ((await kernel.flush()) === null) throw new Error(`the chain of ${start.sid} could not be written`);
    if (i + CHUNK < plans.length && kernel.failing("migrationChunk")) {
      kernel.forget();
      throw new Error("injected interruption of a move into the chain");
    }
  }

  // The working state is the replay of the whole chain, as a rebuild would give.
  const now = kernel.now();
  const replayed = replayOf(chain, createdAt, now, version);
  const record: AgentRecord = { ...state, evidence: replayed.evidence, locals: replayed.locals, migrating: false };
  const committed = kernel.commit(record, {
    shard: [agentRow(record, now), { kind: "retireLegacy", sid: record.sid }],
    at: now,
    also: () => {
      kernel.store.replaceRecent(replayed.recent);
      for (const restore of restores) restore();
    },
  });
  if (!committed) throw new Error(`the chain of ${start.sid} could not be stored`);
  kernel.adopt(record, replayed.recent);
  log("info", "history moved into the chain", { sid: record.sid, entries: record.seq });
  await kernel.flush();
  return record;
}
