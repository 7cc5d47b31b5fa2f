// Form B: for clients that send `API-Version: B`. Same domain, other shapes: `score`, dimensions on a
// 0.0-1.0 scale, `{error: {code, message}}`. Routes only Form A describes keep Form A payloads.
import { z } from "@hono/zod-openapi";
import { AGENT_STATUSES } from "../../domain/agent";
import type { ApiError } from "../../domain/errors";
import { DIMENSIONS, type Dimension, type ScoreView } from "../../domain/model";
import type { AgentReport, AgentScore, ConfigUpdated, Registration, TransactionRecorded } from "../../domain/views";
import {
  agentName,
  agentStatus,
  confidence,
  dimensionsOf,
  errorB,
  identityLevel,
  modelOfScore,
  scoringModel,
  reasons,
  recommendation,
  scoreValue,
  sid,
  timestamp,
} from "./common";
import { configSchema, formA, logPromiseSchema, receiptSchema, schemas as a, type BatchOutcome } from "./form-a";

const unit = z.number().min(0).max(1).openapi({ description: "0.0 to 1.0 (Form A's 0-1000 divided by 1000)" });
const dimensions = dimensionsOf(unit);
/** What moved the score, as Form B names it. */
export const SCORE_REASONS = ["transaction_update", "config_change_decay", "dispute_withdrawal"] as const;

export const schemas = {
  error: errorB,
  registration: z
    .object({
      sid,
      name: agentName,
      created_at: timestamp,
      status: z.enum(AGENT_STATUSES),
      initial_score: z.literal(500),
      claim_token: a.registration.shape.claim_token,
    })
    .openapi("RegistrationB"),
  score: z
    .object({
      sid,
      score: scoreValue,
      confidence,
      recommendation,
      dimensions,
      reasons,
      model: scoringModel,
      identity_level: identityLevel,
      status: agentStatus,
      updated_at: timestamp,
    })
    .openapi("ScoreB"),
  publicScore: z
    .object({ sid, score: scoreValue, confidence, recommendation, identity_level: identityLevel, status: agentStatus, updated_at: timestamp })
    .openapi("PublicScoreB"),
  report: z
    .object({
      sid,
      name: agentName,
      score: scoreValue,
      confidence,
      recommendation,
      dimensions,
      reasons,
      model: scoringModel,
      identity_level: identityLevel,
      operator: z
        .object({
          score: scoreValue,
          history: z.string().openapi({ description: "How long the operator has had an account: a coarse duration", example: "4 months" }),
          agents_operated: z.number().int().min(0),
        })
        .nullable(),
      config: z.object({
        model: z.string(),
        version: z.string().openapi({ description: "The agent's configuration version (1 at registration), not an interface version" }),
        last_change: timestamp,
      }),
      score_history: z.array(z.object({ score: scoreValue, timestamp, reason: z.enum(SCORE_REASONS) })),
      created_at: timestamp,
      updated_at: timestamp,
    })
    .openapi("ReportB"),
};

type Out<K extends keyof typeof schemas> = z.infer<(typeof schemas)[K]>;

const updatedScores = z.object({ composite_score: scoreValue, dimensions, confidence, recommendation });
export const batchResultSchemaB = z
  .object({
    success: z.boolean().optional(),
    status: z.number().int(),
    transaction_id: z.number().int().optional(),
    updated_scores: updatedScores.optional(),
    receipt: receiptSchema.optional(),
    log_promise: logPromiseSchema.optional(),
    message: z.string().optional(),
    error: errorB.shape.error.optional(),
  })
  .openapi("BatchResultB");
export const batchSchemaB = z.object({ results: z.array(batchResultSchemaB) }).openapi("BatchB");

export const transactionSchemaB = z
  .object({
    success: z.boolean(),
    transaction_id: z.number().int(),
    updated_scores: updatedScores,
    receipt: receiptSchema.optional(),
    log_promise: logPromiseSchema.optional(),
    message: z.string(),
  })
  .openapi("TransactionRecordedB");
