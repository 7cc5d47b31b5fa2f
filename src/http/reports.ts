import type { Context } from "hono";
import { signPromise } from "../domain/attestations";
import type { AgentRef } from "../domain/agent";
import { SIGNAL_DIMENSIONS, type Outcome, type SignalDimension } from "../domain/model";
import type { TransactionRecorded } from "../domain/views";
import type { ReportInput } from "../durable/agent";
import { publicOrigin } from "../env";
import { logOriginOf } from "./log-origin";
import { authOf } from "./auth";
import type { AppEnv } from "./context";
import { signingKeys } from "./signing-keys";

/** A report as `POST /transactions` takes it (validated), and as each report of a batch is. */
export interface ReportBody {
  sid: string;
  transactionType: string;
  outcome: Outcome;
  reliabilitySignal?: number | null;
  qualitySignal?: number | null;
  financialSignal?: number | null;
  securitySignal?: number | null;
  metadata?: Record<string, unknown> | null;
  receipt?: string;
}

/** What the agent's object is told of a report: who reports (and its weight's facts now), when, what. */
export function reportInput(c: Context<AppEnv>, body: ReportBody, at: number): ReportInput {
  const auth = authOf(c);
  const signals: Partial<Record<SignalDimension, number>> = {};
  for (const d of SIGNAL_DIMENSIONS) {
    const value = body[`${d}Signal`];
    if (value !== null && value !== undefined) signals[d] = value;
  }
  return {
    reporter: auth.operatorId,
    at,
    transactionType: body.transactionType,
    outcome: body.outcome,
    signals,
    metadata: body.metadata ?? null,
    receipt: body.receipt,
  };
}

/** The recorded report with its log promise: the service's signed word that its entry will be in the agent's log. */
export async function withPromise(c: Context<AppEnv>, ref: AgentRef, recorded: TransactionRecorded): Promise<TransactionRecorded> {
  const { leaf } = recorded;
  if (!leaf) return recorded;
  // A tagged leaf shows neither the entry's number nor its hash: the report's answer names them.
  const entry = "seq" in leaf ? { n: leaf.seq, hash: leaf.entry_hash } : recorded.entry;
  if (!entry) return recorded;
  const [[key], log] = await Promise.all([signingKeys(c), logOriginOf(c, ref.log)]);
  const promise = await signPromise(
    {
      iss: publicOrigin(c.env),
      sub: ref.sid,
      iat: Math.floor((recorded.recordedAt ?? c.get("deps").now()) / 1000),
      log,
      seq: entry.n,
      entry_hash: entry.hash,
      leaf,
    },
    key,
  );
  return { ...recorded, promise };
}
