import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";

export const BOOKMARK_HEADER = "X-D1-Bookmark";
// D1 bookmarks are fixed-width hex groups, so the later of two compares greater as a string.
const BOOKMARK_PATTERN = /^[0-9a-f-]{8,128}$/i;

const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

/**
 * Every request gets a D1 session (Sessions API): with read replication on, its reads are served
 * by the nearest replica. A client that sends back the X-D1-Bookmark of an earlier response reads
 * data at least as new as that response (its own writes included); every response carries the
 * newest bookmark it saw, including the one of a write made by an agent's scorer.
 */
export const d1Session: MiddlewareHandler<AppEnv> = async (c, next) => {
  const asked = c.req.header(BOOKMARK_HEADER);
  const session = c.env.DB.withSession(asked && BOOKMARK_PATTERN.test(asked) ? asked : "first-unconstrained");
  c.set("db", session);
  c.set("bookmark", null);
  await next();
  const bookmark = later(session.getBookmark(), c.get("bookmark"));
  if (!bookmark) return;
  try {
    c.res.headers.set(BOOKMARK_HEADER, bookmark);
  } catch {
    // A response with immutable headers (e.g. straight from the cache) goes out without it.
  }
};

export const noteBookmark = (c: { get: (k: "bookmark") => string | null; set: (k: "bookmark", v: string | null) => void }, bookmark: string | null) =>
  c.set("bookmark", later(c.get("bookmark"), bookmark));
