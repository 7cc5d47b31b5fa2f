import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { locateTransaction } from "../domain/agent";
import { SID_PATTERN } from "../domain/identifiers";
import { errors } from "../domain/errors";
import { purgeFace, settle } from "../http/agent-result";
import { locate, agentOf } from "../http/agents";
import { requireAdmin } from "../http/auth";
import type { AppEnv } from "../http/context";
import { sid, timestamp } from "../http/wire/common";
import { AGENTS_PER_PASS, archivePass, archiveProgress } from "../queues/archive";
import { adminSecurity, createRoute, errorResponses, json, jsonBody } from "./openapi";

// The retention window's admin face: one bounded pass of the daily archive (operators run it by
// hand, tests drive it), and erasure of entries' free text, in the shards and the archive alike.

const archive = createRoute({
  method: "post",
  path: "/admin/history/archive",
  operationId: "adminArchiveHistory",
  tags: ["Admin"],
  summary: "Run one bounded pass of the history archive (what the daily cron runs)",
  description:
    "Moves agents' history entries older than the retention window (HISTORY_WINDOW_DAYS) to the archive bucket, each agent's " +
    "object first recording a snapshot entry of its state at the window's start. Goes on from where the last pass stopped.",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    body: {
      required: false,
      content: {
        "application/json": {
          schema: z.object({
            limit: z
              .number({ error: `limit must be an integer between 1 and ${AGENTS_PER_PASS}` })
              .int({ error: `limit must be an integer between 1 and ${AGENTS_PER_PASS}` })
              .min(1, `limit must be an integer between 1 and ${AGENTS_PER_PASS}`)
              .max(AGENTS_PER_PASS, `limit must be an integer between 1 and ${AGENTS_PER_PASS}`)
              .optional()
              .openapi({ description: `Agents to visit at most (default ${AGENTS_PER_PASS})` }),
          }),
        },
      },
    },
  },
  responses: {
    200: json(
      z.object({
        cutoff: timestamp.openapi({ description: "Entries before this instant leave the shards" }),
        agents: z.number().int(),
        entries: z.number().int().openapi({ description: "Entries moved to the archive" }),
        pages: z.number().int().openapi({ description: "Archive objects written" }),
        bytes: z.number().int().openapi({ description: "Compressed bytes written" }),
        failed: z.number().int().openapi({ description: "Agents whose move failed (the next pass goes on with them)" }),
        complete: z.boolean().openapi({ description: "The pass reached the last agent; the next starts over" }),
        progress: z
          .object({
            done: z.number().int().openapi({ description: "Agents the pass under way has visited (all of them once it completed)" }),
            total: z.number().int().openapi({ description: "Agents old enough to have history past the window" }),
          })
          .openapi({ description: "How far the pass is, for progress and the time left" }),
      }),
      "The pass",
      { cutoff: "2025-10-17T10:20:30.000Z", agents: 2, entries: 1204, pages: 3, bytes: 164_352, failed: 0, complete: true, progress: { done: 2, total: 2 } },
    ),
    ...errorResponses(400, 401, 503),
  },
});

const erase = createRoute({
  method: "post",
  path: "/admin/history/erase",
  operationId: "adminEraseHistoryText",
  tags: ["Admin"],
  summary: "Erase the free text of an agent's history entries (one report, or all), in the shards and the archive",
  description:
    "Deletes the salt and the clear text beside each entry (transaction type, metadata, name, description): the entries keep only " +
    "their salted hashes, which no one can open any more, and an erased report's `transaction_type` reads `erased`. Erasing every " +
    "entry (no `transaction_id`) also erases the agent's name and description: its name reads `erased` and its description is " +
    "null wherever it is shown (public score, page, MCP, reports). The chain still verifies: an entry's hash covers the salted hashes only.",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    body: jsonBody(
      z.object({
        sid: z
          .string({ error: "sid is required" })
          .regex(SID_PATTERN, "Invalid SID format. Expected: SID-0x[16 hex chars]")
          .openapi({ example: "SID-0x3f9a0c1d2e4b5a69" }),
        transaction_id: z
          .number({ error: "transaction_id must be a positive integer" })
          .int({ error: "transaction_id must be a positive integer" })
          .positive("transaction_id must be a positive integer")
          .optional()
          .openapi({ description: "Only this report (default: every entry of the agent)" }),
      }),
    ),
  },
  responses: {
    200: json(
      z.object({ sid, transaction_id: z.number().int().nullable(), erased: z.number().int().openapi({ description: "Entries whose text was erased now" }) }),
      "Erased",
      { sid: "SID-0x3f9a0c1d2e4b5a69", transaction_id: 4398046511107, erased: 1 },
    ),
    ...errorResponses(400, 401, errors.transactionNotFound(), 503),
  },
});

export function registerAdminHistory(app: OpenAPIHono<AppEnv>) {
  app.openapi(archive, async (c) => {
    const body = c.req.valid("json") as { limit?: number } | undefined;
    const pass = await archivePass(c.env, c.get("deps").now(), body?.limit);
    return c.json({ ...pass, progress: await archiveProgress(c.env, c.get("deps").now()) }, 200);
  });

  app.openapi(erase, async (c) => {
    const { sid: agent, transaction_id: id } = c.req.valid("json");
    const ref = await locate(c, agent);
    let target: { n: number | null; ref: number | null } | null = null;
    if (id !== undefined) {
      const where = locateTransaction(id);
      if (!where.legacy && where.num !== ref.num) throw errors.transactionNotFound();
      target = where.legacy ? { n: null, ref: id } : { n: where.seq, ref: null };
    }
    const out = settle(c, agent, await agentOf(c, ref).eraseText(ref, target, c.get("deps").now()));
    if (target !== null && !out.found) throw errors.transactionNotFound();
    // The name went with the rest: the page this data centre cached shows it no more.
    if (target === null) purgeFace(c, agent);
    return c.json({ sid: agent, transaction_id: id ?? null, erased: out.erased }, 200);
  });
}
