import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { isPublicRead } from "./public-reads";
import { BOOKMARK_HEADER, Sessions } from "./sessions";

/**
 * Every request gets its sessions; `db` is the control database's. Every response carries the newest
 * bookmarks it saw, including those of writes made by an agent's object.
 */
export const d1Session: MiddlewareHandler<AppEnv> = async (c, next) => {
  const method = c.req.method;
  const start = method !== "GET" && method !== "HEAD" ? "write" : isPublicRead(c.req.path) ? "replica" : "primary";
  const sessions = new Sessions(c.env, Sessions.parse(c.req.header(BOOKMARK_HEADER)), start);
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
