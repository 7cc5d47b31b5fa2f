import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { SID_PATTERN } from "../domain/identifiers";
import { OUTCOMES } from "../domain/model";
import type { AppEnv } from "../http/context";
import { authOf, requireKey } from "../http/auth";
import { reportInput, withPromise } from "../http/reports";
import { idempotent } from "../http/idempotency";
import { settle } from "../http/agent-result";
import { locate, ownedAgent, agentOf } from "../http/agents";
import { listTransactions } from "../db/agents";
import { archivedTransactions } from "../db/archived-reads";
import { DEFAULT_PAGE, pageOf, readCursor } from "../http/pagination";
import { MISSING } from "../http/validation";
import { wire } from "../http/wire";
import { formA, transactionSchema } from "../http/wire/form-a";
import { transactionListSchema } from "../http/wire/form-a-lists";
import { transactionSchemaB } from "../http/wire/form-b";
import { errors, refusalError } from "../domain/errors";
import { idempotencyHeader, nullableJsonObject, pageQuery, requiredString, sidParam } from "./fields";
import { MAX_RECEIPT_LENGTH } from "../domain/receipts";
import { bearer, byForm, createRoute, errorResponses, json, jsonBody } from "./openapi";

const isAbsent = (input: unknown) => input === undefined || input === null;

const signal = (field: string) => {
  const message = `${field} must be a number between 0 and 1000`;
  return z.number({ error: message }).min(0, message).max(1000, message).nullish();
};

export const transactionBody = z
  .object({
    sid: z
      .string({ error: (iss) => (isAbsent(iss.input) ? MISSING : "Invalid SID format. Expected: SID-0x[16 hex chars]") })
      .min(1, MISSING)
      .regex(SID_PATTERN, "Invalid SID format. Expected: SID-0x[16 hex chars]"),
    transactionType: requiredString("transactionType", 100),
    outcome: z.enum(OUTCOMES, {
      error: (iss) => (isAbsent(iss.input) ? MISSING : `Invalid outcome. Expected one of: ${OUTCOMES.join(", ")}`),
    }),
    reliabilitySignal: signal("reliabilitySignal"),
    qualitySignal: signal("qualitySignal"),
    financialSignal: signal("financialSignal"),
    securitySignal: signal("securitySignal"),
    metadata: nullableJsonObject("metadata", 8192, "Stored with the report, never scored; null or missing: none"),
    receipt: z
      .string({ error: "receipt must be a compact JWS string" })
      .max(MAX_RECEIPT_LENGTH, `receipt must be at most ${MAX_RECEIPT_LENGTH} characters`)
      .optional()
      .openapi({
        description:
          "A compact JWS the agent signed with one of its registered keys (typ trust-receipt+jwt; sub the SID, aud your operator id, jti, iat within 24 h): the report weighs 1.5x. An invalid receipt never fails the report.",
      }),
  })
  .openapi("TransactionRequest");

const report = createRoute({
  method: "post",
  path: "/transactions",
  operationId: "reportTransaction",
  tags: ["Transactions"],
  summary: "Report a transaction outcome with an agent; its scores update from it",
  description:
    "Any operator may report. Stability always moves with the outcome; each signal supplied (0-1000) moves its own dimension. " +
    "Reports by the agent's own operator weigh less. Idempotent with `Idempotency-Key` (kept 24 hours per operator and agent).",
  security: bearer,
  middleware: [requireKey("transactions:write")],
  request: { headers: idempotencyHeader, body: jsonBody(transactionBody) },
  responses: {
    201: json(byForm({ A: transactionSchema, B: transactionSchemaB }), "Recorded"),
    ...errorResponses(errors.missingFields(["sid", "transactionType", "outcome"]), 401, 403, errors.agentNotFound(), refusalError("suspended"), 413, 422, 429),
  },
});

const list = createRoute({
  method: "get",
  path: "/agents/{sid}/transactions",
  operationId: "listAgentTransactions",
  tags: ["Transactions"],
  summary: "The agent's reports, newest first (owner; paginated): outcome, evidence and status, never the reporter",
  security: bearer,
  middleware: [requireKey("agents:read")],
  request: { params: sidParam, query: z.object(pageQuery) },
  responses: { 200: json(transactionListSchema, "Reports"), ...errorResponses(400, 401, errors.notOwner(), 404, 429) },
});

export function registerTransactions(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) => {
    const { sid } = c.req.valid("param");
    const { limit = DEFAULT_PAGE, cursor } = c.req.valid("query");
    const { ref } = await ownedAgent(c, sid, authOf(c).operatorId);
    const before = readCursor(cursor, z.number().int().positive());
    const shard = c.get("sessions").shard(ref.shard);
    const rows = await listTransactions(shard, sid, ref.num, before, limit + 1);
    // Past the shard's oldest entry, the list goes on in the archive, below the last report the shard gave.
    if (rows.length <= limit) {
      const below = rows.at(-1)?.n ?? before ?? Number.MAX_SAFE_INTEGER;
      rows.push(...(await archivedTransactions(shard, c.env.ARCHIVE_BUCKET, sid, ref.num, below, limit + 1 - rows.length)));
    }
    const page = pageOf(rows, limit, (t) => t.n);
    return c.json(formA.transactions(page.items, page.nextCursor), 200);
  });

  app.openapi(report, async (c) => {
    const body = c.req.valid("json");
    const ref = await locate(c, body.sid);
    const input = reportInput(c, body, c.get("deps").now());
    const out = await idempotent(c, body, (idempotency) => agentOf(c, ref).reportTransaction(ref, { ...input, idempotency }));
    return c.json(wire(c).transaction(await withPromise(c, ref, settle(c, body.sid, out))), 201);
  });
}
