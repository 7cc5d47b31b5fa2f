import { z } from "zod";
import { errors } from "../domain/errors";

// Cursor pagination for every list: `limit` (default 50, at most 200) and an opaque `cursor`; the
// answer's `next_cursor` is null on the last page. A cursor is base64url JSON of the last row's
// sort key: opaque to clients, checked like any other input.

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

export function writeCursor(position: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(position));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The position a cursor names, checked against the list's own shape; 400 for anything else. */
export function readCursor<T>(cursor: string | undefined, shape: z.ZodType<T>): T | null {
  if (cursor === undefined) return null;
  try {
    if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) throw new Error("not base64url");
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    const position = shape.safeParse(JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)))));
    if (position.success) return position.data;
  } catch {
    // Falls through to the refusal.
  }
  throw errors.badCursor();
}

/** Rows fetched with `limit + 1` become one page and the cursor after it. */
export function pageOf<T>(rows: T[], limit: number, positionOf: (last: T) => unknown): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: writeCursor(positionOf(items[items.length - 1])) };
}
