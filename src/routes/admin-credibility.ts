// The admins' part in credibility: the anchors (the operators the admins name as the genesis of
// trust: the credibility job's PageRank starts from them), the job's state with the age of the
// snapshot in force and any failure, and a run of the job on demand (the Cron Trigger runs it every
// 15 minutes; a run reads a bounded number of pages of pairs per call and goes on where it stopped).

import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { credibilityHealth, readRunState, type CredibilityRunState } from "../db/credibility-run";
import { readAnchors, setAnchors } from "../db/model-settings";
import { errors } from "../domain/errors";
import { shardDatabases } from "../env";
import { requireAdmin } from "../http/auth";
import type { AppEnv } from "../http/context";
import { timestamp } from "../http/wire/common";
import { runCredibility, type RunOutcome } from "../queues/credibility-run";
import { adminSecurity, createRoute, errorResponses, json, jsonBody } from "./openapi";

const DAY_MS = 86_400_000;
// One D1 statement checks them all: D1 binds at most 100 parameters.
const MAX_ANCHORS = 100;
const iso = (t: number) => new Date(t).toISOString();
const isoDay = (day: number) => iso(day * DAY_MS).slice(0, 10);

const jobSchema = z
  .object({
    status: z.enum(["published", "in_progress", "current", "busy", "too_large", "failed", "idle"]).openapi({
      description:
        "published: this call published a snapshot; in_progress: a run is under way (call again, or the cron goes on); current: today's snapshot is out; busy: another runner moved first; too_large: the run was given up for today (more pairs than one run computes), the snapshot in force stays; failed: this call failed (recorded; the next call resumes); idle: no run (reads only)",
    }),
    health: z
      .object({
        status: z.enum(["ok", "failing"]),
        snapshot_age_seconds: z.number().int().min(0).nullable().openapi({ description: "The age of the snapshot in force (null: none published yet)" }),
        problem: z
          .string()
          .nullable()
          .openapi({ description: "Why the job is failing: a failed or given-up run, a run under way for 6 hours, or a snapshot over 2 days old" }),
      })
      .openapi({ description: "What /health says of the job" }),
    anchors: z.number().int().min(0).openapi({ description: "Anchors named: with none, nothing can be clear" }),
    snapshot: z
      .object({
        id: z.string(),
        day: z.string().openapi({ description: "The UTC day the snapshot computed credibility for (YYYY-MM-DD)" }),
        published_at: timestamp,
        operators: z.number().int().min(0),
        credible: z.number().int().min(0).openapi({ description: "Operators with credibility above 0" }),
        pairs: z.number().int().min(0),
      })
      .nullable()
      .openapi({ description: "The snapshot in force; null before the first run" }),
    run: z
      .object({ id: z.string(), started_at: timestamp, shard: z.number().int().min(0), shards: z.number().int().min(1), pairs: z.number().int().min(0) })
      .nullable()
      .openapi({ description: "The run in progress, if any: the shard it reads and the pairs staged so far" }),
    read: z.object({ rows: z.number().int().min(0), pages: z.number().int().min(0) }).openapi({ description: "What this call read" }),
  })
  .openapi("CredibilityJob");
type JobOut = z.infer<typeof jobSchema>;

const EXAMPLE: JobOut = {
  status: "published",
  health: { status: "ok", snapshot_age_seconds: 0, problem: null },
  anchors: 3,
  snapshot: { id: "2026-11-27.12", day: "2026-11-27", published_at: "2026-11-27T00:02:10.000Z", operators: 3120, credible: 1480, pairs: 48210 },
  run: null,
  read: { rows: 48210, pages: 10 },
};

function jobOut(status: JobOut["status"], state: CredibilityRunState, shards: number, anchors: number, read: JobOut["read"], now: number): JobOut {
  const health = credibilityHealth(state, now);
  return {
    status,
    health: { status: health.status, snapshot_age_seconds: health.ageSeconds, problem: health.problem },
    anchors,
    snapshot: state.last && {
      id: state.last.id,
      day: isoDay(state.last.day),
      published_at: iso(state.last.publishedAt),
      operators: state.last.operators,
      credible: state.last.credible,
      pairs: state.last.pairs,
    },
    run: state.run && {
      id: state.run.id,
      started_at: iso(state.run.startedAt),
      shard: state.run.shard,
      shards,
      pairs: state.run.counts.reduce((a, b) => a + b, 0),
    },
    read,
  };
}

const readJob = createRoute({
  method: "get",
  path: "/admin/model/credibility",
  operationId: "adminCredibilityJob",
  tags: ["Admin"],
  summary: "The credibility job: the snapshot in force with its age, the run in progress, any failure",
  security: adminSecurity,
  middleware: [requireAdmin],
  responses: { 200: json(jobSchema, "The job", { ...EXAMPLE, status: "idle", read: { rows: 0, pages: 0 } }), ...errorResponses(401, 503) },
});

const runJob = createRoute({
  method: "post",
  path: "/admin/model/credibility/run",
  operationId: "adminCredibilityRun",
  tags: ["Admin"],
  summary: "Run the credibility job now: start today's run (or another with force) and read up to max_pages pages of pairs",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    body: jsonBody(
      z.object({
        max_pages: z
          .number()
          .int()
          .min(1)
          .max(1000)
          .optional()
          .openapi({ description: "Pages of pairs (5,000 each) to read in this call at most; default 100" }),
        force: z.boolean().optional().openapi({ description: "Start a new run even though today's snapshot is out (or today's run was given up)" }),
      }),
    ),
  },
  responses: { 200: json(jobSchema, "What the call did", EXAMPLE), ...errorResponses(400, 401, 503) },
});

const anchorsSchema = z
  .object({
    operators: z.array(z.number().int().min(1)).max(MAX_ANCHORS).openapi({
      description: "The operators the admins name as the genesis of trust (the credibility job's PageRank starts from them); being verified does not make one",
    }),
  })
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
    const [state, anchors] = await Promise.all([readRunState(c.env), readAnchors(c.env)]);
    return c.json(
      jobOut(state.run ? "in_progress" : "idle", state, shardDatabases(c.env).length, anchors.length, { rows: 0, pages: 0 }, c.get("deps").now()),
      200,
    );
  });

  app.openapi(runJob, async (c) => {
    const { max_pages, force } = c.req.valid("json");
    const now = c.get("deps").now();
    const outcome: RunOutcome = await runCredibility(c.env, now, { pages: max_pages, force });
    const anchors = await readAnchors(c.env);
    return c.json(jobOut(outcome.status, outcome.state, shardDatabases(c.env).length, anchors.length, outcome.read, now), 200);
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
