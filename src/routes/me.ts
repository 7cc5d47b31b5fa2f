import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { listOperatorAgents, operatorScoreOf, scoreOfRow } from "../db/agents";
import { getOperator } from "../db/operators";
import { errors } from "../domain/errors";
import { authOf, requireKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { DEFAULT_PAGE, pageOf, readCursor } from "../http/pagination";
import { formA, meSchema } from "../http/wire/form-a";
import { pageQuery } from "./fields";
import { bearer, errorResponses, json } from "./openapi";

const me = createRoute({
  method: "get",
  path: "/me",
  tags: ["Operators"],
  summary: "The calling operator's profile and its agents, oldest first (paginated)",
  security: bearer,
  middleware: [requireKey(null)],
  request: { query: z.object(pageQuery) },
  responses: { 200: json(meSchema, "Profile"), ...errorResponses(400, 401, 429) },
});

const position = z.tuple([z.string(), z.string()]);

export function registerMe(app: OpenAPIHono<AppEnv>) {
  app.openapi(me, async (c) => {
    const auth = authOf(c);
    const now = c.get("deps").now();
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const after = readCursor(cursor, position);
    const [operator, rows] = await Promise.all([
      getOperator(c.get("db"), auth.operatorId),
      listOperatorAgents(c.get("db"), auth.operatorId, after, limit + 1),
    ]);
    if (!operator) throw errors.unknownKey();
    const page = pageOf(rows, limit, (a) => [a.createdAt, a.sid]);
    const profile = { ...operator, score: operatorScoreOf(operator), keyPrefix: auth.keyPrefix };
    const agents = page.items.map((a) => ({ ...a, score: scoreOfRow(a, now) }));
    return c.json(formA.me(profile, agents, page.nextCursor), 200);
  });
}
