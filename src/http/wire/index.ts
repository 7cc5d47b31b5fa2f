import type { Context } from "hono";
import { ApiError, errors } from "../../domain/errors";
import type { AppEnv, Form } from "../context";
import { formA } from "./form-a";
import { formB } from "./form-b";

export const wire = (c: Context<AppEnv>) => (c.get("form") === "B" ? formB : formA);

/** The one place an error becomes a response. */
export function renderError(c: Context<AppEnv>, error: ApiError): Response {
  const form: Form = c.get("form") ?? "A";
  const requestId = c.get("requestId") ?? "";
  const body = form === "B" ? formB.error(error, requestId) : formA.error(error, requestId);
  return c.json(body, error.status, { ...error.headers, "Cache-Control": "no-store" });
}

export function toApiError(err: unknown, requestId?: string): ApiError {
  if (err instanceof ApiError) return err;
  console.error(JSON.stringify({ level: "error", message: "unexpected error", error: String((err as Error)?.stack ?? err), request_id: requestId }));
  return errors.internal();
}
