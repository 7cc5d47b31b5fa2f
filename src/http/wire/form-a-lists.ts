// Form A's list bodies: the caller's operator profile with its agents (GET /me), and an agent's
// transactions (GET /agents/{sid}/transactions).
import { z } from "@hono/zod-openapi";
import { AGENT_STATUSES } from "../../domain/agent";
import { OUTCOMES } from "../../domain/model";
import { TRANSACTION_STATUSES, type AgentSummary, type OperatorProfile, type TransactionEntry } from "../../domain/views";
import { agentDescription, agentName, confidence, identityLevel, nextCursor, recommendation, scoreValue, sid, timestamp } from "./common";

export const EVIDENCE = ["receipt", "none"] as const;

export const meSchema = z
  .object({
    operator: z.object({
      id: z.number().int(),
      name: z.string(),
      email: z.string(),
      operator_score: scoreValue,
      verified: z.boolean(),
      api_key_prefix: z
        .string()
        .regex(/^[0-9a-f]{8}$/)
        .openapi({ description: "The first 8 hex characters of the calling key" }),
      created_at: timestamp,
    }),
    agents: z.array(
      z.object({
        sid,
        name: agentName,
        description: agentDescription,
        composite_score: scoreValue,
        confidence,
        recommendation,
        status: z.enum(AGENT_STATUSES),
        identity_level: identityLevel,
        created_at: timestamp,
      }),
    ),
    next_cursor: nextCursor,
  })
  .openapi("Me");

export const transactionListSchema = z
  .object({
    transactions: z.array(
      z.object({
        transaction_id: z.number().int(),
        transaction_type: z.string().openapi({ description: "The report's transaction type; `erased` once an admin erased the report's text" }),
        outcome: z.enum(OUTCOMES),
        evidence: z.enum(EVIDENCE).openapi({ description: "receipt: a valid receipt signed by the agent's key backed the report" }),
        status: z.enum(TRANSACTION_STATUSES),
        timestamp,
      }),
    ),
    next_cursor: nextCursor,
  })
  .openapi("TransactionList");

export const listsA = {
  transactions: (entries: TransactionEntry[], cursor: string | null): z.infer<typeof transactionListSchema> => ({
    transactions: entries.map((t) => ({
      transaction_id: t.id,
      transaction_type: t.transactionType,
      outcome: t.outcome,
      evidence: t.evidence,
      status: t.status,
      timestamp: t.createdAt,
    })),
    next_cursor: cursor,
  }),

  me: (operator: OperatorProfile, agents: AgentSummary[], cursor: string | null): z.infer<typeof meSchema> => ({
    operator: {
      id: operator.id,
      name: operator.name,
      email: operator.email,
      operator_score: operator.score,
      verified: operator.verified,
      api_key_prefix: operator.keyPrefix,
      created_at: operator.createdAt,
    },
    agents: agents.map((a) => ({
      sid: a.sid,
      name: a.name,
      description: a.description,
      composite_score: a.score.composite,
      confidence: a.score.confidence,
      recommendation: a.score.recommendation,
      status: a.status,
      identity_level: a.identityLevel,
      created_at: a.createdAt,
    })),
    next_cursor: cursor,
  }),
};
