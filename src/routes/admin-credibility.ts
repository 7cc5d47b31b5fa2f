// The admins' part in credibility (R1): the anchors (operators the admins vouch for, the genesis of
// earned standing), the job's state, and a run of the job on demand (the Cron Trigger runs it every
// 15 minutes; a run reads a bounded number of rollup pages per call and goes on where it stopped).

import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { readJobState, type JobState } from "../db/credibility-job";
import { readAnchors, setAnchors } from "../db/model-settings";
import { errors } from "../domain/errors";
import { shardDatabases } from "../env";
import { requireAdmin } from "../http/auth";
import type { AppEnv } from "../http/context";
import { timestamp } from "../http/wire/common";
import { runCredibilityJob } from "../queues/credibility-job";
import { adminSecurity, createRoute, errorResponses, json, jsonBody } from "./openapi";

const DAY_MS = 86_400_000;
// One D1 statement checks them all: D1 binds at most 100 parameters.
const MAX_ANCHORS = 100;
const iso = (t: number) => new Date(t).toISOString();
const isoDay = (day: number) => iso(day * DAY_MS).slice(0, 10);

const jobSchema = z
  .object({
    status: z.enum(["published", "in_progress", "current", "busy", "too_large", "idle"]).openapi({
      description:
        "published: this call published a snapshot; in_progress: a run is under way (call again, or the cron goes on); current: today's snapshot is out; busy: another runner moved first; too_large: the window holds more rollup rows than one pass computes (250,000), the snapshot in force stays; idle: no run (reads only)",
    }),
    snapshot: z
      .object({
        id: z.string(),
        day: z.string().openapi({ description: "The UTC day the snapshot computed standing for (YYYY-MM-DD)" }),
        published_at: timestamp,
        rollup_rows: z.number().int().min(0),
        reporters: z.number().int().min(0),
        earned_share: z.number().min(0).max(1).openapi({ description: "Σ standing over reporters active in 90 days, over their number: the bootstrap latch closes at 0.7" }),
      })
      .nullable()
      .openapi({ description: "The snapshot in force; null before the first run" }),
    run: z
      .object({ id: z.string(), started_at: timestamp, shard: z.number().int().min(0), shards: z.number().int().min(1), rollup_rows: z.number().int().min(0) })
      .nullable()
      .openapi({ description: "The run in progress, if any: the shard it reads and the rows staged so far" }),
    read: z.object({ rows: z.number().int().min(0), pages: z.number().int().min(0) }).openapi({ description: "What this call read" }),
  })
  .openapi("CredibilityJob");
type JobOut = z.infer<typeof jobSchema>;

const EXAMPLE: JobOut = {
  status: "published",
  snapshot: { id: "2026-11-27.12", day: "2026-11-27", published_at: "2026-11-27T00:02:10.000Z", rollup_rows: 48210, reporters: 3120, earned_share: 0.41 },
  run: null,
  read: { rows: 48210, pages: 25 },
};

const jobOut = (status: JobOut["status"], state: JobState, shards: number, read: JobOut["read"]): JobOut => ({
  status,
  snapshot: state.last && {
    id: state.last.id,
    day: isoDay(state.last.day),
    published_at: iso(state.last.publishedAt),
    rollup_rows: state.last.rows,
    reporters: state.last.reporters,
    earned_share: state.last.earnedShare,
  },
  run: state.run && { id: state.run.id, started_at: iso(state.run.startedAt), shard: state.run.shard, shards, rollup_rows: state.run.rows },
  read,
});

const readJob = createRoute({
  method: "get",
  path: "/admin/model/credibility",
  operationId: "adminCredibilityJob",
  tags: ["Admin"],
  summary: "The credibility job: the snapshot in force and the run in progress",
  security: adminSecurity,
  middleware: [requireAdmin],
  responses: { 200: json(jobSchema, "The job", { ...EXAMPLE, status: "idle", read: { rows: 0, pages: 0 } }), ...errorResponses(401, 503) },
});

const runJob = createRoute({
  method: "post",
  path: "/admin/model/credibility/run",
  operationId: "adminCredibilityRun",
  tags: ["Admin"],
  summary: "Run the credibility job now: start today's run (or another with force) and read up to max_pages pages of rollups",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    body: jsonBody(
      z.object({
        max_pages: z.number().int().min(1).max(1000).optional().openapi({ description: "Rollup pages (2,000 rows each) to read in this call at most; default 200" }),
        force: z.boolean().optional().openapi({ description: "Start a new run even though today's snapshot is out" }),
      }),
    ),
  },
  responses: { 200: json(jobSchema, "What the call did", EXAMPLE), ...errorResponses(400, 401, 503) },
});

const anchorsSchema = z
  .object({ operators: z.array(z.number().int().min(1)).max(MAX_ANCHORS).openapi({ description: "Operator ids holding standing 1 by the admins' word (the genesis of vouching)" }) })
  .openapi("CredibilityAnchors");

const readAnchorsRoute = createRoute({
  method: "get",
  path: "/admin/model/anchors",
  operationId: "adminCredibilityAnchors",
  tags: ["Admin"],
  summary: "The anchors: operators the admins vouch for",
  security: adminSecurity,
  middleware: [requireAdmin],
  responses: { 200: json(anchorsSchema, "The anchors", { operators: [3, 17, 42] }), ...errorResponses(401, 503) },
});

const setAnchorsRoute = createRoute({
  method: "put",
  path: "/admin/model/anchors",
  operationId: "adminCredibilitySetAnchors",
  tags: ["Admin"],
  summary: "Name the anchors (replaces the list; the next snapshot uses it)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { body: jsonBody(anchorsSchema) },
  responses: { 200: json(anchorsSchema, "The anchors", { operators: [3, 17, 42] }), ...errorResponses(400, 401, 503) },
});

export function registerAdminCredibility(app: OpenAPIHono<AppEnv>) {
  app.openapi(readJob, async (c) => {
    const state = await readJobState(c.env);
    return c.json(jobOut(state.run ? "in_progress" : "idle", state, shardDatabases(c.env).length, { rows: 0, pages: 0 }), 200);
  });

  app.openapi(runJob, async (c) => {
    const { max_pages, force } = c.req.valid("json");
    const outcome = await runCredibilityJob(c.env, c.get("deps").now(), { pages: max_pages, force });
    return c.json(jobOut(outcome.status, outcome.state, shardDatabases(c.env).length, outcome.read), 200);
  });

  app.openapi(readAnchorsRoute, async (c) => c.json({ operators: await readAnchors(c.env) }, 200));

  app.openapi(setAnchorsRoute, async (c) => {
    const { operators } = c.req.valid("json");
    const unique = [...new Set(operators)];
    if (unique.length > 0) {
      const found = await c.env.DB.prepare(`SELECT id FROM operators WHERE id IN (${unique.map(() => "?").join(", ")})`)
        .bind(...unique)
        .all<{ id: number }>();
      const known = new Set(found.results.map((r) => r.id));
      const missing = unique.find((id) => !known.has(id));
      if (missing !== undefined) throw errors.invalid(`operator ${missing} does not exist`);
    }
    return c.json({ operators: await setAnchors(c.env, unique, c.get("deps").now()) }, 200);
  });
}
