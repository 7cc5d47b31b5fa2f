import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { readAgentRows, type AgentRow } from "../db/agents";
import { scoreOfRow } from "../domain/views";
import { listOperatorAgents } from "../db/directory";
import { getOperator } from "../db/operators";
import { errors } from "../domain/errors";
import { operatorFacts } from "../http/agents";
import { authOf, requireKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { DEFAULT_PAGE, pageOf, readCursor } from "../http/pagination";
import { formA } from "../http/wire/form-a";
import { meSchema } from "../http/wire/form-a-lists";
import { pageQuery } from "./fields";
import { bearer, createRoute, errorResponses, json } from "./openapi";

const me = createRoute({
  method: "get",
  path: "/me",
  operationId: "getMe",
  tags: ["Operators"],
  summary: "The calling operator's profile and its agents, oldest first (paginated)",
  security: bearer,
  middleware: [requireKey(null)],
  request: { query: z.object(pageQuery) },
  responses: { 200: json(meSchema, "Profile"), ...errorResponses(400, 401, 429) },
});

export function registerMe(app: OpenAPIHono<AppEnv>) {
  app.openapi(me, async (c) => {
    const auth = authOf(c);
    const now = c.get("deps").now();
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, z.number().int()) ?? 0;
    // The page comes from the control database's directory; the agents' rows from their shards.
    const [operator, facts, entries] = await Promise.all([
      getOperator(c.get("db"), auth.operatorId),
      operatorFacts(c, auth.operatorId),
      listOperatorAgents(c.get("db"), auth.operatorId, after, limit + 1),
    ]);
    if (!operator || !facts) throw errors.unknownKey();
    const page = pageOf(entries, limit, (e) => e.num);
    const byShard = new Map<number, typeof page.items>();
    for (const e of page.items) byShard.set(e.shard, [...(byShard.get(e.shard) ?? []), e]);
    const rows = new Map<string, AgentRow>();
    await Promise.all(
      [...byShard].map(async ([shard, items]) => {
        for (const row of await readAgentRows(
          c.get("sessions").shard(shard),
          items.map((e) => e.sid),
        ))
          rows.set(row.sid, row);
      }),
    );
    const agents = page.items.flatMap((e) => {
      const row = rows.get(e.sid);
      return row ? [{ ...row, score: scoreOfRow(row, now, facts.score) }] : [];
    });
    const profile = { ...operator, score: facts.score, keyPrefix: auth.keyPrefix };
    return c.json(formA.me(profile, agents, page.nextCursor), 200);
  });
}
