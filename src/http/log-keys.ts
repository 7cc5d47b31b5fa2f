import type { Context } from "hono";
import type { RowState } from "../db/agent-record";
import type { AgentRow } from "../db/agents";
import type { AgentRef } from "../domain/agent";
import { errors } from "../domain/errors";
import { epochRanges } from "../domain/log/epochs";
import { agentTag, epochKey, logKey } from "../domain/log/leaf";
import type { AppEnv } from "./context";
import { logOriginOf } from "./log-origin";
import type { LogKeys } from "./wire/log-keys";

/**
 * The keys of the owner epochs `operatorId` owned (and of those nobody owned: a self-registered
 * agent's time before its claim, whose entries the claimer reads anyway), from the agent's row.
 * Epochs another operator owned are left out: their leaves stay unlinkable to this owner.
 */
export async function ownerLogKeys(c: Context<AppEnv>, ref: AgentRef, row: AgentRow, operatorId: number): Promise<LogKeys> {
  const key = await logKey(c.env.LOG_KEY);
  if (!key) throw errors.logKeyNotConfigured();
  const tags = row.state ? (JSON.parse(row.state) as RowState).logTags : undefined;
  const mine = tags ? epochRanges(tags).filter((e) => e.owner === operatorId || e.owner === null) : [];
  return {
    sid: ref.sid,
    log: { log: ref.log, origin: await logOriginOf(c, ref.log) },
    seq: row.seq,
    agent: await agentTag(key, ref.sid),
    cutover: tags?.cutover ?? null,
    epochs: await Promise.all(mine.map(async (e) => ({ epoch: e.epoch, from: e.from, to: e.to, key: await epochKey(key, ref.sid, e.epoch) }))),
  };
}
