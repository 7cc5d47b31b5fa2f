// Schema pieces both wire forms share: the product's vocabularies (taken from the domain, never
// retyped), identifiers, timestamps, and the two error envelopes.
import { z } from "@hono/zod-openapi";
import { AGENT_STATUSES } from "../../domain/agent";
import { IDENTITY_LABELS } from "../../domain/agent-keys";
import { ERROR_CODES, KEY_PREFIX } from "../../domain/errors";
import { SID_PATTERN } from "../../domain/identifiers";
import { CONFIDENCES, DIMENSIONS, MODEL, REASON_CODES, RECOMMENDATIONS, type Dimension } from "../../domain/model";

export const sid = z.string().regex(SID_PATTERN).openapi({ example: "SID-0x3f9a0c1d2e4b5a69" });

/** The name its owner registered; `erased` once an admin erased the agent's history text. */
export const agentName = z.string().openapi({ description: "The agent's name; `erased` once an admin erased the agent's history text" });
/** Shown wherever the agent is: a suspended agent's scores are its last ones, and it gets no attestation. */
export const agentStatus = z
  .enum(AGENT_STATUSES)
  .openapi({ description: "`suspended`: an admin suspended the agent; it accepts no reports and gets no attestation, and its figures are its last ones" });
/** The owner's description; null when none was given, or once erased. */
export const agentDescription = z.string().nullable().openapi({ description: "The agent's description; null when none was given, or once an admin erased it" });
/** Every timestamp the service writes: ISO 8601 in UTC with milliseconds (`Date.toISOString`). */
export const timestamp = z.string().openapi({ format: "date-time", example: "2026-11-21T10:20:30.000Z" });
export const confidence = z.enum(CONFIDENCES);
export const recommendation = z.enum(RECOMMENDATIONS);
export const reasons = z
  .array(z.enum(REASON_CODES))
  .max(MODEL.maxReasons)
  .openapi({ description: `Up to ${MODEL.maxReasons} reason codes, most important first` });
/** The scoring model behind a score: its version, and the credibility snapshot in force on the agent. */
export const scoringModel = z
  .object({
    version: z.literal(4).openapi({ description: "The scoring model version" }),
    snapshot: z
      .string()
      .nullable()
      .openapi({ description: "The credibility snapshot in force on the agent (the credibility job's); null before the agent took one up" }),
  })
  .openapi("ScoringModel", { example: { version: 4, snapshot: "2026-11-28.1" } });
export const modelOfScore = (s: { model: { version: 4; snapshot: string | null } }) => ({ version: s.model.version, snapshot: s.model.snapshot });
export const identityLevel = z
  .number()
  .int()
  .min(0)
  .max(IDENTITY_LABELS.length - 1)
  .openapi({ description: IDENTITY_LABELS.map((label, level) => `${level} ${label}`).join(", ") });
export const identityLabel = z.enum(IDENTITY_LABELS);
export const apiKey = z.string().regex(new RegExp(`^${KEY_PREFIX}[0-9a-f]{64}$`));
/** A composite or a dimension on Form A's scale. */
export const scoreValue = z.number().int().min(0).max(1000);
/** The five dimensions, each as `value`, named from the model's one list. */
export const dimensionsOf = <T extends z.ZodType>(value: T) => z.object(Object.fromEntries(DIMENSIONS.map((d) => [d, value])) as Record<Dimension, T>);
/** A next page's cursor: pass it back as `cursor`; null on the last page. */
export const nextCursor = z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page" });

const requestId = z.string().openapi({ description: "The response's X-Request-Id" });

export const errorA = z
  .object({ error: z.string().openapi({ description: "What went wrong, in the specification's words" }), request_id: requestId })
  .openapi("ErrorA");

export const errorB = z.object({ error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }), request_id: requestId }).openapi("ErrorB");
