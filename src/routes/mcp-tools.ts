// The MCP server's tools. Each one re-presents a REST route and calls it in-process (http/subrequest):
// the route counts the call against its own limit and applies its own key, scope and validation
// checks, texts and idempotency. A tool only checks what no route could take (an argument that is
// not a SID cannot become a path), with the route's texts where one exists.
import { z } from "@hono/zod-openapi";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { checkAttestation, MAX_ATTESTATION_LENGTH } from "../domain/attestation-check";
import { ApiError, errors } from "../domain/errors";
import { SID_PATTERN } from "../domain/identifiers";
import { DIMENSIONS } from "../domain/model";
import type { Form } from "../http/context";
import type { RouteAnswer, RouteCall } from "../http/subrequest";
import { JWKS_PATH } from "../http/wire/a2a";
import { errorMessage, mcpWire } from "../http/wire/mcp";
import { transactionBody } from "./transactions";

/** What a tool call may use: the app's routes (with the caller's headers), and facts of the MCP request. */
export interface ToolContext {
  call: (route: RouteCall) => Promise<RouteAnswer>;
  form: Form;
  requestId: string;
  /** The service's public origin: the issuer attestations must name. */
  origin: string;
  now: () => number;
  /** The MCP request carried an Authorization header: check_agent reads the keyed score. */
  keyed: boolean;
}

type Arguments = Record<string, unknown>;

interface ToolDefinition {
  name: string;
  tool: () => Tool;
  run: (args: Arguments, context: ToolContext) => Promise<CallToolResult>;
}

const SID_TEXT = "The agent's SID: SID-0x followed by 16 lowercase hex characters";
const sidProperty = { type: "string", pattern: SID_PATTERN.source, description: SID_TEXT };
const sidOnly = { type: "object" as const, properties: { sid: sidProperty }, required: ["sid"] };

/** The `sid` argument, as the routes take it in their paths. */
function sidOf(args: Arguments): string {
  const sid = args.sid;
  if (sid === undefined || sid === null) throw errors.missingFields(["sid"]);
  if (typeof sid !== "string" || !SID_PATTERN.test(sid)) throw errors.invalidSid();
  return sid;
}

/** A route's answer as a tool result: its body, or its refusal. */
const answered = (answer: RouteAnswer): CallToolResult =>
  answer.status >= 200 && answer.status < 300
    ? mcpWire.success(answer.body as Record<string, unknown>)
    : mcpWire.refusal(answer.status, answer.body, answer.headers.get("retry-after"));

const readOnly = { readOnlyHint: true, openWorldHint: false };

const checkAgent: ToolDefinition = {
  name: "check_agent",
  tool: () => ({
    name: "check_agent",
    title: "Check an agent",
    description:
      "Check an AI agent before dealing with it: its recommendation (clear, review or caution), composite trust score (0-1000; " +
      "Form B 0.0-1.0), confidence, identity level and operator, with the service's signed attestation (a compact JWS anyone can " +
      "verify offline, e.g. with verify_attestation). Without an API key it reads the public score, like GET /score/{sid}/public " +
      "(5 checks per hour per client address); with a key (scope agents:read) it reads the full score with the five dimensions " +
      "and reason codes, like GET /score/{sid} (the operator's tier limit). `view` says which. `status` is active or suspended: " +
      "a suspended agent's figures are its last ones, it accepts no reports, and its attestation is null (attestation_error says why).",
    inputSchema: sidOnly,
    annotations: { title: "Check an agent", ...readOnly },
  }),
  run: async (args, context) => {
    const sid = sidOf(args);
    const view = context.keyed ? "full" : "public";
    const score = await context.call({ method: "GET", path: context.keyed ? `/score/${sid}` : `/score/${sid}/public` });
    if (score.status !== 200) return answered(score);
    // A suspended agent gets no attestation: none is fetched, so no copy cached before the suspension
    // (in another data centre) can contradict the score.
    if ((score.body as { status?: string }).status === "suspended") {
      return mcpWire.checkAgent(sid, view, score.body as Record<string, unknown>, { refused: errors.suspendedAttestation().message });
    }
    const signed = await context.call({ method: "GET", path: `/score/${sid}/attestation` });
    const attestation = signed.status === 200 ? { jws: (signed.body as { attestation: string }).attestation } : { refused: errorMessage(signed.body) };
    return mcpWire.checkAgent(sid, view, score.body as Record<string, unknown>, attestation);
  },
};

const getScore: ToolDefinition = {
  name: "get_score",
  tool: () => ({
    name: "get_score",
    title: "Get an agent's full score",
    description:
      `The agent's full score, as GET /score/{sid} answers it: composite and the five dimensions (${DIMENSIONS.join(", ")}), confidence, recommendation, reason codes, operator and identity. Needs an API key (Authorization: ` +
      "Bearer on the MCP request) with the agents:read scope; counts against the operator's tier limit.",
    inputSchema: sidOnly,
    annotations: { title: "Get an agent's full score", ...readOnly },
  }),
  run: async (args, context) => answered(await context.call({ method: "GET", path: `/score/${sidOf(args)}` })),
};

const getReport: ToolDefinition = {
  name: "get_report",
  tool: () => ({
    name: "get_report",
    title: "Get an agent's report",
    description:
      "The agent's full report, as GET /report/{sid} answers it: score, operator, score and configuration history, transaction " +
      "summary and open disputes. Needs an API key with the agents:read scope; counts against the operator's tier limit.",
    inputSchema: sidOnly,
    annotations: { title: "Get an agent's report", ...readOnly },
  }),
  run: async (args, context) => answered(await context.call({ method: "GET", path: `/report/${sidOf(args)}` })),
};

