import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { credibilityHealth, parseRunState, RUN_STATE_KEY, type CredibilityRunState } from "../db/credibility-run";
import { LOG_DEAD_LETTERS_KEY, parseDeadLetters, type LogDeadLetters } from "../db/log-dead-letters";
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
    credibility: z
      .object({
        status: z.enum(["ok", "failing", "unknown"]).openapi({
          description:
            "failing: a run of the cross-agent job failed or was given up since the last snapshot, a run has been under way for 6 hours, or the snapshot in force is over 2 days old; unknown: the control database did not answer. It does not change the answer's status code: the service serves with the snapshot in force",
        }),
        snapshot: z.string().nullable().openapi({ description: "The credibility snapshot in force; null before the first" }),
        age_seconds: z.number().int().min(0).nullable().openapi({ description: "Seconds since the snapshot in force was published" }),
        problem: z.string().nullable().openapi({ description: "Why it is failing" }),
        anchors: z.number().int().min(0).nullable().openapi({
          description:
            "Anchors named by the admins (GET /admin/model/anchors); 0 is a warning: trust grows only from anchors, so with none no agent can be clear",
        }),
      })
      .openapi({ description: "The cross-agent credibility job: the snapshot in force, its age, and whether runs are failing" }),
    log: z
      .object({
        status: z.enum(["ok", "alarm", "unknown"]).openapi({
          description:
            "alarm: in the last 24 hours the trust-log dead-letter queue had to put messages back (leaves that waited past their retries: their log inclusion is late); unknown: the control database did not answer. It does not change the answer's status code",
        }),
        dead_letters_requeued: z.number().int().min(0).nullable().openapi({ description: "Messages the trust-log dead-letter queue has put back, ever" }),
        last_requeued_at: z.string().nullable().openapi({ description: "When it last did; null if never" }),
      })
      .openapi({ description: "The transparency log's delivery: whether leaves had to be put back from its dead-letter queue" }),
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

/** How long a put-back from the trust-log dead-letter queue keeps /health's log alarm up. */
const LOG_ALARM_MS = 24 * 3_600_000;
type Checked = { checks: Checks; job: CredibilityRunState | null; anchors: number | null; deadLetters: LogDeadLetters | null };

/**
 * The checks are kept a few seconds per isolate (and bindings): the route is public and unlimited,
 * and every check is a query on each database, so a flood of health checks must not become a flood
 * of queries.
 */
const CHECKS_TTL_MS = 5_000;
const lastChecks = new WeakMap<object, { at: number; checked: Checked }>();

async function checkDatabases(env: AppEnv["Bindings"]): Promise<Checked> {
  const kept = lastChecks.get(env);
  if (kept && Date.now() - kept.at < CHECKS_TTL_MS) return kept.checked;
  type Row = { ok: number; job?: string | null; anchors?: string | null; log_dlq?: string | null };
  const check = (database: D1Database, sql = "SELECT 1 AS ok") =>
    database
      .prepare(sql)
      .first<Row>()
      .then((row) => ({ status: row?.ok === 1 ? ("ok" as const) : ("failing" as const), row }))
      .catch(() => ({ status: "failing" as const, row: null }));
  const shards = shardDatabases(env);
  // The control database's check reads the job's state in the same query: one query per database.
  const results = await Promise.all([
    check(
      env.DB,
      `SELECT 1 AS ok, (SELECT value FROM model_settings WHERE key = '${RUN_STATE_KEY}') AS job, (SELECT value FROM model_settings WHERE key = 'anchors') AS anchors, (SELECT value FROM model_settings WHERE key = '${LOG_DEAD_LETTERS_KEY}') AS log_dlq`,
    ),
    ...shards.map((d) => check(d)),
  ]);
  const checks: Checks = { db: results[0].status };
  shards.forEach((_, i) => (checks[`shard_${i}`] = results[i + 1].status));
  let job: CredibilityRunState | null = null;
  let anchors: number | null = null;
  let deadLetters: LogDeadLetters | null = null;
  try {
    if (results[0].status === "ok") deadLetters = parseDeadLetters(results[0].row?.log_dlq);
  } catch {
    deadLetters = null;
  }
  try {
    if (results[0].status === "ok") {
      job = parseRunState(results[0].row?.job);
      anchors = results[0].row?.anchors ? (JSON.parse(results[0].row.anchors) as number[]).length : 0;
    }
  } catch {
    job = null;
  }
  const checked = { checks, job, anchors, deadLetters };
  lastChecks.set(env, { at: Date.now(), checked });
  return checked;
}

export function registerHealth(app: OpenAPIHono<AppEnv>) {
  app.openapi(health, async (c) => {
    const { checks, job, anchors, deadLetters } = await checkDatabases(c.env);
    const ok = Object.values(checks).every((v) => v === "ok");
    const now = c.get("deps").now();
    const h = job ? credibilityHealth(job, now) : null;
    const credibility = h
      ? { status: h.status, snapshot: h.snapshot, age_seconds: h.ageSeconds, problem: h.problem, anchors }
      : { status: "unknown" as const, snapshot: null, age_seconds: null, problem: "the control database did not answer", anchors: null };
    const log = deadLetters
      ? {
          status: deadLetters.last_at !== null && now - Date.parse(deadLetters.last_at) < LOG_ALARM_MS ? ("alarm" as const) : ("ok" as const),
          dead_letters_requeued: deadLetters.requeued,
          last_requeued_at: deadLetters.last_at,
        }
      : { status: "unknown" as const, dead_letters_requeued: null, last_requeued_at: null };
    return c.json({ status: ok ? ("ok" as const) : ("degraded" as const), version: SERVICE_VERSION, checks, credibility, log }, ok ? 200 : 503);
  });
}
