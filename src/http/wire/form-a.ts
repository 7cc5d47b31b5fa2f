// Form A: the default wire format, with the spec's exact field names.
import { z } from "@hono/zod-openapi";
import { CONFIG_HISTORY_LIMIT, SCORE_HISTORY_LIMIT } from "../../db/agents";
import type { ApiError } from "../../domain/errors";
import { AGENT_STATUSES, SCORE_EVENT_TYPES } from "../../domain/agent";
import type { ScoreView } from "../../domain/model";
import { IDENTITY_LABELS } from "../../domain/agent-keys";
import { DISPUTE_STATUSES } from "../../domain/disputes";
import { RECEIPT_REFUSALS } from "../../domain/receipts";
import { CHANGE_TYPES, OUTCOMES } from "../../domain/model";
import { TRANSACTION_STATUSES, type AgentReport, type AgentScore, type ConfigUpdated, type Registration, type TransactionRecorded } from "../../domain/views";
import {
  agentDescription,
  agentName,
  agentStatus,
  confidence,
  dimensionsOf,
  errorA,
  identityLabel,
  identityLevel,
  modelOfScore,
  scoringModel,
  reasons,
  recommendation,
  scoreValue,
  sid,
  timestamp,
} from "./common";
import { EVIDENCE, listsA } from "./form-a-lists";

const operator = z
  .object({ name: z.string(), score: scoreValue.openapi({ description: "The operator score" }), verified: z.boolean() })
  .nullable()
  .openapi({ description: "The owning operator; null until a self-registered agent is claimed" });
const dimensions = dimensionsOf(scoreValue);
const fingerprint = z.string().openapi({ description: "SHA-256 (hex) of the canonical configuration" });
const changeType = z.enum(CHANGE_TYPES).nullable().openapi({ description: "The most severe change found; null when nothing changed" });
/** The disputes an owner has not seen resolved: open or waiting for the admins. */
const UNRESOLVED = DISPUTE_STATUSES.filter((s) => s !== "resolved") as ["open", "escalated"];

export const schemas = {
  error: errorA,
  registration: z
    .object({
      sid,
      name: z.string(),
      composite_score: scoreValue,
      confidence,
      fingerprint,
      message: z.string(),
      claim_token: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional()
        .openapi({ description: "Self-registration only; shown once" }),
    })
    .openapi("RegistrationA"),
  score: z
    .object({
      sid,
      agent_name: agentName,
      composite_score: scoreValue,
      ...dimensions.shape,
      confidence,
      recommendation,
      reasons,
      model: scoringModel,
      operator,
      config_fingerprint: fingerprint,
      identity_level: identityLevel,
      identity_label: identityLabel,
      identity_key: z.string().nullable().openapi({ description: "The proven key's RFC 7638 thumbprint at identity level 2" }),
      status: agentStatus,
      last_updated: timestamp,
    })
    .openapi("ScoreA"),
  publicScore: z
    .object({
      sid,
      agent_name: agentName,
      composite_score: scoreValue,
      confidence,
      recommendation,
      identity_level: identityLevel,
      operator_name: z.string().nullable(),
      status: agentStatus,
    })
    .openapi("PublicScoreA"),
  report: z
    .object({
      sid,
      agent_name: agentName,
      description: agentDescription,
      status: z.enum(AGENT_STATUSES),
      current_score: z.object({ composite: scoreValue, ...dimensions.shape, confidence, recommendation }),
      reasons,
      model: scoringModel,
      identity_level: identityLevel,
      identity_label: identityLabel,
      identity_key: z.string().nullable(),
      operator,
      score_history: z
        .array(
          z.object({
            composite: scoreValue,
            ...dimensions.shape,
            event_type: z.enum(SCORE_EVENT_TYPES),
            timestamp,
            transaction_id: z.number().int().nullable().openapi({ description: "The report a transaction event recorded; null for other events" }),
            evidence: z.enum(EVIDENCE).nullable().openapi({ description: "receipt: a valid receipt signed by the agent's key backed the report" }),
            status: z.enum(TRANSACTION_STATUSES).nullable().openapi({ description: "Whether the report still counts" }),
          }),
        )
        .openapi({ description: `The last ${SCORE_HISTORY_LIMIT} events, newest first` }),
      config_history: z
        .array(
          z.object({
            fingerprint,
            model_provider: z.string(),
            model_name: z.string(),
            change_type: changeType.openapi({ description: "null for the configuration the agent registered with" }),
            timestamp,
          }),
        )
        .openapi({ description: `The last ${CONFIG_HISTORY_LIMIT} configurations, newest first` }),
      transaction_summary: z.object({
        total: z.number().int().min(0),
        outcomes: z
          .partialRecord(z.enum(OUTCOMES), z.number().int().min(0))
          .openapi({ description: "Reports per outcome; outcomes never reported are absent" }),
      }),
      disputes: z
        .array(
          z.object({
            id: z.number().int(),
            transaction_id: z.number().int(),
            status: z.enum(UNRESOLVED),
            reason: z.string(),
            statement: z.string().nullable(),
            opened_at: timestamp,
            respond_by: timestamp,
          }),
        )
        .openapi({ description: "Disputes of the agent's reports not yet resolved, with the owner's statement" }),
      last_updated: timestamp,
    })
    .openapi("ReportA"),
  updatedScores: z.object({ composite_score: scoreValue, dimensions, confidence, recommendation }),
};
export const receiptSchema = z
  .object({ accepted: z.boolean(), reason: z.enum(RECEIPT_REFUSALS).optional().openapi({ description: "Why the receipt added no weight" }) })
  .openapi("ReceiptOutcome");
