import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { isUniqueViolation } from "../db/client";
import { insertApplication } from "../db/operators";
import { errors } from "../domain/errors";
import type { AppEnv } from "../http/context";
import { publicLimit } from "../http/rate-limit";
import { emailField, optionalString } from "./fields";
import { createRoute, errorResponses, json, jsonBody, publicAccess } from "./openapi";

const NAME_REQUIRED = "Name is required";
const RECEIVED = { message: "Application received. You will receive your API key by email once it is approved." };

const route = createRoute({
  method: "post",
  path: "/apply",
  operationId: "apply",
  tags: ["Operators"],
  summary: "Apply for an operator account; an admin approves it and the key is e-mailed once",
  description: "One application per e-mail address, whatever its state.",
  security: publicAccess,
  middleware: [publicLimit("apply")],
  request: {
    body: jsonBody(
      z.object({
        name: z.string({ error: NAME_REQUIRED }).trim().min(1, NAME_REQUIRED).max(200, "name must be at most 200 characters"),
        email: emailField,
        company: optionalString("company", 200),
        reason: optionalString("reason", 2000),
      }),
    ),
  },
  responses: {
    201: json(z.object({ message: z.string() }), "Application received", RECEIVED),
    ...errorResponses(errors.invalid(NAME_REQUIRED), errors.duplicateApplication(), 413, 429),
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
    return c.json(RECEIVED, 201);
  });
}
