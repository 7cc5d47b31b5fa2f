import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { joinWaitlist } from "../db/waitlist";
import type { AppEnv } from "../http/context";
import { publicLimit } from "../http/rate-limit";
import { emailField, INVALID_EMAIL } from "./fields";
import { errors } from "../domain/errors";
import { WAITLIST_ROLES } from "../domain/waitlist";
import { createRoute, errorResponses, json, jsonBody, publicAccess } from "./openapi";

const JOINED = { success: true, message: "You are on the waitlist. We will be in touch." };

const join = createRoute({
  method: "post",
  path: "/waitlist",
  operationId: "joinWaitlist",
  tags: ["Waitlist"],
  summary: "Join the early-access waitlist",
  description: "A repeated address is kept once and answered the same way.",
  security: publicAccess,
  middleware: [publicLimit("waitlist")],
  request: {
    body: jsonBody(
      z.object({
        email: emailField,
        role: z.enum(WAITLIST_ROLES, { error: `role must be one of: ${WAITLIST_ROLES.join(", ")}` }).nullish(),
      }),
    ),
  },
  responses: {
    201: json(z.object({ success: z.boolean(), message: z.string() }), "On the list", JOINED),
    ...errorResponses(errors.invalid(INVALID_EMAIL), 413, 429),
  },
});

export function registerWaitlist(app: OpenAPIHono<AppEnv>) {
  app.openapi(join, async (c) => {
    const { email, role } = c.req.valid("json");
    // A repeated address is stored once and answered the same way: the reply never tells whether
    // an address was already on the list.
    await joinWaitlist(c.get("db"), { email, role: role ?? null, createdAt: new Date(c.get("deps").now()).toISOString() });
    return c.json(JOINED, 201);
  });
}
