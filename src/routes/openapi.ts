// Helpers for the route definitions' OpenAPI side: bodies, responses, security.
import { z, type RouteConfig } from "@hono/zod-openapi";
import { schemas as a } from "../http/wire/form-a";
import { schemas as b } from "../http/wire/form-b";

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
  405: "Method not allowed (Allow lists the methods)",
  409: "Conflict",
  413: "Request body too large",
  422: "Idempotency-Key reused with a different body",
  429: "Rate limited (Retry-After)",
  502: "Callback delivery failed",
  503: "Temporarily unavailable; retry",
};

export function errorResponses(...statuses: number[]): RouteConfig["responses"] {
  return Object.fromEntries(statuses.map((s) => [s, json(errorSchema, ERROR_TEXT[s] ?? "Error")]));
}

export const bearer = [{ bearerAuth: [] }];
export const adminSecurity = [{ adminAuth: [] }];
