import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { db } from "../db/client";
import { waitlist } from "../db/control-schema";
import type { AppEnv } from "../http/context";
import { publicLimit } from "../http/rate-limit";
import { emailField } from "./applications";
import { errorResponses, json, jsonBody } from "./openapi";

export const ROLES = ["operator", "platform", "developer", "other"] as const;

const join = createRoute({
  method: "post",
  path: "/waitlist",
  tags: ["Waitlist"],
  summary: "Join the early-access waitlist (public, 5 per minute per IP)",
  middleware: [publicLimit("waitlist")],
  request: {
    body: jsonBody(
      z.object({
        email: emailField,
        role: z.enum(ROLES, { error: `role must be one of: ${ROLES.join(", ")}` }).nullish(),
      }),
    ),
  },
  responses: { 201: json(z.object({ success: z.boolean(), message: z.string() }), "On the list"), ...errorResponses(400, 413, 429) },
});

export function registerWaitlist(app: OpenAPIHono<AppEnv>) {
  app.openapi(join, async (c) => {
    const { email, role } = c.req.valid("json");
    // A repeated address is stored once and answered the same way: the reply never tells whether
    // an address was already on the list.
    await db(c.get("db"))
      .insert(waitlist)
      .values({ email, role: role ?? null, createdAt: new Date(c.get("deps").now()).toISOString() })
      .onConflictDoNothing();
    return c.json({ success: true, message: "You are on the waitlist. We will be in touch." }, 201);
  });
}
