// Credibility in the agent's object (scoring model version 4): the job publishes a snapshot of c per
// operator; the object takes it up lazily, at the agent's next change or alarm (never by a fan-out),
// with a `credibility` entry naming the reporters whose c in force moved, so every replay weighs each
// vote with the values of its time. A reporter new to the agent gets its value in force before its
// first report. The entries and what they do to the record are src/db/model-steps.ts.

import { credibilityOf, snapshotInForce } from "../../db/snapshot";
import { credibilityApplied, pairsOf, type CredibilityStep } from "../../db/model-steps";
import type { PairRow } from "../../db/pairs";
import type { AgentRecord } from "../../domain/agent";
import { credibilityUpdate } from "../../domain/model";
import { log } from "../../log";
import { type AgentHost, type GroupView } from "./host";

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
    return credibilityApplied(record, rows, update, operatorOf, reporter && update.values[reporter.key] !== undefined ? reporter.operatorId : null);
  } catch (err) {
    log("error", "credibility snapshot unavailable; the values in force stay", { sid: record.sid, error: String(err) });
    return null;
  }
}
