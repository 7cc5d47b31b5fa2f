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

/**
 * One @, a dot in the domain, no spaces and no control characters (NUL, escapes) anywhere. The
 * controls are spelled as ranges (they are all of Unicode's Cc) rather than \p{Cc}, so the pattern
 * needs no `u` flag and reads the same in every JSON Schema validator.
 */
export const EMAIL_PATTERN = /^[^\s@\u0000-\u001f\u007f-\u009f]+@[^\s@\u0000-\u001f\u007f-\u009f]+\.[^\s@\u0000-\u001f\u007f-\u009f]+$/;
export const INVALID_EMAIL = "Invalid email format";
export const emailField = z
  .string({ error: INVALID_EMAIL })
  .trim()
  .toLowerCase()
  .max(254, INVALID_EMAIL)
  .regex(EMAIL_PATTERN, INVALID_EMAIL)
  .openapi({ example: "ops@example.com" });

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** How deep a memoryConfig or metadata may nest, its own object being the first level. */
export const MAX_JSON_DEPTH = 32;

/**
 * The first problem of a JSON value, walked with an explicit stack (a recursive walk overflows the
 * stack on a small body nested thousands deep): nesting beyond `maxDepth`, or a `__proto__` key,
 * which an object copied on the way would silently lose. Depth-first, in document order.
 */
function jsonProblem(root: unknown, field: string, maxDepth: number): string | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: field, depth: 1 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, path, depth } = next;
    const container = Array.isArray(value) || isPlainObject(value);
    if (!container) continue;
    if (depth > maxDepth) return `${field} must be nested at most ${maxDepth} levels deep`;
    const children: { value: unknown; path: string; depth: number }[] = [];
    if (Array.isArray(value)) {
      value.forEach((item, i) => children.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 }));
    } else {
      for (const key of Object.keys(value)) {
        if (key === "__proto__") return `${field} must not contain the key "__proto__" (found at ${path}.__proto__)`;
        children.push({ value: (value as Record<string, unknown>)[key], path: `${path}.${key}`, depth: depth + 1 });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return null;
}

/**
 * Any JSON object of at most `maxBytes` bytes once serialised and MAX_JSON_DEPTH levels, kept
 * exactly as sent. An object with a `__proto__` key anywhere is refused: it cannot be stored
 * faithfully by ordinary JS object code.
 */
const jsonObject = (field: string, maxBytes: number) =>
  z
    .custom<Record<string, unknown>>(isPlainObject, { error: `${field} must be a JSON object` })
    .superRefine((v, ctx) => {
      const problem = jsonProblem(v, field, MAX_JSON_DEPTH);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
      else if (new TextEncoder().encode(JSON.stringify(v)).byteLength > maxBytes) {
        ctx.addIssue({ code: "custom", message: `${field} must be at most ${maxBytes / 1024} KiB of JSON` });
      }
    })
    .openapi({ type: "object", additionalProperties: true });

/** An optional jsonObject where null means none (no memory, no metadata): null, missing or an object. */
export const nullableJsonObject = (field: string, maxBytes: number, description: string) =>
  jsonObject(field, maxBytes)
    .nullish()
    .transform((v) => v ?? null)
    .openapi({ type: ["object", "null"], additionalProperties: true, description });

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
/** The `{id}` of the admin's operator routes. */
export const operatorIdParam = z.object({ id: decimalId("id", "The operator's id") });

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
