import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { isPublicRead } from "./public-reads";
import { BOOKMARK_HEADER, Sessions, type Start } from "./sessions";

/** Where a request without a bookmark reads (./sessions): public reads anywhere, other reads the primary, writes from the primary on. */
export function startOf(method: string, path: string): Start {
  if (method !== "GET" && method !== "HEAD") return "write";
  return isPublicRead(path) ? "replica" : "primary";
}

/**
 * Every request gets its sessions; `db` is the control database's. Every response carries the newest
 * bookmarks it saw, including those of writes made by an agent's object.
 */
export const d1Session: MiddlewareHandler<AppEnv> = async (c, next) => {
  const sessions = new Sessions(c.env, Sessions.parse(c.req.header(BOOKMARK_HEADER)), startOf(c.req.method, c.req.path));
  c.set("sessions", sessions);
  c.set("db", sessions.control());
  await next();
  const header = sessions.header();
  if (!header) return;
  try {
    c.res.headers.set(BOOKMARK_HEADER, header);
  } catch {
    // A response with immutable headers (e.g. straight from the cache) goes out without it.
  }
};
