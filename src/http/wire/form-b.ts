// Form B: for clients that send `API-Version: B`. Same domain, other shapes: `score`, dimensions on a
// 0.0-1.0 scale, `{error: {code, message}}`. Routes only Form A describes keep Form A payloads.
import { z } from "@hono/zod-openapi";
import type { ApiError } from "../../domain/errors";
import type { Dimension, ScoreView } from "../../domain/model";
import type { AgentReport, AgentScore, ConfigUpdated, Registration, TransactionRecorded } from "../../domain/views";
import { formA, receiptSchema } from "./form-a";

const confidence = z.enum(["low", "medium", "high"]);
const recommendation = z.enum(["clear", "review", "caution"]);
const unit = z.number().min(0).max(1);
const dimensions = z.object({ reliability: unit, quality: unit, financial: unit, security: unit, stability: unit });

export const schemas = {
  error: z.object({ error: z.object({ code: z.string(), message: z.string() }), request_id: z.string() }).openapi("ErrorB"),
  registration: z
    .object({
      sid: z.string(),
      name: z.string(),
      created_at: z.string(),
      status: z.string(),
      initial_score: z.number(),
      claim_token: z.string().optional(),
    })
    .openapi("RegistrationB"),
  score: z
    .object({
      sid: z.string(),
      score: z.number().int(),
      confidence,
      recommendation,
      dimensions,
      reasons: z.array(z.string()),
      identity_level: z.number().int(),
      updated_at: z.string(),
    })
    .openapi("ScoreB"),
  publicScore: z
    .object({ sid: z.string(), score: z.number().int(), confidence, recommendation, identity_level: z.number().int(), updated_at: z.string() })
    .openapi("PublicScoreB"),
  report: z
    .object({
      sid: z.string(),
      name: z.string(),
      score: z.number().int(),
      confidence,
      recommendation,
      dimensions,
      reasons: z.array(z.string()),
      identity_level: z.number().int(),
      operator: z.object({ score: z.number(), history: z.string(), agents_operated: z.number().int() }).nullable(),
      config: z.object({ model: z.string(), version: z.string(), last_change: z.string() }),
      score_history: z.array(
        z.object({ score: z.number().int(), timestamp: z.string(), reason: z.enum(["transaction_update", "config_change_decay", "dispute_withdrawal"]) }),
      ),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .openapi("ReportB"),
};

type Out<K extends keyof typeof schemas> = z.infer<(typeof schemas)[K]>;

const updatedScores = z.object({ composite_score: z.number().int(), dimensions, confidence, recommendation });
export const transactionSchemaB = z
  .object({ success: z.boolean(), transaction_id: z.number().int(), updated_scores: updatedScores, receipt: receiptSchema.optional(), message: z.string() })
  .openapi("TransactionRecordedB");
export const configSchemaB = z
  .object({
    change_detected: z.boolean(),
    change_type: z.string().nullable(),
    updated_scores: updatedScores,
    fingerprint_hash: z.string(),
    message: z.string(),
  })
  .openapi("ConfigUpdatedB");

/** Form A's payloads, with the dimensions of `updated_scores` on Form B's 0.0-1.0 scale. */
const unitUpdatedScores = <T extends { updated_scores: { dimensions: Record<Dimension, number> } }>(body: T): T => ({
  ...body,
  updated_scores: { ...body.updated_scores, dimensions: unitDimensions(body.updated_scores.dimensions) },
});

const unitDimensions = (d: Record<Dimension, number>) =>
  Object.fromEntries(Object.entries(d).map(([name, v]) => [name, v / 1000])) as Record<Dimension, number>;

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
    identity_level: a.identityLevel,
    updated_at: a.lastUpdated,
  }),

  publicScore: (a: AgentScore): Out<"publicScore"> => ({
    sid: a.sid,
    score: a.score.composite,
    confidence: a.score.confidence,
    recommendation: a.score.recommendation,
    identity_level: a.identityLevel,
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