export const logPromiseSchema = z.string().openapi({
  description:
    "Compact JWS (alg EdDSA, typ trust-log-promise+jwt, kid from /.well-known/jwks.json): iss, sub (SID), iat, log (the log's origin), seq and entry_hash (the report's history entry), leaf (the leaf that entry appears as in the log). Keep it: `npm run verify` checks that the leaf is in the log.",
});
/** A batch's outcome for one report: recorded, or refused with the single route's error. */
export type BatchOutcome = { recorded: TransactionRecorded } | { error: ApiError };

export const transactionSchema = z
  .object({
    success: z.boolean(),
    transaction_id: z.number().int(),
    updated_scores: schemas.updatedScores,
    receipt: receiptSchema.optional().openapi({ description: "Only when the report carried a receipt" }),
    log_promise: logPromiseSchema.optional(),
    message: z.string(),
  })
  .openapi("TransactionRecordedA");
/** One report of a batch: the single route's 201 body with its status, or its error with the status it would have had. */
export const batchResultSchema = z
  .object({
    success: z.boolean().optional(),
    status: z.number().int().openapi({ description: "What POST /transactions would have answered for this report alone: 201, or its 4xx" }),
    transaction_id: z.number().int().optional(),
    updated_scores: schemas.updatedScores.optional(),
    receipt: receiptSchema.optional(),
    log_promise: logPromiseSchema.optional(),
    message: z.string().optional(),
    error: z.string().optional().openapi({ description: "Present when status is not 201: the single route's error text" }),
  })
  .openapi("BatchResultA");
export const batchSchema = z
  .object({ results: z.array(batchResultSchema).openapi({ description: "One result per report, in the order sent" }) })
  .openapi("BatchA");
export const configSchema = z
  .object({
    change_detected: z.boolean(),
    change_type: changeType,
    updated_scores: schemas.updatedScores,
    fingerprint_hash: fingerprint,
    message: z.string(),
  })
  .openapi("ConfigUpdatedA");

type Out<K extends keyof typeof schemas> = z.infer<(typeof schemas)[K]>;

const updatedScores = (s: ScoreView): Out<"updatedScores"> => ({
  composite_score: s.composite,
  dimensions: { ...s.dimensions },
  confidence: s.confidence,
  recommendation: s.recommendation,
});

