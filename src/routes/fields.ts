// Request field schemas shared by the routes, with the spec's validation texts.
import { z } from "@hono/zod-openapi";
import { SID_PATTERN } from "../domain/identifiers";
import { MISSING } from "../http/validation";

/** Any C0 or C1 control character (NUL, line feeds, escapes, ...). */
export const CONTROL_CHARACTERS = /\p{Cc}/u;

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

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The first `__proto__` key at any depth: an object copied on the way would silently lose it. */
function protoKeyPath(value: unknown, path: string): string | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = protoKeyPath(value[i], `${path}[${i}]`);
      if (found) return found;
    }
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (key === "__proto__") return `${path}.__proto__`;
      const found = protoKeyPath(value[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Any JSON object of at most `maxBytes` bytes once serialised, kept exactly as sent. An object with
 * a `__proto__` key anywhere is refused: it cannot be stored faithfully by ordinary JS object code.
 */
export const jsonObject = (field: string, maxBytes: number) =>
  z
    .custom<Record<string, unknown>>(isPlainObject, { error: `${field} must be a JSON object` })
    .superRefine((v, ctx) => {
      const path = protoKeyPath(v, field);
      if (path) ctx.addIssue({ code: "custom", message: `${field} must not contain the key "__proto__" (found at ${path})` });
      else if (new TextEncoder().encode(JSON.stringify(v)).byteLength > maxBytes) {
        ctx.addIssue({ code: "custom", message: `${field} must be at most ${maxBytes / 1024} KiB of JSON` });
      }
    })
    .openapi({ type: "object", additionalProperties: true });

export const sidParam = z.object({
  sid: z
    .string()
    .regex(SID_PATTERN, "Invalid SID format. Expected: SID-0x[16 hex chars]")
    .openapi({ param: { name: "sid", in: "path", description: "The agent's SID" }, example: "SID-0x3f9a0c1d2e4b5a69" }),
});

/** A numeric id in a path: plain decimal only (`0x10`, `1e3`, ` 7` and `007` are refused). */
export const decimalId = (field: string, description: string) =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, `${field} must be a positive decimal integer`)
    // 16 digits may pass 2^53, where Number would round it to a neighbouring id.
    .refine((s) => Number.isSafeInteger(Number(s)), `${field} must be a positive decimal integer`)
    .transform(Number)
    .openapi({ param: { name: field, in: "path", description }, type: "integer", example: 1 });

const LIMIT_TEXT = "limit must be an integer between 1 and 200";
/** `?limit=&cursor=` of every list. */
export const pageQuery = {
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, LIMIT_TEXT)
    .transform(Number)
    .pipe(z.number().int().min(1, LIMIT_TEXT).max(200, LIMIT_TEXT))
    .optional()
    .openapi({ param: { name: "limit", in: "query", description: "Page size: 1-200, default 50" }, type: "integer" }),
  cursor: z
    .string()
    .max(512, "Invalid cursor")
    .optional()
    .openapi({ param: { name: "cursor", in: "query", description: "The next_cursor of the previous page" } }),
};

/** `Idempotency-Key` of the changes a client may repeat safely. */
export const idempotencyHeader = z.object({
  "idempotency-key": z
    .string()
    .optional()
    .openapi({
      param: { name: "idempotency-key", in: "header" },
      description: "1-255 characters: a repeat with the same body replays the first answer; with another body, 422",
    }),
});
