// MCP tool results: what a tool call answers, made from the REST route it re-presents. A success is
// the route's JSON body as structured content (and as text, for clients that read only text); a
// refusal is an `isError` result with the route's error body, in the client's wire form, and the
// route's HTTP status, so a client tells a credential problem (401, 403) from a bad argument (400).
import { z } from "@hono/zod-openapi";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AttestationCheck } from "../../domain/attestation-check";
import type { ApiError } from "../../domain/errors";
import type { Form } from "../context";
import { formA } from "./form-a";
import { formB } from "./form-b";

type Json = Record<string, unknown>;

const asText = (value: unknown) => JSON.stringify(value);

/** The text of an error body of either form. */
export function errorMessage(body: unknown): string {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : "Request failed";
}

export const mcpWire = {
  success: (body: Json): CallToolResult => ({ content: [{ type: "text", text: asText(body) }], structuredContent: body }),

  /** A route's refusal: `{status, ...its error body, retry_after?}`; the text is the route's message. */
  refusal: (status: number, body: unknown, retryAfter: string | null): CallToolResult => {
    const structured: Json = { status, ...(typeof body === "object" && body !== null ? (body as Json) : { error: String(body) }) };
    if (retryAfter !== null) structured.retry_after = Number(retryAfter);
    return { isError: true, content: [{ type: "text", text: errorMessage(body) }], structuredContent: structured };
  },

  /** A refusal decided before any route is called (an argument no route could take), in the same shape. */
  error: (form: Form, error: ApiError, requestId: string): CallToolResult =>
    mcpWire.refusal(error.status, form === "B" ? formB.error(error, requestId) : formA.error(error, requestId), error.headers["Retry-After"] ?? null),

  /**
   * check_agent: the agent's status (suspended or active, as its score says), the score as the route
   * the caller may read renders it, and the agent's attestation or why there is none.
   */
  checkAgent: (sid: string, view: "public" | "full", score: Json, attestation: { jws: string } | { refused: string }): CallToolResult =>
    mcpWire.success({
      sid,
      view,
      status: score.status,
      score,
      attestation: "jws" in attestation ? attestation.jws : null,
      attestation_error: "refused" in attestation ? attestation.refused : null,
    }),

  /** verify_attestation: valid or not, why not, and the claims once the signature holds. */
  attestationCheck: (check: AttestationCheck): CallToolResult =>
    mcpWire.success({ valid: check.valid, reason: check.reason, kid: check.kid, claims: check.claims }),
};

// The MCP endpoint's HTTP payloads, for the OpenAPI documents: JSON-RPC 2.0 messages.
const jsonRpcId = z.union([z.string(), z.number().int()]);

export const jsonRpcRequestSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: jsonRpcId.optional().openapi({ description: "Absent in a notification" }),
    method: z.string().openapi({ description: "initialize, notifications/initialized, tools/list, tools/call, ping" }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("JsonRpcRequest", { description: "One MCP message (JSON-RPC 2.0); a batch is an array of at most 10" });

export const jsonRpcResponseSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: jsonRpcId.nullable(),
    result: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "The method's result: for tools/call, a tool result (isError true for a refusal)" }),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional().openapi({ description: "A protocol error" }),
  })
  .openapi("JsonRpcResponse");

/** A JSON-RPC error the endpoint answers itself: before any message is handled (`id` null), or to one malformed request. */
export const protocolError = (error: { code: number; message: string }, id: string | number | null = null): z.infer<typeof jsonRpcResponseSchema> => ({
  jsonrpc: "2.0",
  id,
  error: { code: error.code, message: error.message },
});
