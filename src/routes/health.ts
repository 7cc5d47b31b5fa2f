import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { SERVICE_VERSION } from "../version";
import { sample } from "./examples";
import { createRoute, errorResponses, json, publicAccess } from "./openapi";

const healthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    version: z.string(),
    checks: z.record(z.string(), z.enum(["ok", "failing"])),
  })
  .openapi("Health");

const health = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["Service"],
  summary: "Liveness and database check, with the running version",
  security: publicAccess,
  responses: {
    200: json(healthSchema, "Every check passed", sample.health),
    503: json(healthSchema, "A check failed", { ...sample.health, status: "degraded", checks: { db: "failing" } }),
    ...errorResponses(400),
  },
});

export function registerHealth(app: OpenAPIHono<AppEnv>) {
  app.openapi(health, async (c) => {
    const db = await c.env.DB.prepare("SELECT 1 AS ok")
      .first<{ ok: number }>()
      .then((row) => (row?.ok === 1 ? ("ok" as const) : ("failing" as const)))
      .catch(() => "failing" as const);
    const checks = { db };
    const ok = Object.values(checks).every((v) => v === "ok");
    return c.json({ status: ok ? ("ok" as const) : ("degraded" as const), version: SERVICE_VERSION, checks }, ok ? 200 : 503);
  });
}
