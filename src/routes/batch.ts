import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AgentRef } from "../domain/agent";
import { ApiError, errors, refusalError } from "../domain/errors";
import type { Result } from "../domain/results";
import type { TransactionRecorded } from "../domain/views";
import type { ReportInput } from "../durable/agent";
import { settle } from "../http/agent-result";
import { giveBackUnits, requireKey } from "../http/auth";
import { locate, agentOf } from "../http/agents";
import type { AppEnv } from "../http/context";
import { idempotencyOf } from "../http/idempotency";
import { reportInput, withPromise, type ReportBody } from "../http/reports";
import { validationError } from "../http/validation";
import { wire } from "../http/wire";
import type { BatchOutcome } from "../http/wire/form-a";
import { batchSchema } from "../http/wire/form-a";
import { batchSchemaB } from "../http/wire/form-b";
import { bearer, byForm, createRoute, errorResponses, json, jsonBody } from "./openapi";
import { transactionBody } from "./transactions";

export const MAX_BATCH = 100;
const MALFORMED = `transactions must be an array of 1 to ${MAX_BATCH} reports`;
const idempotencyKey = z
  .string({ error: "idempotency_key must be a string of 1 to 255 characters" })
  .min(1, "idempotency_key must be a string of 1 to 255 characters")
  .max(255, "idempotency_key must be a string of 1 to 255 characters");

/** Each report of a batch: a POST /transactions body and its (required) idempotency key. */
const batchItem = transactionBody.extend({ idempotency_key: idempotencyKey });

const batchBody = z
  .object({
    transactions: z
      .array(z.unknown(), { error: MALFORMED })
      .min(1, MALFORMED)
      .max(MAX_BATCH, MALFORMED)
      // Each report is validated on its own (a bad one never fails its neighbours): documented as what it must be.
      .openapi({
        items: {
          allOf: [
            { $ref: "#/components/schemas/TransactionRequest" },
            { type: "object", properties: { idempotency_key: { type: "string", minLength: 1, maxLength: 255 } }, required: ["idempotency_key"] },
          ],
        },
      } as never),
  })
  .openapi("TransactionBatchRequest");

const batch = createRoute({
  method: "post",
  path: "/transactions/batch",
  operationId: "reportTransactions",
  tags: ["Transactions"],
  summary: "Report up to 100 transactions at once: one result per report, in order",
  description:
    "Each report is the body of `POST /transactions` plus its `idempotency_key` (required: a batch retried after a failure changes nothing), " +
    "and gets what that route would have answered for it alone (its status, and its body or error). A bad report never fails its neighbours; " +
    "a malformed batch (not an array, empty, over 100) is one 400 and writes nothing. The tier limit counts every report: when fewer remain " +
    "than the batch carries, 429 and nothing is written. Body up to 1 MiB.",
  security: bearer,
  middleware: [requireKey("transactions:write", { units: batchUnits })],
  request: { body: jsonBody(batchBody) },
  responses: {
    200: json(byForm({ A: batchSchema, B: batchSchemaB }), "One result per report, in order"),
    ...errorResponses(errors.invalid(MALFORMED), 401, 403, 413, 429),
  },
});

/** What the tier limit counts for a batch: its reports (one for anything malformed, which writes nothing). */
async function batchUnits(c: Context<AppEnv>): Promise<number> {
  const body = (await c.req.json().catch(() => null)) as { transactions?: unknown } | null;
  const size = Array.isArray(body?.transactions) ? body.transactions.length : 1;
  return size >= 1 && size <= MAX_BATCH ? size : 1;
}

type Parsed = { index: number; body: ReportBody & { idempotency_key: string } };

export function registerBatch(app: OpenAPIHono<AppEnv>) {
  app.openapi(batch, async (c) => {
    const { transactions } = c.req.valid("json");
    const at = c.get("deps").now();
    const outcomes: BatchOutcome[] = new Array(transactions.length);
    // Validated one by one, located once per agent.
    const parsed: Parsed[] = [];
    transactions.forEach((item, index) => {
      const result = batchItem.safeParse(item);
      if (result.success) parsed.push({ index, body: result.data });
      else outcomes[index] = { error: validationError(result.error) };
    });
    const refs = new Map<string, AgentRef | ApiError>();
    await Promise.all(
      [...new Set(parsed.map((p) => p.body.sid))].map(async (sid) => {
        refs.set(sid, await locate(c, sid).catch((err: unknown) => (err instanceof ApiError ? err : Promise.reject(err))));
      }),
    );
    const byAgent = new Map<string, { ref: AgentRef; items: Parsed[]; inputs: ReportInput[] }>();
    for (const p of parsed) {
      const ref = refs.get(p.body.sid)!;
      if (ref instanceof ApiError) {
        outcomes[p.index] = { error: ref };
        continue;
      }
      const { idempotency_key: key, ...body } = p.body;
      // Hashed as the POST /transactions it could have been: one key names one report whichever way it came.
      const idempotency = await idempotencyOf(key, "POST /transactions", body);
      const group = byAgent.get(ref.sid) ?? { ref, items: [], inputs: [] };
      group.items.push(p);
      group.inputs.push({ ...reportInput(c, body, at), idempotency });
      byAgent.set(ref.sid, group);
    }

    // One call per agent, in parallel: each agent's object commits its reports in one batch of its own.
    await Promise.all(
      [...byAgent.values()].map(async (g) => {
        const results = await agentOf(c, g.ref).reportMany(g.ref, g.inputs);
        await Promise.all(results.map(async (result, i) => (outcomes[g.items[i].index] = await outcomeOf(c, g.ref, result))));
      }),
    );
    // Reports answered 503 recorded nothing: their share of the tier limit is given back.
    const unrecorded = outcomes.filter((o) => "error" in o && o.error.status === 503).length;
    if (unrecorded > 0) await giveBackUnits(c, unrecorded);
    return c.json(wire(c).batch(outcomes), 200);
  });
}

async function outcomeOf(c: Context<AppEnv>, ref: AgentRef, result: Result<TransactionRecorded>): Promise<BatchOutcome> {
  if (!result.ok) return { error: refusalError(result.refusal) };
  return { recorded: await withPromise(c, ref, settle(c, ref.sid, result)) };
}
