import type { Context } from "hono";
import { ApiError, errors } from "../../domain/errors";
import type { AppEnv, Form } from "../context";
import { formA } from "./form-a";
import { formB } from "./form-b";
import { pageHeaders, renderErrorPage } from "./page/document";

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

/** An error of a page route, for a person: the same error, as an HTML page (src/http/wire/page). */
export async function renderPageError(c: Context<AppEnv>, error: ApiError): Promise<Response> {
  const body = renderErrorPage(error, c.get("requestId") ?? "");
  return new Response(body, { status: error.status, headers: { ...(await pageHeaders()), ...error.headers, "Cache-Control": "no-store" } });
}
