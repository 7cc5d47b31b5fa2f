import type { Context } from "hono";
import type { Env } from "../env";
import type { AppEnv } from "./context";
import { BOOKMARK_HEADER, Sessions } from "./sessions";

// A route of this app called from inside another request, in-process, as the caller would call it:
// the same middleware (limits, keys, scopes, validation, idempotency) with the caller's credential,
// address, wire form and D1 bookmarks. Features that re-present REST routes (the MCP tools) go
// through it, so they can never behave differently from the routes.

/** What the caller's request lends the sub-request. */
const LENT = ["authorization", "cf-connecting-ip", "api-version", BOOKMARK_HEADER] as const;

export type AppFetch = (request: Request, env: Env, ctx: Context<AppEnv>["executionCtx"]) => Response | Promise<Response>;

export interface RouteCall {
  method: "GET" | "POST";
  /** The path, its variable parts already checked (a SID matches its pattern): never a raw argument. */
  path: string;
  body?: unknown;
  idempotencyKey?: string;
}

export interface RouteAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

/**
 * Calls the route at `call.path` through `fetch` (the app's own). The answer's bookmarks join the
 * caller's, so the caller's response carries them as the route's would.
 */
export async function callRoute(c: Context<AppEnv>, fetch: AppFetch, call: RouteCall): Promise<RouteAnswer> {
  const headers = new Headers({ "X-Request-Id": c.get("requestId") });
  for (const name of LENT) {
    const value = c.req.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  if (call.idempotencyKey !== undefined) headers.set("Idempotency-Key", call.idempotencyKey);
  let body: string | undefined;
  if (call.body !== undefined) {
    body = JSON.stringify(call.body);
    headers.set("Content-Type", "application/json");
  }
  // The caller's origin with this path: a path can never name another host.
  const url = new URL(c.req.url);
  url.pathname = call.path;
  url.search = "";
  const response = await fetch(new Request(url, { method: call.method, headers, body }), c.env, c.executionCtx);
  c.get("sessions").note(Sessions.parse(response.headers.get(BOOKMARK_HEADER) ?? undefined));
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed, headers: response.headers };
}
