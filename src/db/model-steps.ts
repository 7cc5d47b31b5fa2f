// The scoring model's steps that are entries of their own, with the record and the pairs after
// them: a `credibility` entry (the values in force that moved) and a new agent's `inheritance` entry
// (what a caution agent of its owner passed on: whitewashing does not clear a record); and the
// retention window's `snapshot` entry, the state every later replay starts from.

import type { PairRow } from "./pairs";
import { whoOf, type SnapshotPrivate, type StoredEntry } from "./history";
import { replayOf, snapshotOf } from "../domain/replay";
import type { EntryWrite } from "./entry-writes";
import { applyCredibilityTo, scoreOfRecord, type AgentRecord } from "../domain/agent";
import { applyInheritance, inheritanceFrom, isWhitewashSource, type CredibilityInput, type InheritedPair, type PairState } from "../domain/model";

/** A credibility entry and what it did: the record after it, its entry, the pairs it moved. */
export interface CredibilityStep {
  record: AgentRecord;
  write: EntryWrite;
  pairs: PairRow[];
}

export const pairsOf = (rows: ReadonlyMap<string, PairRow>) => new Map<string, PairState>([...rows].map(([k, r]) => [k, r.pair]));

export function credibilityApplied(
  record: AgentRecord,
  rows: ReadonlyMap<string, PairRow>,
  update: CredibilityInput,
  operatorOf: ReadonlyMap<string, number>,
  named: number | null,
): CredibilityStep {
  const applied = applyCredibilityTo(record, pairsOf(rows), update);
  const at = update.at;
  return {
    record: applied.record,
    pairs: applied.pairs.map((pair) => ({ pair, operatorId: operatorOf.get(pair.reporter)! })),
    write: {
      draft: { kind: "credibility", at, body: { values: update.values, ...(update.snapshot === undefined ? {} : { snapshot: update.snapshot }) } },
      composite: scoreOfRecord(applied.record, at).composite,
      row: { operator: named },
    },
  };
}

/** What a caution agent passes on, its reporters by operator id (their keys are the new agent's to make). */
export interface Inherited {
  at: number;
  reporters: Record<string, InheritedPair>;
  caution: boolean;
}

/** The inheritance this agent passes to a new agent of its owner with its configuration (or a key it proved), or null. */
export function inheritanceOf(record: AgentRecord, rows: ReadonlyMap<string, PairRow>, now: number): Inherited | null {
  const suspended = record.status === "suspended";
  if (!isWhitewashSource(record.evidence, { now, suspended })) return null;
  const input = inheritanceFrom(record.evidence, pairsOf(rows), now, { suspended });
  if (!input) return null;
  const reporters: Record<string, InheritedPair> = {};
  for (const [key, pair] of Object.entries(input.reporters)) reporters[String(rows.get(key)!.operatorId)] = pair;
  return { at: now, reporters, caution: input.caution };
}

/** The inheritance entry of a new agent (after its registration entry), its reporters named by their commitments on it. */
export async function inheritanceStep(
  record: AgentRecord,
  inherited: Inherited,
  commitment: (operatorId: number) => Promise<string>,
): Promise<CredibilityStep> {
  const reporters: Record<string, InheritedPair> = {};
  const operatorOf = new Map<string, number>();
  for (const [op, pair] of Object.entries(inherited.reporters)) {
    const key = await commitment(Number(op));
    reporters[key] = pair;
    operatorOf.set(key, Number(op));
  }
  const applied = applyInheritance(record.evidence, new Map(), { at: inherited.at, reporters, caution: inherited.caution });
  const next: AgentRecord = { ...record, evidence: applied.model, seq: record.seq + 1 };
  return {
    record: next,
    pairs: applied.pairs.map((pair) => ({ pair, operatorId: operatorOf.get(pair.reporter)! })),
    write: {
      draft: { kind: "inheritance", at: inherited.at, body: { reporters, caution: inherited.caution } },
      composite: scoreOfRecord(next, inherited.at).composite,
      row: { private: JSON.stringify({ operators: Object.fromEntries(operatorOf) }) },
    },
  };
}

/**
 * Where the retention window cuts the history: after the last entry stamped before `cutoff` (`last`:
 * its number; 0: none), but before a report under dispute (it stays on the shard with everything
 * after it), and past snapshots right after the cut (they change no state: the new one covers them).
 */
export function snapshotCut(stored: readonly StoredEntry[], cutoff: number): { last: number; until: number } {
  const disputed = stored.find((e) => e.status === "disputed");
  const until = Math.min(cutoff, disputed?.at ?? Infinity);
  let cut = stored.findIndex((e) => e.at >= until);
  if (cut < 0) cut = stored.length;
  while (cut < stored.length && stored[cut].kind === "snapshot") cut++;
  return { last: cut > 0 ? stored[cut - 1].n : 0, until };
}

/** The snapshot entry of the state after entry `last`, with the operators of the pairs it keeps (private to the shard). */
export function snapshotWrite(stored: readonly StoredEntry[], record: AgentRecord, cut: { last: number; until: number }, now: number): EntryWrite {
  const chain = stored.map((e) => ({ entry: e.entry, who: whoOf(e) }));
  const body = snapshotOf(chain, Date.parse(record.createdAt), cut.until, cut.last);
  const { operators } = replayOf(
    chain.filter((e) => e.entry.n <= cut.last),
    Date.parse(record.createdAt),
  );
  const kept: SnapshotPrivate = { operators: Object.fromEntries([...operators].filter(([key]) => key in body.pairs)) };
  return { draft: { kind: "snapshot", at: now, body }, composite: scoreOfRecord(record, now).composite, row: { private: JSON.stringify(kept) } };
}
