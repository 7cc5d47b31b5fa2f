// The route definitions' OpenAPI side: payloads that differ by wire form, error responses with
// their examples, security. src/routes/documents.ts makes one exact document per form from them.
import { createRoute as defineRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { ApiError } from "../domain/errors";
import type { Access, Form } from "../http/context";
import { errorA, errorB } from "../http/wire/common";

const accessByOperation = new Map<string, Access | null>();
const operationKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

/**
 * Hono's createRoute, remembering who the route's middleware lets in: the OpenAPI registry keeps
 * routes without their middleware, and the documents describe access from it.
 */
export const createRoute: typeof defineRoute = (config) => {
  const middleware = [config.middleware ?? []].flat() as { access?: Access }[];
  accessByOperation.set(operationKey(config), middleware.find((m) => m.access)?.access ?? null);
  return defineRoute(config);
};

/** What the middleware of the route at `method path` asks of a caller; null: nothing (public). */
export const accessOf = (route: { method: string; path: string }) => accessByOperation.get(operationKey(route)) ?? null;

const variants = new WeakMap<z.ZodType, Record<Form, z.ZodType>>();

/**
 * A payload whose shape depends on the form. The union types the handler, which answers in either;
 * each form's document shows only its own.
 */
export function byForm<A extends z.ZodType, B extends z.ZodType>(forms: { A: A; B: B }) {
  const union = z.union([forms.A, forms.B]);
  variants.set(union, forms);
  return union;
}

/** The schema a form's document shows for `schema`. */
export const inForm = (schema: z.ZodType, form: Form) => variants.get(schema)?.[form] ?? schema;

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});

/**
 * A JSON response. Its example is the one given here, else the one src/routes/examples.ts keeps for
 * the schema (every payload that has a name).
 */
export const json = <T extends z.ZodType>(schema: T, description: string, example?: z.infer<T>) => ({
  description,
  content: { "application/json": { schema, ...(example === undefined ? {} : { example }) } },
});

export const ERROR_TEXT: Record<number, string> = {
  400: "Invalid request",
  401: "Missing, malformed, unknown or revoked credential",
  403: "Not the owner, or the key lacks a scope",
  404: "Not found",
  409: "Conflict",
  413: "Request body too large",
  422: "Idempotency-Key reused with a different body",
  429: "Rate limited: retry after Retry-After seconds",
  502: "An outbound request failed",
  503: "Temporarily unavailable or not configured",
};

/** The error envelope: `{error, request_id}` in Form A, `{error: {code, message}, request_id}` in Form B. */
export const errorEnvelope = byForm({ A: errorA, B: errorB });

/**
 * Error responses, each in the envelope of the request's form. An ApiError instead of a status is
 * the example of its status (the documents pick a fitting one for a bare status).
 */
export function errorResponses(...items: (number | ApiError)[]): RouteConfig["responses"] {
  return Object.fromEntries(
    items.map((item) => {
      const status = typeof item === "number" ? item : item.status;
      const example = typeof item === "number" ? {} : { example: item };
      return [status, { description: ERROR_TEXT[status] ?? "Error", content: { "application/json": { schema: errorEnvelope, ...example } } }];
    }),
  );
}

export const bearer = [{ bearerAuth: [] }];
export const adminSecurity = [{ adminAuth: [] }];
/** No credential: public routes. */
export const publicAccess: { [name: string]: string[] }[] = [];
