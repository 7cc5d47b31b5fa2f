import type { Context } from "hono";
import { ApiError } from "../../domain/errors";
import type { AppEnv, Form } from "../../env";
import { formA } from "./form-a";
import { formB } from "./form-b";

export const wire = (c: Context<AppEnv>) => (c.get("form") === "B" ? formB : formA);

/** The one place an error becomes a response. */
export function renderError(c: Context<AppEnv>, error: ApiError): Response {
  const form: Form = c.get("form") ?? "A";
  const body = form === "B" ? formB.error(error) : formA.error(error);
  return c.json(body, error.status, error.headers);
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  console.error("unexpected error", err);
  return new ApiError("internal_error", "Internal server error");
}