export const formA = {
  error: (e: ApiError, requestId: string): Out<"error"> => ({ error: e.message, request_id: requestId }),

  registration: (r: Registration): Out<"registration"> => ({
    sid: r.sid,
    name: r.name,
    composite_score: r.score.composite,
    confidence: r.score.confidence,
    fingerprint: r.fingerprint,
    message: r.claimToken
      ? "Agent registered. Keep the claim_token: an operator claims the agent with it, and it is shown only once."
      : "Agent registered successfully",
    ...(r.claimToken ? { claim_token: r.claimToken } : {}),
  }),

  score: (a: AgentScore): Out<"score"> => ({
    sid: a.sid,
    agent_name: a.name,
    composite_score: a.score.composite,
    ...a.score.dimensions,
    confidence: a.score.confidence,
    recommendation: a.score.recommendation,
    reasons: a.score.reasons,
    model: modelOfScore(a.score),
    operator: a.operator,
    config_fingerprint: a.fingerprint,
    identity_level: a.identityLevel,
    identity_label: IDENTITY_LABELS[a.identityLevel as 0 | 1 | 2],
    identity_key: a.identityKey,
    status: a.status,
    last_updated: a.lastUpdated,
  }),

  publicScore: (a: AgentScore): Out<"publicScore"> => ({
    sid: a.sid,
    agent_name: a.name,
    composite_score: a.score.composite,
    confidence: a.score.confidence,
    recommendation: a.score.recommendation,
    identity_level: a.identityLevel,
    operator_name: a.operator?.name ?? null,
    status: a.status,
  }),

  report: (r: AgentReport): Out<"report"> => ({
    sid: r.sid,
    agent_name: r.name,
    description: r.description,
    status: r.status,
    current_score: {
      composite: r.score.composite,
      ...r.score.dimensions,
      confidence: r.score.confidence,
      recommendation: r.score.recommendation,
    },
    reasons: r.score.reasons,
    model: modelOfScore(r.score),
    identity_level: r.identityLevel,
    identity_label: IDENTITY_LABELS[r.identityLevel as 0 | 1 | 2],
    identity_key: r.identityKey,
    operator: r.operator,
    score_history: r.scoreHistory.map((e) => ({
      composite: e.composite,
      ...e.dimensions,
      event_type: e.eventType,
      timestamp: e.timestamp,
      transaction_id: e.transactionId,
      evidence: e.evidence,
      status: e.status,
    })),
    config_history: r.configHistory.map((c) => ({
      fingerprint: c.fingerprint,
      model_provider: c.modelProvider,
      model_name: c.modelName,
      change_type: c.changeType,
      timestamp: c.timestamp,
    })),
    transaction_summary: r.transactions,
    disputes: (r.disputes ?? []).map((d) => ({
      id: d.id,
      transaction_id: d.id,
      status: d.status as (typeof UNRESOLVED)[number],
      reason: d.reason,
      statement: d.statement,
      opened_at: d.openedAt,
      respond_by: d.respondBy,
    })),
    last_updated: r.lastUpdated,
  }),

  transaction: (t: TransactionRecorded): z.infer<typeof transactionSchema> => ({
    success: true,
    transaction_id: t.transactionId,
    updated_scores: updatedScores(t.score),
    ...(t.receipt ? { receipt: t.receipt } : {}),
    ...(t.promise ? { log_promise: t.promise } : {}),
    message: "Transaction recorded and scores updated",
  }),

  batch: (results: BatchOutcome[]): z.infer<typeof batchSchema> => ({
    results: results.map((r) => ("error" in r ? { status: r.error.status, error: r.error.message } : { status: 201, ...formA.transaction(r.recorded) })),
  }),

  ...listsA,

  config: (u: ConfigUpdated): z.infer<typeof configSchema> => ({
    change_detected: u.changeDetected,
    change_type: u.changeType,
    updated_scores: updatedScores(u.score),
    fingerprint_hash: u.fingerprint,
    message: u.changeDetected ? `Configuration change detected (${u.changeType}); scores decayed in proportion` : "No configuration change detected",
  }),
};
