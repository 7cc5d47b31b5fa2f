import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { ApiError, errors } from "../domain/errors";

/** Marks a required field's "missing" issue, so the hook can list every missing field at once. */
export const MISSING = "__missing__";

/** The one validation hook: zod issues become the spec's texts. */
export function validationHook(result: { success: boolean; error?: unknown }): void {
  if (result.success) return;
  throw validationError(result.error as ZodError);
}

/** The error a failed validation is answered with (a batch answers it per report). */
export function validationError(error: ZodError): ApiError {
  const issues = error.issues;
  const missing = issues.filter((i) => i.message === MISSING).map((i) => String(i.path[0]));
  if (missing.length > 0) return errors.missingFields(missing);
  const first = issues[0];
  if (!first || first.path.length === 0) return errors.notJsonObject();
  return errors.invalid(first.message);
}

/** Framework errors (malformed JSON from the validator, 404s from Hono) mapped to the API's errors. */
export function fromFramework(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 413) return errors.bodyTooLarge();
    if (err.status === 400 || err.status === 415) return errors.invalidJson();
    return new ApiError(err.status === 404 ? "not_found" : "invalid_request", err.message);
  }
  return undefined;
}
