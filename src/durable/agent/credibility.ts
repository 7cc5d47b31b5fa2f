// Scoring model version 3 in the agent's object: the credibility entries (R1) before a reporter's
// first report and whenever the standing snapshot's values for the agent's reporters change (at the
// alarm), so every replay weighs each report with the values of its time; and what a cautioned agent
// passes on to a new one of its owner and configuration (R6).

import { credibilitySource } from "../../db/credibility";
import { applyCredibilityTo, localOf, ownerLocal, scoreOfRecord, type AgentRecord } from "../../domain/agent";
import { inheritanceFrom, isWhitewashSource, seedCredibility, credibilityUpdate, type AgentState, type CredibilitySource, type InheritanceInput, type InheritedReporter } from "../../domain/model";
import { inheritanceInto, isV3 } from "../../domain/scoring";
import type { EntryWrite } from "./entry-writes";
import { log, type AgentHost } from "./host";

type Commitment = (operatorId: number) => Promise<string>;

/** The source with the object's numbering: reporter keys are the operators' numbers on the agent. */
function numbered(record: AgentRecord, source: CredibilitySource): CredibilitySource {
  const operatorOf = new Map(Object.entries(record.locals).map(([op, local]) => [String(local), op]));
  return {
    bootstrap: source.bootstrap,
    snapshot: source.snapshot,
    credibility: (key, owner, verified) => source.credibility(operatorOf.get(key) ?? key, owner === null ? null : (operatorOf.get(owner) ?? owner), verified),
  };
}

/**
 * The credibility entry due at `at` (before `reporter`'s report, when given), applied to the record,
 * or null when the values in force are the source's already. A reporter new to the agent gets its
 * number here: the entry may be the first to name it.
 */
export async function credibilityStep(
  before: AgentRecord,
  source: CredibilitySource,
  at: number,
  commitment: Commitment,
  reporter?: { operatorId: number; verified: boolean },
): Promise<{ record: AgentRecord; write: EntryWrite } | null> {
  if (!isV3(before.evidence)) return null;
  let record = before;
  let extra: { reporter: string; verified: boolean } | undefined;
  if (reporter) {
    const known = record.locals[reporter.operatorId] !== undefined;
    const numberedRecord = localOf(record, reporter.operatorId);
    const key = String(numberedRecord.local);
    if (!(record.evidence as AgentState).reporters[key]) extra = { reporter: key, verified: reporter.verified };
    if (!known) record = numberedRecord.record;
  }
  const owner = ownerLocal(record);
  const update = credibilityUpdate(record.evidence as AgentState, numbered(record, source), owner === null ? null : String(owner), at, extra);
  if (!update) return null;
  const operatorOf = new Map(Object.entries(record.locals).map(([op, local]) => [String(local), Number(op)]));
  const values: Record<string, number> = {};
  for (const [key, c] of Object.entries(update.values)) values[await commitment(operatorOf.get(key)!)] = c;
  const next = applyCredibilityTo(record, update);
  const named = extra && update.values[extra.reporter] !== undefined && reporter ? reporter.operatorId : null;
  return {
    record: next,
    write: { draft: { kind: "credibility", at, body: { values, bootstrap: update.bootstrap, ...(update.snapshot === undefined ? {} : { snapshot: update.snapshot }) } }, composite: scoreOfRecord(next, at).composite, row: { operator: named } },
  };
}

/**
 * The credibility source now for the agent's operators and `also` (operator ids): the current standing
 * snapshot's values for them, the seeds and the bootstrap latch.
 */
export async function sourceNow(env: AgentHost["env"], record: AgentRecord, now: number, also: readonly number[] = [], onlyAlso = false): Promise<CredibilitySource> {
  try {
    return await credibilitySource(env, now, [...(onlyAlso ? [] : Object.keys(record.locals)), ...also.map(String)]);
  } catch (err) {
    // The snapshot or the settings cannot be read (R2 or the control database is down): reports go
    // on with the values in force (a new reporter at its seed), and the next run brings them up to date.
    log("error", "credibility source unavailable; the values in force stay", { sid: record.sid, error: String(err) });
    return holdSource(record);
  }
}

