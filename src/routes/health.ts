import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { shardDatabases } from "../env";
import type { AppEnv } from "../http/context";
import { SERVICE_VERSION } from "../version";
import { sample } from "./examples";
import { createRoute, errorResponses, json, publicAccess } from "./openapi";

const healthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    version: z.string(),
    checks: z.record(z.string(), z.enum(["ok", "failing"])).openapi({ description: "The control database (db) and each shard (shard_0, shard_1, ...)" }),
  })
  .openapi("Health");

const health = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["Service"],
  summary: "Liveness and a check of every database (the control database and each shard), with the running version",
  security: publicAccess,
  responses: {
    200: json(healthSchema, "Every check passed", sample.health),
    503: json(healthSchema, "A check failed", { ...sample.health, status: "degraded", checks: { db: "ok", shard_0: "ok", shard_1: "failing" } }),
    ...errorResponses(400),
  },
});

type Checks = Record<string, "ok" | "failing">;

/**
 * The checks are kept a few seconds per isolate (and bindings): the route is public and unlimited,
 * and every check is a query on each database, so a flood of health checks must not become a flood
 * of queries.
 */
const CHECKS_TTL_MS = 5_000;
const lastChecks = new WeakMap<object, { at: number; checks: Checks }>();

async function checkDatabases(env: AppEnv["Bindings"]): Promise<Checks> {
  const kept = lastChecks.get(env);
  if (kept && Date.now() - kept.at < CHECKS_TTL_MS) return kept.checks;
  const check = (database: D1Database) =>
    database
      .prepare("SELECT 1 AS ok")
      .first<{ ok: number }>()
      .then((row) => (row?.ok === 1 ? ("ok" as const) : ("failing" as const)))
      .catch(() => "failing" as const);
  const shards = shardDatabases(env);
  const results = await Promise.all([check(env.DB), ...shards.map(check)]);
  const checks: Checks = { db: results[0] };
  shards.forEach((_, i) => (checks[`shard_${i}`] = results[i + 1]));
  lastChecks.set(env, { at: Date.now(), checks });
  return checks;
}

export function registerHealth(app: OpenAPIHono<AppEnv>) {
  app.openapi(health, async (c) => {
    const checks = await checkDatabases(c.env);
    const ok = Object.values(checks).every((v) => v === "ok");
    return c.json({ status: ok ? ("ok" as const) : ("degraded" as const), version: SERVICE_VERSION, checks }, ok ? 200 : 503);
  });
}
