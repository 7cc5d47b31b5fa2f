// The agent's row on its shard as the agent's record: what its object loads when it wakes, and the
// two statements that write it (a new agent's insert; a change's update, guarded by the number of the
// last entry the object read, so a stale instance of the object changes nothing). The columns readers
// use are kept beside the object's own state (RowState, JSON), written together, one row a change.

import { getTableColumns } from "drizzle-orm";
import { contributionOf, scoreOfRecord, type AgentRecord, type AgentRef } from "../domain/agent";
import type { AgentKey } from "../domain/agent-keys";
import { GENESIS } from "../domain/entries";
import type { Notified } from "../domain/events";
import type { LogTags } from "../domain/log/epochs";
import type { AgentModel } from "../domain/model";
import type { Database } from "./client";
import { configurationOf, readAgentRow, type AgentRow } from "./agents";
import { agents } from "./shard-schema";

/**
 * The row's contract: 3, the row is the record under scoring model version 4 (2: under version 3;
 * 1: the earlier contract, whose object still holds the truth until the sweep).
 */
export const RECORD_CONTRACT = 3;

/** What the object keeps of the agent beyond the row's columns. */
export interface RowState {
  keys: AgentKey[];
  directories: Record<string, number>;
  /** What score.changed last told (null: nothing yet). */
  notified: Notified | null;
  /** The earliest answer deadline of the agent's open disputes (ms). */
  disputesDue?: number | null;
  /** How its log leaves are tagged (absent until the migration sweep). */
  logTags?: LogTags;
}

/** The agent as its object works on it: the record, where its outbox stands, and the row's contract. */
export interface Loaded {
  record: AgentRecord;
  /** The entries up to this number were handed to the queues. */
  published: number;
  notified: Notified | null;
  contract: number;
  /** What the row's score columns show (as of the row's last write): lists and operator figures read them. */
  shown: Shown;
}

export interface Shown {
  composite: number;
  confidence: string;
  recommendation: string;
}

