import { publicOrigin } from "../env";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { decodeJwt } from "jose";
import type { MiddlewareHandler } from "hono";
import { protocolErrors } from "../domain/errors";
import { optionalKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { callRoute } from "../http/subrequest";
import { mcpWire, jsonRpcRequestSchema, jsonRpcResponseSchema, protocolError } from "../http/wire/mcp";
import { SERVICE_VERSION } from "../version";
import { EXAMPLE_KEYS } from "./example-agent";
import { sample } from "./examples";
import { runTool, toolList, TOOLS, type ToolContext } from "./mcp-tools";
import { createRoute, errorResponses, json, jsonBody } from "./openapi";

// POST /mcp: a Model Context Protocol server (Streamable HTTP, stateless, JSON responses). A server
// and a transport are built per request; every tool calls the REST route it mirrors in-process.

export const MCP_PATH = "/mcp";
/** Tool calls of one HTTP request run at once, each with its own route calls: a batch stays small. */
export const MAX_BATCH = 10;

const INSTRUCTIONS =
  "Trust scores for AI agents. Before dealing with an agent, call check_agent with its SID (SID-0x...): its recommendation " +
  "is clear, review or caution. After a transaction with it, report how it went with report_transaction. An agent may show " +
  "you an attestation (a signed score): verify_attestation checks it. get_score, get_report and report_transaction need the " +
  "operator's API key, sent as Authorization: Bearer on the MCP connection; every tool call counts against the limit of the " +
  "REST route it mirrors.";

const exampleCall = { name: "verify_attestation", arguments: { attestation: sample.attestation.attestation } };
const exampleResult = mcpWire.attestationCheck({
  valid: true,
  reason: null,
  kid: EXAMPLE_KEYS.service.thumbprint,
  claims: decodeJwt(sample.attestation.attestation),
});

const route = createRoute({
  method: "post",
  path: MCP_PATH,
  operationId: "mcp",
  tags: ["Integrations"],
  summary: "Model Context Protocol server (Streamable HTTP, stateless): tools check_agent, get_score, get_report, report_transaction, verify_attestation",
  description:
    "JSON-RPC 2.0 messages as MCP's Streamable HTTP transport sends them (`Content-Type: application/json`, `Accept: " +
    "application/json, text/event-stream`), answered as JSON; no session (no `Mcp-Session-Id`), so GET and DELETE are 405. " +
    "Only `application/json` bodies are served (415 otherwise: a web page cannot send one cross-origin without a preflight, " +
    "and `/mcp` answers preflights with no CORS headers); an `Origin` other than the service's own and MCP_ALLOWED_ORIGINS is " +
    "403. A request whose params do not fit its method (`arguments` not an object, `name` not a string) is JSON-RPC -32602 " +
    "with a one-line message; a tool argument of the wrong type or value is the tool's error result. Each tool calls the REST route it " +
    "mirrors in-process with this request's `Authorization`, `CF-Connecting-IP` and `API-Version`: the route's limit, key and " +
    "scope checks, validation texts and idempotency apply unchanged, and its refusal becomes a tool result with `isError: " +
    "true` and `structuredContent: {status, error, request_id}`. `tools/list` describes each tool with its JSON Schema. See docs/mcp.md.",
  security: [{}, { bearerAuth: [] }],
  middleware: [optionalKey],
  request: {
    body: {
      ...jsonBody(jsonRpcRequestSchema),
      content: { "application/json": { schema: jsonRpcRequestSchema, example: { jsonrpc: "2.0", id: 2, method: "tools/call", params: exampleCall } } },
    },
  },
  responses: {
    200: json(jsonRpcResponseSchema, "The JSON-RPC response (an array for a batch)", { jsonrpc: "2.0", id: 2, result: exampleResult }),
    202: { description: "Only notifications or responses were sent: nothing to answer" },
    400: json(
      jsonRpcResponseSchema,
      "Not a JSON-RPC message, an unsupported MCP-Protocol-Version, or a batch of more than 10 messages",
      protocolError({ code: -32700, message: "Parse error: Invalid JSON" }),
    ),
    403: json(
      jsonRpcResponseSchema,
      "An `Origin` header that is not on the allow list: this service's public origin and MCP_ALLOWED_ORIGINS (a request without Origin, from a client that is not a browser, passes)",
      protocolError(protocolErrors.forbiddenOrigin),
    ),
    406: json(
      jsonRpcResponseSchema,
      "The Accept header does not list both application/json and text/event-stream",
      protocolError({ code: -32000, message: "Not Acceptable: Client must accept both application/json and text/event-stream" }),
    ),
    415: json(
      jsonRpcResponseSchema,
      "A Content-Type other than application/json (case and parameters aside), or none",
      protocolError(protocolErrors.unsupportedMediaType),
    ),
    ...errorResponses(413),
  },
});

function mcpServer(context: ToolContext): Server {
  const server = new Server(
    { name: "agent-trust-service", title: "Agent Trust Scoring Service", version: SERVICE_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = TOOLS.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return runTool(tool, request.params.arguments ?? {}, context);
  });
  return server;
}

/** Whether a Content-Type names JSON: `application/json`, in any case, with any parameters. */
const isJson = (contentType: string | undefined) => contentType?.split(";")[0].trim().toLowerCase() === "application/json";

/** The origins whose pages may call /mcp: the service's public origin and MCP_ALLOWED_ORIGINS (comma-separated origins). */
function allowedOrigins(env: AppEnv["Bindings"]): Set<string> {
  const allowed = new Set([publicOrigin(env)]);
  for (const listed of (env.MCP_ALLOWED_ORIGINS ?? "").split(",")) {
    const origin = listed.trim();
    if (origin === "") continue;
    try {
      allowed.add(new URL(origin).origin);
    } catch {
      // Not an origin: it admits nothing.
    }
  }
  return allowed;
}

/**
 * Before the body is read: an `Origin` not on the allow list is 403 (the Streamable HTTP
 * specification's guard against DNS rebinding; clients that are not browsers send none), and only
 * JSON bodies are served (415), so a page cannot make its visitors' browsers send a CORS "simple"
 * request (text/plain, no preflight) that spends their public limit. Registered before the app's
 * body reader, which presents every other route's body as JSON whatever its type.
 */
export const mcpGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== "POST") return next();
  const origin = c.req.header("origin");
  if (origin !== undefined && !allowedOrigins(c.env).has(origin)) return c.json(protocolError(protocolErrors.forbiddenOrigin), 403);
  if (!isJson(c.req.header("content-type"))) return c.json(protocolError(protocolErrors.unsupportedMediaType), 415);
  return next();
};

