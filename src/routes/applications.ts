import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { isUniqueViolation } from "../db/client";
import { insertApplication } from "../db/operators";
import { errors } from "../domain/errors";
import type { AppEnv } from "../http/context";
import { publicLimit } from "../http/rate-limit";
import { optionalString } from "./fields";
import { errorResponses, json, jsonBody } from "./openapi";

/** One @, a dot in the domain, no spaces and no control characters (NUL, escapes) anywhere. */
export const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;
export const emailField = z
  .string({ error: "Invalid email format" })
  .trim()
  .toLowerCase()
  .max(254, "Invalid email format")
  .regex(EMAIL_PATTERN, "Invalid email format")
  .openapi({ example: "ops@example.com" });

const route = createRoute({
  method: "post",
  path: "/apply",
  tags: ["Operators"],
  summary: "Apply for an operator account (public, 5 per hour per IP)",
  middleware: [publicLimit("apply")],
  request: {
    body: jsonBody(
      z.object({
        name: z.string({ error: "Name is required" }).trim().min(1, "Name is required").max(200, "name must be at most 200 characters"),
        email: emailField,
        company: optionalString("company", 200),
        reason: optionalString("reason", 2000),
      }),
    ),
  },
  responses: {
    201: json(z.object({ message: z.string() }), "Application received"),
    ...errorResponses(400, 409, 413, 429),
  },
});

export function registerApplications(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    try {
      await insertApplication(c.get("db"), { ...body, createdAt: new Date(c.get("deps").now()).toISOString() });
    } catch (err) {
      if (isUniqueViolation(err)) throw errors.duplicateApplication();
      throw err;
    }
    return c.json({ message: "Application received. You will receive your API key by email once it is approved." }, 201);
  });
}