/** The record a row holds (the row of a contract-1 agent has no state: its object's storage does). */
export function loadedOfRow(ref: AgentRef, row: AgentRow): Loaded {
  const state: RowState = row.state ? (JSON.parse(row.state) as RowState) : { keys: [], directories: {}, notified: null };
  const record: AgentRecord = {
    ...ref,
    operatorId: row.operatorId,
    name: row.name,
    description: row.description,
    status: row.status,
    config: configurationOf(row),
    fingerprint: row.fingerprint,
    configVersion: row.configVersion,
    lastConfigChangeAt: row.lastConfigChangeAt,
    identityLevel: row.identityLevel,
    callbackVerified: row.callbackVerified,
    identityKey: row.identityKey,
    keys: state.keys,
    directories: state.directories,
    claimTokenHash: row.claimTokenHash,
    publicProfile: row.publicProfile,
    evidence: JSON.parse(row.evidence) as AgentModel,
    similarToCautioned: row.similarToCautioned,
    outcomes: JSON.parse(row.outcomeCounts) as Record<string, number>,
    seq: row.seq,
    chainHash: row.chainHash ?? GENESIS,
    ...(state.logTags ? { logTags: state.logTags } : {}),
    disputesDue: state.disputesDue ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  return {
    record,
    published: row.published,
    notified: state.notified,
    contract: row.contract,
    shown: { composite: row.composite, confidence: row.confidence, recommendation: row.recommendation },
  };
}

/** The contract the agent's row was written under (null: the shard does not hold the agent). */
export const readContract = async (d1: Database, sid: string): Promise<number | null> =>
  (await d1.prepare("SELECT contract FROM agents WHERE sid = ?").bind(sid).first<number>("contract")) ?? null;

/** The agent's record from its shard's primary; null for an agent the shard does not hold. */
export async function readRecord(d1: Database, ref: AgentRef): Promise<Loaded | null> {
  const row = await readAgentRow(d1, ref.sid);
  return row ? loadedOfRow(ref, row) : null;
}

type Row = typeof agents.$inferInsert;

/** The whole row of the record, its score as of `now` (for lists and operator figures). */
export function rowOf(record: AgentRecord, now: number, published: number, notified: Notified | null): Row {
  const score = scoreOfRecord(record, now);
  const independent = contributionOf(record, now);
  const c = record.config;
  const state: RowState = {
    keys: record.keys,
    directories: record.directories,
    notified,
    disputesDue: record.disputesDue ?? null,
    ...(record.logTags ? { logTags: record.logTags } : {}),
  };
  return {
    sid: record.sid,
    num: record.num,
    operatorId: record.operatorId,
    name: record.name,
    description: record.description,
    status: record.status,
    modelProvider: c.modelProvider,
    modelName: c.modelName,
    systemPromptHash: c.systemPromptHash,
    tools: JSON.stringify(c.tools),
    memoryConfig: c.memoryConfig === null ? null : JSON.stringify(c.memoryConfig),
    fingerprint: record.fingerprint,
    configVersion: record.configVersion,
    lastConfigChangeAt: record.lastConfigChangeAt,
    identityLevel: record.identityLevel,
    identityKey: record.identityKey,
    callbackVerified: record.callbackVerified,
    publicProfile: record.publicProfile ?? false,
    claimTokenHash: record.claimTokenHash,
    evidence: JSON.stringify(record.evidence),
    modelVersion: 4,
    similarToCautioned: record.similarToCautioned ?? false,
    reporters: "{}",
    composite: score.composite,
    confidence: score.confidence,
    recommendation: score.recommendation,
    evidenceTotal: score.credible,
    // The operator score's sums (src/db/agents.ts): Σ mass and Σ mass × S over the operator's agents.
    independentEvidence: independent.mass,
    independentComposite: independent.mass > 0 ? Math.round(independent.weighted / independent.mass) : 500,
    outcomeCounts: JSON.stringify(record.outcomes),
    seq: record.seq,
    historyVersion: 2,
    ownerLocal: null,
    chainHash: record.chainHash,
    state: JSON.stringify(state),
    published,
    contract: RECORD_CONTRACT,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

const columns = getTableColumns(agents);
const ALL = Object.keys(columns) as (keyof Row)[];
/**
 * What a report changes (never an indexed column: an update that names one writes its index rows
 * too, a row each). Everything else changes with the agent's profile, identity or owner.
 */
const SCORE_COLUMNS = [
  "evidence",
  "composite",
  "confidence",
  "recommendation",
  "evidenceTotal",
  "independentEvidence",
  "independentComposite",
  "outcomeCounts",
  "seq",
  "chainHash",
  "state",
  "published",
  "updatedAt",
] as const satisfies readonly (keyof Row)[];
const NOT_KEY = ALL.filter((p) => p !== "sid");
const setOf = (props: readonly (keyof Row)[]) => props.map((p) => `${columns[p].name} = ?`).join(", ");
const UPDATE_SCORE = `UPDATE agents SET ${setOf(SCORE_COLUMNS)} WHERE sid = ? AND seq = ?`;
const UPDATE_WHOLE = `UPDATE agents SET ${setOf(NOT_KEY)} WHERE sid = ? AND seq = ?`;
const INSERT = `INSERT INTO agents (${ALL.map((p) => columns[p].name).join(", ")}) VALUES (${ALL.map(() => "?").join(", ")})`;

const valueOf = (row: Row, p: keyof Row): unknown => {
  const v = row[p];
  return v === undefined ? null : typeof v === "boolean" ? (v ? 1 : 0) : v;
};

/** A new agent's row: a plain insert (a second registration of the SID fails the batch). */
export const insertAgent = (d1: Database, row: Row) => d1.prepare(INSERT).bind(...ALL.map((p) => valueOf(row, p)));

/**
 * A change's update of the agent's row, where its `seq` is still `expected` (the last entry the
 * object read): its report columns, or (`whole`) every column. The caller checks that it changed
 * exactly one row.
 */
export function updateAgent(d1: Database, row: Row, expected: number, whole: boolean) {
  const props = whole ? NOT_KEY : SCORE_COLUMNS;
  return d1.prepare(whole ? UPDATE_WHOLE : UPDATE_SCORE).bind(...props.map((p) => valueOf(row, p)), row.sid, expected);
}

/** Every column of the row, whatever its `seq` (the sweep's move of an agent from the earlier contract, which the object runs alone). */
export function replaceAgent(d1: Database, row: Row) {
  return d1.prepare(`UPDATE agents SET ${setOf(NOT_KEY)} WHERE sid = ?`).bind(...NOT_KEY.map((p) => valueOf(row, p)), row.sid);
}

export type { AgentRow };