// Written out rather than extended from Form A's: an extended schema would refer to Form A's in the document.
export const configSchemaB = z.object({ ...configSchema.shape, updated_scores: updatedScores }).openapi("ConfigUpdatedB");

/** Form A's payloads, with the dimensions of `updated_scores` on Form B's 0.0-1.0 scale. */
const unitUpdatedScores = <T extends { updated_scores: { dimensions: Record<Dimension, number> } }>(body: T): T => ({
  ...body,
  updated_scores: { ...body.updated_scores, dimensions: unitDimensions(body.updated_scores.dimensions) },
});

const unitDimensions = (d: Record<Dimension, number>) => Object.fromEntries(DIMENSIONS.map((name) => [name, d[name] / 1000])) as Record<Dimension, number>;

const unitScale = (s: ScoreView) => unitDimensions(s.dimensions);

const DAY = 86_400_000;
/** A coarse, human duration ("3 days", "4 months", "2 years"), as Form B's operator history shows. */
export function durationLabel(fromIso: string, toIso: string): string {
  const days = Math.max(0, Math.floor((Date.parse(toIso) - Date.parse(fromIso)) / DAY));
  const [n, unitName] = days < 30 ? [days, "day"] : days < 365 ? [Math.floor(days / 30), "month"] : [Math.floor(days / 365), "year"];
  if (n === 0) return "less than a day";
  return `${n} ${unitName}${n === 1 ? "" : "s"}`;
}

export const formB = {
  ...formA,

  transaction: (t: TransactionRecorded) => unitUpdatedScores(formA.transaction(t)),

  batch: (results: BatchOutcome[]): z.infer<typeof batchSchemaB> => ({
    results: results.map((r) =>
      "error" in r ? { status: r.error.status, error: { code: r.error.code, message: r.error.message } } : { status: 201, ...formB.transaction(r.recorded) },
    ),
  }),
  config: (u: ConfigUpdated) => unitUpdatedScores(formA.config(u)),

  error: (e: ApiError, requestId: string): Out<"error"> => ({ error: { code: e.code, message: e.message }, request_id: requestId }),

  registration: (r: Registration): Out<"registration"> => ({
    sid: r.sid,
    name: r.name,
    created_at: r.createdAt,
    status: r.status,
    initial_score: 500,
    ...(r.claimToken ? { claim_token: r.claimToken } : {}),
  }),

  score: (a: AgentScore): Out<"score"> => ({
    sid: a.sid,
    score: a.score.composite,
    confidence: a.score.confidence,
    recommendation: a.score.recommendation,
    dimensions: unitScale(a.score),
    reasons: a.score.reasons,
    model: modelOfScore(a.score),
    identity_level: a.identityLevel,
    status: a.status,
    updated_at: a.lastUpdated,
  }),

  publicScore: (a: AgentScore): Out<"publicScore"> => ({
    sid: a.sid,
    score: a.score.composite,
    confidence: a.score.confidence,
    recommendation: a.score.recommendation,
    identity_level: a.identityLevel,
    status: a.status,
    updated_at: a.lastUpdated,
  }),

  report: (r: AgentReport): Out<"report"> => ({
    sid: r.sid,
    name: r.name,
    score: r.score.composite,
    confidence: r.score.confidence,
    recommendation: r.score.recommendation,
    dimensions: unitScale(r.score),
    reasons: r.score.reasons,
    model: modelOfScore(r.score),
    identity_level: r.identityLevel,
    operator: r.operatorProfile && {
      score: r.operatorProfile.score,
      history: durationLabel(r.operatorProfile.since, r.asOf),
      agents_operated: r.operatorProfile.agentsOperated,
    },
    config: { model: r.config.modelName, version: String(r.config.version), last_change: r.config.lastChange },
    score_history: r.scoreHistory.map((e) => ({
      score: e.composite,
      timestamp: e.timestamp,
      reason: e.eventType.startsWith("config_change:")
        ? ("config_change_decay" as const)
        : e.eventType.startsWith("dispute:")
          ? ("dispute_withdrawal" as const)
          : ("transaction_update" as const),
    })),
    created_at: r.createdAt,
    updated_at: r.lastUpdated,
  }),
};
