import { publicOrigin } from "../env";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { decodeJwt } from "jose";
import { optionalKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { callRoute } from "../http/subrequest";
import { mcpWire, jsonRpcRequestSchema, jsonRpcResponseSchema, protocolError } from "../http/wire/mcp";
import { SERVICE_VERSION } from "../version";
import { EXAMPLE_KEYS, sample } from "./examples";
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
const exampleResult = mcpWire.attestationCheck({ valid: true, reason: null, kid: EXAMPLE_KEYS.service.thumbprint, claims: decodeJwt(sample.attestation.attestation) });

const route = createRoute({
  method: "post",
  path: MCP_PATH,
  operationId: "mcp",
  tags: ["Integrations"],
  summary: "Model Context Protocol server (Streamable HTTP, stateless): tools check_agent, get_score, get_report, report_transaction, verify_attestation",
  description:
    "JSON-RPC 2.0 messages as MCP's Streamable HTTP transport sends them (`Accept: application/json, text/event-stream`), " +
    "answered as JSON; no session (no `Mcp-Session-Id`), so GET and DELETE are 405. Each tool calls the REST route it " +
    "mirrors in-process with this request's `Authorization`, `CF-Connecting-IP` and `API-Version`: the route's limit, key and " +
    "scope checks, validation texts and idempotency apply unchanged, and its refusal becomes a tool result with `isError: " +
    "true` and `structuredContent: {status, error, request_id}`. `tools/list` describes each tool with its JSON Schema. See docs/mcp.md.",
  security: [{}, { bearerAuth: [] }],
  middleware: [optionalKey],
  request: {
    body: { ...jsonBody(jsonRpcRequestSchema), content: { "application/json": { schema: jsonRpcRequestSchema, example: { jsonrpc: "2.0", id: 2, method: "tools/call", params: exampleCall } } } },
  },
  responses: {
    200: json(jsonRpcResponseSchema, "The JSON-RPC response (an array for a batch)", { jsonrpc: "2.0", id: 2, result: exampleResult }),
    202: { description: "Only notifications or responses were sent: nothing to answer" },
    400: json(jsonRpcResponseSchema, "Not a JSON-RPC message, an unsupported MCP-Protocol-Version, or a batch of more than 10 messages", protocolError(-32700, "Parse error: Invalid JSON")),
    406: json(jsonRpcResponseSchema, "The Accept header does not list both application/json and text/event-stream", protocolError(-32000, "Not Acceptable: Client must accept both application/json and text/event-stream")),
    415: json(jsonRpcResponseSchema, "A POST without a body (every body is read as JSON)", protocolError(-32000, "Unsupported Media Type: Content-Type must be application/json")),
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
      return c.json(protocolError(-32600, `Invalid Request: a batch holds at most ${MAX_BATCH} messages`), 400);
    }
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
      const request = new Request(c.req.url, { method: "POST", headers: c.req.raw.headers, body: text });
      return await transport.handleRequest(request, parsed === undefined ? undefined : { parsedBody: parsed });
    } finally {
      await server.close();
    }
  });
}
