import type { MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError, ZodType } from "zod";
import { ApiError, errors } from "../domain/errors";
import type { AppEnv, Form } from "../env";

export const MAX_BODY_BYTES = 64 * 1024;

/** Selects the wire form: no header or `A` is Form A, `B` is Form B, anything else is refused. */
export const selectForm: MiddlewareHandler<AppEnv> = async (c, next) => {
  const version = c.req.header("api-version")?.trim();
  c.set("form", version === "B" ? "B" : "A");
  if (version !== undefined && version !== "A" && version !== "B") {
    throw errors.invalid("Invalid API-Version header. Expected: A or B");
  }
  await next();
};

/**
 * Reads a request body once, refusing more than 64 KiB before and after reading, and presents it as
 * JSON whatever Content-Type the client sent (every body of this API is JSON; `curl -d` sends a
 * form type), so the route validators parse it and malformed JSON is a 400, never a 415 or 500.
 */
export const readBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const raw = c.req.raw;
  if (raw.body === null) return next();
  const declared = Number(raw.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw errors.bodyTooLarge();
  const bytes = await readLimited(raw.body, MAX_BODY_BYTES);
  const headers = new Headers(raw.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  c.req.raw = new Request(raw.url, { method: raw.method, headers, body: bytes });
  await next();
};

async function readLimited(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw errors.bodyTooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Marks a required field's "missing" issue, so the hook can list every missing field at once. */
export const MISSING = "__missing__";

/** The one validation hook: zod issues become the spec's texts. */
export function validationHook(result: { success: boolean; error?: unknown }): void {
  if (result.success) return;
  const issues = (result.error as ZodError).issues;
  const missing = issues.filter((i) => i.message === MISSING).map((i) => String(i.path[0]));
  if (missing.length > 0) throw errors.missingFields(missing);
  const first = issues[0];
  if (!first || first.path.length === 0) throw errors.invalid("Request body must be a JSON object");
  throw errors.invalid(first.message);
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

/**
 * For routes whose request payload differs between Form A and Form B: validates the body with the
 * schema of the request's form (the route declares both for the OpenAPI document).
 */
export function formBody(schemas: Record<Form, ZodType>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      throw errors.invalidJson();
    }
    const result = schemas[c.get("form")].safeParse(raw);
    validationHook(result);
    c.set("input", result.data);
    await next();
  };
}