/**
 * The source of a group of reports: the values in force for the agent's known reporters (the alarm
 * brings them up to date with a new snapshot, each agent at its own time), the current snapshot's
 * for a reporter about to report here for the first time. A report reads only the newcomers' buckets.
 */
export async function reportSource(env: AgentHost["env"], record: AgentRecord, now: number, reporters: readonly number[]): Promise<CredibilitySource> {
  const hold = holdSource(record);
  const state = isV3(record.evidence) ? record.evidence : null;
  const known = (op: number) => record.locals[op] !== undefined && state?.reporters[String(record.locals[op])] !== undefined;
  const fresh = new Set(reporters.filter((op) => !known(op)).map(String));
  if (fresh.size === 0) return hold;
  const source = await sourceNow(env, record, now, [...fresh].map(Number), true);
  // The latch moved since the agent's last credibility entry: this entry brings every value up to date.
  if (source.bootstrap !== hold.bootstrap) return sourceNow(env, record, now, reporters);
  return {
    bootstrap: hold.bootstrap,
    snapshot: source.snapshot,
    credibility: (operator, owner, verified) => (fresh.has(operator) ? source : hold).credibility(operator, owner, verified),
  };
}

/** The values in force as a source: nothing differs from them, so no credibility entry follows. */
function holdSource(record: AgentRecord): CredibilitySource {
  const state = isV3(record.evidence) ? record.evidence : null;
  return {
    bootstrap: state?.bootstrap ?? false,
    snapshot: state?.snapshot ?? null,
    credibility: (operator, _owner, verified) => {
      const local = record.locals[operator];
      const c = local === undefined ? undefined : state?.credibility[String(local)];
      return c ?? seedCredibility(verified);
    },
  };
}

/** What a cautioned agent passes on (R6), its reporters by operator id. */
export interface Inherited {
  at: number;
  reporters: Record<string, InheritedReporter>;
  caution: boolean;
}

/** The inheritance this agent passes to a new agent of its owner with its configuration, or null. */
export function inheritanceOf(record: AgentRecord, now: number): Inherited | null {
  if (!isV3(record.evidence)) return null;
  if (!isWhitewashSource(record.evidence, { now, suspended: record.status === "suspended" })) return null;
  const input = inheritanceFrom(record.evidence, now, { suspended: record.status === "suspended" });
  if (!input) return null;
  const operatorOf = new Map(Object.entries(record.locals).map(([op, local]) => [String(local), op]));
  const reporters: Record<string, InheritedReporter> = {};
  for (const [key, r] of Object.entries(input.reporters)) reporters[operatorOf.get(key)!] = r;
  return { at: now, reporters, caution: input.caution };
}

/**
 * The inheritance entry of a new agent (after its registration entry): the inherited reporters get
 * their numbers on the agent in the order of their commitments (as a replay numbers them).
 */
export async function inheritanceStep(before: AgentRecord, inherited: Inherited, commitment: Commitment): Promise<{ record: AgentRecord; write: EntryWrite } | null> {
  if (!isV3(before.evidence)) return null;
  const named = await Promise.all(Object.keys(inherited.reporters).map(async (op) => ({ op: Number(op), c: await commitment(Number(op)) })));
  named.sort((x, y) => (x.c < y.c ? -1 : x.c > y.c ? 1 : 0));
  let record = before;
  const byLocal: Record<string, InheritedReporter> = {};
  const byCommitment: Record<string, InheritedReporter> = {};
  for (const { op, c } of named) {
    const numberedRecord = localOf(record, op);
    record = numberedRecord.record;
    byLocal[String(numberedRecord.local)] = inherited.reporters[op];
    byCommitment[c] = inherited.reporters[op];
  }
  const input: InheritanceInput = { at: inherited.at, reporters: byLocal, caution: inherited.caution };
  const next: AgentRecord = { ...record, evidence: inheritanceInto(record.evidence, input), seq: record.seq + 1 };
  return {
    record: next,
    write: { draft: { kind: "inheritance", at: inherited.at, body: { reporters: byCommitment, caution: inherited.caution } }, composite: scoreOfRecord(next, inherited.at).composite },
  };
}
