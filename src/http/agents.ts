import type { Context } from "hono";
import { RECORD_CONTRACT } from "../db/agent-record";
import type { Database } from "../db/client";
import { findLegacyReportSid, operatorSums, readAgentReport, readAgentRow, readScoreRow, SCORE_HISTORY_LIMIT, type AgentRow } from "../db/agents";
import { archivedScoreEvents } from "../db/archived-reads";
import { MIN_WINDOW_DAYS } from "../db/history-archive";
import { toAgentScore } from "../domain/views";
import { findAgent, findAgentByNumber } from "../db/directory";
import { unresolvedDisputes } from "../db/disputes";
import { getOperator } from "../db/operators";
import { locateTransaction, type AgentRef } from "../domain/agent";
import { errors, refusalError } from "../domain/errors";
import { operatorScoreFromSums } from "../domain/model";
import type { AgentReport, AgentScore, OperatorSummary } from "../domain/views";
import { shardDatabases } from "../env";
import type { AppEnv } from "./context";

// Where agents live, and what readers need about their owners, cached per isolate.

/** A directory entry never changes but when an agent moves shard; a move waits this long for caches. */
const DIRECTORY_TTL_MS = 10 * 60_000;
/** Operator figures combine every shard: they may be this old. */
const OPERATOR_TTL_MS = 60_000;
const MAX_ENTRIES = 20_000;

const directory = new Map<string, { ref: AgentRef; at: number }>();

function remember<K, V>(map: Map<K, V>, key: K, value: V) {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value!);
  map.set(key, value);
}

/** The agent's number and shard, from the control database's directory; 404 for an unknown SID. */
export async function locate(c: Context<AppEnv>, sid: string): Promise<AgentRef> {
  const hit = directory.get(sid);
  if (hit && Date.now() - hit.at < DIRECTORY_TTL_MS) return hit.ref;
  // Most agents of a large service are not in this isolate's cache: the nearest replica answers. An
  // agent it lacks may have been registered a moment ago elsewhere: the primary decides a 404.
  const entry = (await findAgent(c.env.DB.withSession("first-unconstrained"), sid)) ?? (await findAgent(c.env.DB.withSession("first-primary"), sid));
  if (!entry) throw errors.agentNotFound();
  const ref = { sid: entry.sid, num: entry.num, shard: entry.shard, log: entry.log };
  remember(directory, sid, { ref, at: Date.now() });
  return ref;
}

type AgentStub = DurableObjectStub<import("../durable/agent").Agent>;
const ids = new WeakMap<object, Map<string, DurableObjectId>>();

/**
 * The agent's object. Its id is kept per isolate (and namespace): deriving it from the name hashes
 * it on every request otherwise. The stub itself is made per request: a stub is an I/O object, and
 * the runtime refuses one made in another request's context.
 */
export function agentOf(c: Context<AppEnv>, ref: AgentRef): AgentStub {
  const namespace = c.env.AGENT;
  let byName = ids.get(namespace);
  if (!byName) ids.set(namespace, (byName = new Map()));
  let id = byName.get(ref.sid);
  if (!id) {
    id = namespace.idFromName(ref.sid);
    remember(byName, ref.sid, id);
  }
  return namespace.get(id);
}

/**
 * The agent's row from its shard, as the request reads it (./sessions: the primary, a replica at
 * least as new as the client's bookmark, or any replica for a public read). A row missing there,
 * that its object has not written yet, or that is still on the first scoring model is settled by the
 * agent's object first, then read from the shard's primary.
 */
export const readAgent = (c: Context<AppEnv>, sid: string) => readAgentWith(c, sid, readAgentRow);

async function readAgentWith<R extends { contract: number }>(
  c: Context<AppEnv>,
  sid: string,
  read: (d1: Database, sid: string) => Promise<R | null>,
): Promise<{ ref: AgentRef; row: R }> {
  const ref = await locate(c, sid);
  const row = await read(c.get("sessions").shard(ref.shard), sid);
  // A row on an earlier contract (its object's storage holding the truth, or scored by an earlier
  // model) is moved by its object first, as the sweep would.
  if (row && row.contract >= RECORD_CONTRACT) return { ref, row };
  const synced = await agentOf(c, ref).migrate(ref);
  if (!synced.ok) throw refusalError(synced.refusal);
  const fresh = await read(shardDatabases(c.env)[ref.shard].withSession("first-primary"), sid);
  if (!fresh) throw errors.agentNotFound();
  return { ref, row: fresh };
}

