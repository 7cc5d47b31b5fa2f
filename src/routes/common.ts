import { z, type RouteConfig } from "@hono/zod-openapi";
import type { Refusal } from "../durable/agent-scorer";
import { ApiError, errors } from "../domain/errors";
import { SID_PATTERN } from "../domain/identifiers";
import { MISSING } from "../http/request";
import { schemas as a } from "../http/wire/form-a";
import { schemas as b } from "../http/wire/form-b";

/** A required string: missing or blank is reported with the other missing fields. */
export const requiredString = (field: string, max: number) =>
  z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? MISSING : `${field} must be a string`) })
    .trim()
    .min(1, MISSING)
    .max(max, `${field} must be at most ${max} characters`);

export const optionalString = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .max(max, `${field} must be at most ${max} characters`)
    .nullish()
    .transform((v) => v ?? null);

/** Any JSON object of at most `maxBytes` bytes once serialised. */
export const jsonObject = (field: string, maxBytes: number) =>
  z
    .record(z.string(), z.unknown(), { error: `${field} must be a JSON object` })
    .refine((v) => new TextEncoder().encode(JSON.stringify(v)).byteLength <= maxBytes, {
      message: `${field} must be at most ${maxBytes / 1024} KiB of JSON`,
    });

export const sidParam = z.object({
  sid: z
    .string()
    .regex(SID_PATTERN, "Invalid SID format. Expected: SID-0x[16 hex chars]")
    .openapi({ param: { name: "sid", in: "path" }, example: "SID-0x3f9a0c1d2e4b5a69" }),
});

export const apiVersionHeader = z.object({
  "api-version": z
    .enum(["A", "B"])
    .optional()
    .openapi({ param: { name: "api-version", in: "header" }, description: "Wire form: A (default) or B" }),
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const errorSchema = z.union([a.error, b.error]);
const ERROR_TEXT: Record<number, string> = {
  400: "Invalid request",
  401: "Missing, malformed, unknown or revoked API key",
  403: "Not the owner, or the key lacks a scope",
  404: "Not found",
  409: "Conflict",
  413: "Request body too large",
  422: "Idempotency-Key reused with a different body",
  429: "Rate limited (Retry-After)",
  502: "Callback delivery failed",
};

export function errorResponses(...statuses: number[]): RouteConfig["responses"] {
  return Object.fromEntries(statuses.map((s) => [s, json(errorSchema, ERROR_TEXT[s] ?? "Error")]));
}

export const bearer = [{ bearerAuth: [] }];

/** What the scorer's refusals mean to a client. */
export function scorerRefusal(refusal: Refusal): ApiError {
  if (refusal === "not_found") return errors.agentNotFound();
  if (refusal === "forbidden") return errors.notOwner();
  if (refusal === "suspended") return new ApiError("conflict", "Agent is suspended and accepts no transactions");
  if (refusal === "write_failed") return new ApiError("unavailable", "The score update could not be saved; nothing was changed. Retry the request.");
  // A concurrent request with the same key won, but its record is not readable yet: retryable.
  return new ApiError("unavailable", "A request with this Idempotency-Key is in progress; retry");
}
