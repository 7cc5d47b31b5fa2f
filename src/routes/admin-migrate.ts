import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { agentsAfter, countAgents } from "../db/directory";
import { agentOf } from "../http/agents";
import { requireAdmin } from "../http/auth";
import type { AppEnv } from "../http/context";
import { AGENTS_PER_RECONCILE, reconcilePass } from "../queues/reconcile";
import { adminSecurity, createRoute, errorResponses, json } from "./openapi";

// Two passes over every agent that operators run: the sweep that moves every agent to the record's contract (docs/operations.md, "The migration
// sweep"): a page of the directory at a time, each agent's object called once. The CLI
// (`npm run admin -- migrate-objects`) calls page after page and shows the total, the rate and the
// time left. Idempotent: an agent already moved answers at once.

export const SWEEP_PAGE = 200;
/** Objects called at once: enough to keep the shards busy, not so many that one page's subrequests pile up. */
const AT_ONCE = 25;
const AFTER = "after must be a directory number";

/** A pass's optional body: the directory number to go on after, and how many agents at most (up to `max`). */
function pageBody(max: number) {
  const limit = `limit must be an integer between 1 and ${max}`;
  const schema = z.object({
    after: z.number({ error: AFTER }).int({ error: AFTER }).min(0, AFTER).optional(),
    limit: z.number({ error: limit }).int({ error: limit }).min(1, limit).max(max, limit).optional(),
  });
  return { required: false, content: { "application/json": { schema } } };
}

const sweep = createRoute({
  method: "post",
  path: "/admin/migrate-objects",
  operationId: "adminMigrateAgents",
  tags: ["Admin"],
  summary: "Move one page of agents to the record's contract (the migration sweep)",
  description:
    "Calls the object of each agent after `after` (a directory number; 0 from the first), at most `limit`: an agent whose object still holds " +
    "the earlier contract's storage moves it to its shard (its unapplied journal, its idempotency records and receipt ids of the last day, " +
    "its disputes and challenges, its unsent events) and is served from the shard from then on. Call again with `next` until it is null.",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { body: pageBody(SWEEP_PAGE) },
  responses: {
    200: json(
      z.object({
        total: z.number().int().openapi({ description: "Agents in the directory" }),
        visited: z.number().int(),
        moved: z.number().int().openapi({ description: "Agents this page moved from the earlier contract" }),
        failed: z.array(z.string()).openapi({ description: "Agents whose move failed this time (the next sweep tries them again)" }),
        next: z.number().int().nullable().openapi({ description: "The `after` of the next page; null after the last" }),
      }),
      "The page",
      { total: 1200, visited: 200, moved: 187, failed: [], next: 1223 },
    ),
    ...errorResponses(400, 401, 503),
  },
});

export function registerAdminMigrate(app: OpenAPIHono<AppEnv>) {
  app.openapi(sweep, async (c) => {
    const body = (c.req.valid("json") ?? {}) as { after?: number; limit?: number };
    const limit = body.limit ?? SWEEP_PAGE;
    const d1 = c.env.DB.withSession("first-primary");
    const [total, page] = await Promise.all([countAgents(d1), agentsAfter(d1, body.after ?? 0, limit)]);
    let moved = 0;
    const failed: string[] = [];
    for (let i = 0; i < page.length; i += AT_ONCE) {
      await Promise.all(
        page.slice(i, i + AT_ONCE).map(async (entry) => {
          const ref = { sid: entry.sid, num: entry.num, shard: entry.shard, log: entry.log };
          const out = await agentOf(c, ref)
            .migrate(ref)
            .catch((err: unknown) => ({ ok: false as const, refusal: String(err) }));
          if (out.ok && out.result.moved) moved++;
          // An agent entered in the directory whose registration never reached its shard has nothing to move.
          else if (!out.ok && out.refusal !== "not_found") failed.push(entry.sid);
        }),
      );
    }
    return c.json({ total, visited: page.length, moved, failed, next: page.length === limit ? page[page.length - 1].num : null }, 200);
  });
}

const reconcile = createRoute({
  method: "post",
  path: "/admin/log/reconcile",
  operationId: "adminReconcileLog",
  tags: ["Admin"],
  summary: "Run one bounded pass of the log's reconciliation (what the daily cron runs)",
  description:
    "Compares each agent's last entry number on its shard with how far its log holds its leaves without a gap, and has every agent the log " +
    "lags send its entries again from the first the log lacks. Goes on from where the last pass stopped, or from `after` when given.",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { body: pageBody(AGENTS_PER_RECONCILE) },
  responses: {
    200: json(
      z.object({
        total: z.number().int().openapi({ description: "Agents in the directory" }),
        visited: z.number().int(),
        republished: z.number().int().openapi({ description: "Agents the log lagged, told to send again" }),
        entries: z.number().int().openapi({ description: "Entries they sent again" }),
        failed: z.number().int(),
        complete: z.boolean().openapi({ description: "The pass reached the directory's last agent" }),
        next: z.number().int().openapi({ description: "The `after` of the next page (0 once complete)" }),
      }),
      "The pass",
      { total: 1200, visited: 500, republished: 1, entries: 3, failed: 0, complete: false, next: 1523 },
    ),
    ...errorResponses(400, 401, 503),
  },
});

export function registerAdminReconcile(app: OpenAPIHono<AppEnv>) {
  app.openapi(reconcile, async (c) => {
    const body = (c.req.valid("json") ?? {}) as { after?: number; limit?: number };
    return c.json(await reconcilePass(c.env, c.get("deps").now(), body.limit, body.after), 200);
  });
}
