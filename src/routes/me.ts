import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { listOperatorAgents, operatorScoreOf, scoreOfRow } from "../db/agents";
import { getOperator } from "../db/operators";
import { errors } from "../domain/errors";
import type { AppEnv } from "../env";
import { authOf, requireKey } from "../http/auth";
import { bearer, errorResponses, json } from "./common";

const meSchema = z
  .object({
    operator: z.object({
      id: z.number(),
      name: z.string(),
      email: z.string(),
      operator_score: z.number(),
      verified: z.boolean(),
      api_key_prefix: z.string(),
      created_at: z.string(),
    }),
    agents: z.array(
      z.object({
        sid: z.string(),
        name: z.string(),
        description: z.string().nullable(),
        composite_score: z.number(),
        confidence: z.enum(["low", "medium", "high"]),
        recommendation: z.enum(["clear", "review", "caution"]),
        status: z.string(),
        created_at: z.string(),
      }),
    ),
  })
  .openapi("Me");

const me = createRoute({
  method: "get",
  path: "/me",
  tags: ["Operators"],
  summary: "The calling operator's profile and agents",
  security: bearer,
  middleware: [requireKey(null)],
  responses: { 200: json(meSchema, "Profile"), ...errorResponses(401, 429) },
});

export function registerMe(app: OpenAPIHono<AppEnv>) {
  app.openapi(me, async (c) => {
    const auth = authOf(c);
    const now = c.get("deps").now();
    const [operator, agents] = await Promise.all([getOperator(c.get("db"), auth.operatorId), listOperatorAgents(c.get("db"), auth.operatorId)]);
    if (!operator) throw errors.unknownKey();
    return c.json(
      {
        operator: {
          id: operator.id,
          name: operator.name,
          email: operator.email,
          operator_score: operatorScoreOf(operator),
          verified: operator.verified,
          api_key_prefix: auth.keyPrefix,
          created_at: operator.createdAt,
        },
        agents: agents.map((a) => {
          const s = scoreOfRow(a, now);
          return {
            sid: a.sid,
            name: a.name,
            description: a.description,
            composite_score: s.composite,
            confidence: s.confidence,
            recommendation: s.recommendation,
            status: a.status,
            created_at: a.createdAt,
          };
        }),
      },
      200,
    );
  });
}
