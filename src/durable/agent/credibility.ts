// Credibility in the agent's object (scoring model version 4): the job publishes a snapshot of c per
// operator; the object takes it up lazily, at the agent's next change or alarm (never by a fan-out),
// with a `credibility` entry naming the reporters whose c in force moved, so every replay weighs each
// vote with the values of its time. A reporter new to the agent gets its value in force before its
// first report. And what a caution agent passes on to a new agent of its owner (whitewashing).

import { credibilityOf, snapshotInForce } from "../../db/snapshot";
import type { PairRow } from "../../db/pairs";
import { applyCredibilityTo, scoreOfRecord, type AgentRecord } from "../../domain/agent";
import {
  applyInheritance,
  credibilityUpdate,
  inheritanceFrom,
  isWhitewashSource,
  type CredibilityInput,
  type InheritedPair,
  type PairState,
} from "../../domain/model";
import type { EntryWrite } from "../../db/entry-writes";
import { log } from "../../log";
import { type AgentHost, type GroupView } from "./host";

/** A credibility entry and what it did: the record after it, its entry, the pairs it moved. */
export interface CredibilityStep {
  record: AgentRecord;
  write: EntryWrite;
  pairs: PairRow[];
}

const pairsOf = (rows: ReadonlyMap<string, PairRow>) => new Map<string, PairState>([...rows].map(([k, r]) => [k, r.pair]));

/**
 * Per object life (its host): the snapshot found to move no value of the agent's reporters, with
 * the owner it was checked for. Such a snapshot writes no entry, so the record still names the one
 * before; without this every later change would walk every pair again (all day, for an agent whose
 * reporters the day's snapshot left alone). Only a credibility entry moves a pair's level, so the
 * finding holds for the object's life.
 */
const unmoved = new WeakMap<AgentHost, string>();

/**
 * The credibility entry due at `at`, or null: every reporter's value when a snapshot newer than the
 * agent's is in force, else only `reporter`'s when it is new to the agent. When R2 cannot be read
 * the values in force stay (the next change or alarm tries again).
 */
export async function credibilityStep(
  host: AgentHost,
  group: GroupView,
  record: AgentRecord,
  at: number,
  reporter?: { operatorId: number; key: string },
): Promise<CredibilityStep | null> {
  try {
    const owner = record.operatorId === null ? null : await host.commitment(record.sid, record.operatorId);
    const inForce = await snapshotInForce(host.env, at);
    // The snapshot whose values the agent's reporters hold: the record's, or one this life found to move none.
    const held = inForce !== null && unmoved.get(host) === `${inForce}:${owner}` ? inForce : record.evidence.snapshot;
    const takeUp = inForce !== null && inForce !== held;
    const known = reporter ? (await group.pairs([reporter.key])).has(reporter.key) : true;
    if (!takeUp && known) return null;
    const rows = takeUp ? await group.allPairs() : new Map<string, PairRow>();
    const operatorOf = new Map<string, number>([...rows].map(([k, r]) => [k, r.operatorId]));
    if (reporter) operatorOf.set(reporter.key, reporter.operatorId);
    const { snapshot, values } = await credibilityOf(host.env, [...new Set(operatorOf.values())], at);
    // A snapshot published between the two reads: the agent takes it up at its next change.
    if (!takeUp && snapshot !== held) return null;
    const source = { snapshot, credibility: (key: string) => values.get(operatorOf.get(key) ?? -1) ?? 0 };
    const update = credibilityUpdate(pairsOf(rows), source, owner, at, reporter && !known ? reporter.key : undefined);
    if (!update) {
      if (takeUp && snapshot !== null) unmoved.set(host, `${snapshot}:${owner}`);
      return null;
    }
    return credibilityApplied(host, record, rows, update, operatorOf, reporter && update.values[reporter.key] !== undefined ? reporter.operatorId : null);
  } catch (err) {
    log("error", "credibility snapshot unavailable; the values in force stay", { sid: record.sid, error: String(err) });
    return null;
  }
}

function credibilityApplied(
  host: AgentHost,
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
export async function inheritanceStep(host: AgentHost, record: AgentRecord, inherited: Inherited): Promise<CredibilityStep> {
  const reporters: Record<string, InheritedPair> = {};
  const operatorOf = new Map<string, number>();
  for (const [op, pair] of Object.entries(inherited.reporters)) {
    const key = await host.commitment(record.sid, Number(op));
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