export interface OperatorFacts extends OperatorSummary {
  createdAt: string;
  agents: number;
}

const operators = new Map<number, { facts: OperatorFacts; at: number }>();

/**
 * The operator as readers show it: name, verified, and its operator score from the sums of every
 * shard (each agent's independent evidence as of its row's last refresh, at most a day old).
 */
export async function operatorFacts(c: Context<AppEnv>, operatorId: number): Promise<OperatorFacts | null> {
  const hit = operators.get(operatorId);
  if (hit && Date.now() - hit.at < OPERATOR_TTL_MS) return hit.facts;
  const sessions = c.get("sessions");
  const [operator, ...sums] = await Promise.all([
    getOperator(c.get("db"), operatorId),
    ...shardDatabases(c.env).map((_, n) => operatorSums(sessions.shard(n), operatorId)),
  ]);
  if (!operator) return null;
  const total = sums.reduce(
    (t: { agents: number; evidence: number; weighted: number }, s) => ({
      agents: t.agents + s.agents,
      evidence: t.evidence + s.evidence,
      weighted: t.weighted + s.weighted,
    }),
    {
      agents: 0,
      evidence: 0,
      weighted: 0,
    },
  );
  const facts: OperatorFacts = {
    name: operator.name,
    verified: operator.verified,
    score: operatorScoreFromSums(total.evidence, total.weighted),
    createdAt: operator.createdAt,
    agents: total.agents,
  };
  remember(operators, operatorId, { facts, at: Date.now() });
  return facts;
}

/** Drops this isolate's copy of an operator's figures after a change made here (admin, claims). */
export const forgetOperator = (operatorId: number) => operators.delete(operatorId);

/** The owner check of owner-only routes: 404 for no agent, 403 for anyone but its owner. */
export async function ownedAgent(c: Context<AppEnv>, sid: string, operatorId: number): Promise<{ ref: AgentRef; row: AgentRow }> {
  const found = await readAgent(c, sid);
  if (found.row.operatorId !== operatorId) throw errors.notOwner();
  return found;
}

/** The agent's full score as readers show it, with its owner's figures. */
export async function agentScore(c: Context<AppEnv>, sid: string): Promise<AgentScore> {
  const { row } = await readAgentWith(c, sid, readScoreRow);
  const operator = row.operatorId === null ? null : await operatorFacts(c, row.operatorId);
  return toAgentScore(row, operator, c.get("deps").now());
}

/** The agent's report: its score, owner, history and transaction summary. */
export async function agentReport(c: Context<AppEnv>, sid: string): Promise<AgentReport> {
  const { ref, row } = await readAgent(c, sid);
  const operator = row.operatorId === null ? null : await operatorFacts(c, row.operatorId);
  const owner = operator && { since: operator.createdAt, agentsOperated: operator.agents };
  const [report, disputes] = await Promise.all([
    readAgentReport(c.get("sessions").shard(ref.shard), sid, c.get("deps").now(), operator, owner),
    unresolvedDisputes(c.get("db"), sid),
  ]);
  if (!report) throw errors.agentNotFound();
  // An agent with fewer score-moving entries on its shard than the history shows may have the rest
  // archived, unless it is younger than any retention window.
  const young = Date.parse(row.createdAt) > c.get("deps").now() - MIN_WINDOW_DAYS * 86_400_000;
  if (report.scoreHistory.length < SCORE_HISTORY_LIMIT && !young) {
    const older = await archivedScoreEvents(
      c.get("sessions").shard(ref.shard),
      c.env.ARCHIVE_BUCKET,
      sid,
      ref.num,
      SCORE_HISTORY_LIMIT - report.scoreHistory.length,
    );
    return { ...report, scoreHistory: [...report.scoreHistory, ...older], disputes };
  }
  return { ...report, disputes };
}

/**
 * The agent a report belongs to, found from the report's id alone: an id from before sharding is on
 * shard 0; any other names the agent's directory number.
 */
export async function locateReport(c: Context<AppEnv>, transactionId: number): Promise<AgentRef> {
  const where = locateTransaction(transactionId);
  if (where.legacy) {
    const sid = await findLegacyReportSid(shardDatabases(c.env)[0].withSession("first-primary"), transactionId);
    if (!sid) throw errors.transactionNotFound();
    return locate(c, sid);
  }
  const entry = await findAgentByNumber(c.env.DB.withSession("first-primary"), where.num);
  if (!entry) throw errors.transactionNotFound();
  return { sid: entry.sid, num: entry.num, shard: entry.shard, log: entry.log };
}