/** The schema of each request method the server answers, as the SDK parses it. */
const REQUEST_SCHEMAS = new Map<
  string,
  { safeParse: (value: unknown) => { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }
>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
]);

/**
 * A request whose params its method's schema refuses, answered here with -32602 and one line: the
 * SDK answers it with -32603 (an internal error) or -32602, either with the validator's whole dump.
 */
function malformed(message: unknown) {
  if (!isJSONRPCRequest(message)) return null;
  const checked = REQUEST_SCHEMAS.get(message.method)?.safeParse(message);
  if (!checked || checked.success) return null;
  const issue = checked.error.issues[0];
  return protocolError(protocolErrors.invalidParams(issue.path.map(String).join("."), issue.message), message.id);
}

export function registerMcp(app: OpenAPIHono<AppEnv>) {
  // Documented like the other routes (app.openapi drops a route's middleware from the document too),
  // served by a plain handler: the transport, not a zod validator, reads the JSON-RPC body.
  const { middleware: _, ...documented } = route;
  app.openAPIRegistry.registerPath(documented);
  app.post(MCP_PATH, optionalKey, async (c) => {
    const text = await c.req.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // The transport answers malformed JSON with its own parse error.
    }
    if (Array.isArray(parsed) && parsed.length > MAX_BATCH) {
      return c.json(protocolError(protocolErrors.batchTooLarge(MAX_BATCH)), 400);
    }
    const serve = async (body: string, messages: unknown) => {
      const server = mcpServer({
        call: (target) => callRoute(c, app.fetch, target),
        form: c.get("form"),
        requestId: c.get("requestId"),
        origin: publicOrigin(c.env),
        now: c.get("deps").now,
        keyed: c.req.header("authorization") !== undefined,
      });
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        const request = new Request(c.req.url, { method: "POST", headers: c.req.raw.headers, body });
        return await transport.handleRequest(request, messages === undefined ? undefined : { parsedBody: messages });
      } finally {
        await server.close();
      }
    };
    const batch = Array.isArray(parsed);
    const messages: unknown[] = batch ? (parsed as unknown[]) : [parsed];
    const refused = messages.map(malformed);
    if (refused.every((r) => r === null)) return serve(text, parsed);
    // The malformed requests are answered here; the rest of a batch goes on, and the answers join.
    const answers = refused.filter((r) => r !== null);
    const rest = messages.filter((_, i) => refused[i] === null);
    if (rest.length === 0) return c.json(batch ? answers : answers[0], 200);
    const res = await serve(JSON.stringify(rest), rest);
    if (res.status === 202) return c.json(answers, 200);
    if (res.status !== 200) return res;
    const served = (await res.json()) as unknown;
    return c.json([...(Array.isArray(served) ? served : [served]), ...answers], 200);
  });
}