const IDEMPOTENCY_KEY = /^[\x20-\x7e]*$/;
const REPORT_FIELDS: Record<string, string> = {
  sid: SID_TEXT,
  transactionType: "What kind of transaction it was, e.g. payment, search, booking: 1-100 characters",
  outcome: "How it ended: success, partial, failure, timeout or error. Every report moves stability by it",
  reliabilitySignal: "Optional, 0-1000: how reliable the agent was in it; moves the dimension of its name",
  qualitySignal: "Optional, 0-1000: the quality of its work; moves the dimension of its name",
  financialSignal: "Optional, 0-1000: how it handled money; moves the dimension of its name",
  securitySignal: "Optional, 0-1000: how safely it behaved; moves the dimension of its name",
  metadata: "Optional JSON object of up to 8 KiB kept with the report",
  receipt:
    "Optional compact JWS the agent signed with one of its registered keys (typ trust-receipt+jwt; sub the SID, aud your " +
    "operator id, jti, iat within 24 h): the report weighs 1.5x. An invalid receipt never fails the report.",
  idempotency_key:
    "Optional, 1-255 printable ASCII characters: the Idempotency-Key of POST /transactions, shared with it (the same key there " +
    "and here is one report). A repeat with the same key and arguments replays the first answer and records nothing; with other " +
    "arguments it is refused (422). Kept 24 hours per operator and agent.",
};

/** The report's JSON Schema: the route's own body schema, with each field described. */
function reportSchema(): Tool["inputSchema"] {
  const { $schema: _, ...schema } = z.toJSONSchema(transactionBody, { io: "input", unrepresentable: "any" }) as Record<string, unknown> & {
    properties: Record<string, Record<string, unknown>>;
  };
  schema.properties.metadata = { type: "object", additionalProperties: true };
  schema.properties.idempotency_key = { type: "string", minLength: 1, maxLength: 255 };
  for (const [field, description] of Object.entries(REPORT_FIELDS)) schema.properties[field] = { ...schema.properties[field], description };
  return schema as Tool["inputSchema"];
}

const reportTransaction: ToolDefinition = {
  name: "report_transaction",
  tool: () => ({
    name: "report_transaction",
    title: "Report a transaction with an agent",
    description:
      "Report how a transaction with an agent went, as POST /transactions does: the agent's scores update from it and the " +
      "answer is the route's (transaction_id, updated_scores, receipt). Needs an API key with the transactions:write scope; " +
      "counts against the operator's tier limit; reports on an agent of your own weigh less. Pass idempotency_key to make a " +
      "retry safe.",
    inputSchema: reportSchema(),
    annotations: { title: "Report a transaction", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  }),
  run: async (args, context) => {
    const { idempotency_key: key, ...body } = args;
    if (key !== undefined && key !== null && (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key))) {
      throw errors.invalid("idempotency_key must be a string of printable ASCII characters");
    }
    return answered(await context.call({ method: "POST", path: "/transactions", body, idempotencyKey: (key as string | null | undefined) ?? undefined }));
  },
};

const verifyAttestation: ToolDefinition = {
  name: "verify_attestation",
  tool: () => ({
    name: "verify_attestation",
    title: "Verify an attestation",
    description:
      "Verify a trust attestation (the compact JWS of GET /score/{sid}/attestation, check_agent or an A2A Agent Card extension) " +
      "offline against this service's published keys (GET /.well-known/jwks.json): the signature, typ trust-attestation+jwt, iss " +
      "this service, exp in the future and, when sid is given, sub that agent. Answers valid, the reason when not, the key id and " +
      "the claims once the signature holds. No key needed, no limit: nothing is looked up but the keys.",
    inputSchema: {
      type: "object",
      properties: {
        attestation: { type: "string", maxLength: MAX_ATTESTATION_LENGTH, description: "The compact JWS" },
        sid: { ...sidProperty, description: "Optional: the agent you deal with; the attestation must be about it" },
      },
      required: ["attestation"],
    },
    annotations: { title: "Verify an attestation", ...readOnly },
  }),
  run: async (args, context) => {
    const jws = args.attestation;
    if (jws === undefined || jws === null) throw errors.missingFields(["attestation"]);
    if (typeof jws !== "string") throw errors.invalid("attestation must be a string");
    if (jws.length > MAX_ATTESTATION_LENGTH) throw errors.invalid(`attestation must be at most ${MAX_ATTESTATION_LENGTH} characters`);
    const sid = args.sid === undefined || args.sid === null ? undefined : sidOf(args);
    const jwks = await context.call({ method: "GET", path: JWKS_PATH });
    if (jwks.status !== 200) return answered(jwks);
    const { keys } = jwks.body as { keys: Record<string, unknown>[] };
    return mcpWire.attestationCheck(await checkAttestation(jws, keys, { issuer: context.origin, now: context.now(), sid }));
  },
};

export const TOOLS = new Map([checkAgent, getScore, getReport, reportTransaction, verifyAttestation].map((t) => [t.name, t]));

let listed: Tool[] | undefined;
/** The tools as tools/list shows them, built once per isolate. */
export const toolList = (): Tool[] => (listed ??= [...TOOLS.values()].map((t) => t.tool()));

/** Runs a tool; an argument no route could take is a tool error with the service's text, never a protocol error. */
export async function runTool(definition: ToolDefinition, args: Arguments, context: ToolContext): Promise<CallToolResult> {
  try {
    return await definition.run(args, context);
  } catch (err) {
    if (err instanceof ApiError) return mcpWire.error(context.form, err, context.requestId);
    throw err;
  }
}
