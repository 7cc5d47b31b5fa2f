import type { Database } from "../db/client";
import { shardDatabases, shardName, type Env } from "../env";

export const BOOKMARK_HEADER = "X-D1-Bookmark";
// D1 bookmarks are fixed-width hex groups, so the later of two compares greater as a string.
const BOOKMARK = /^[0-9a-f-]{8,128}$/i;
const DATABASE = /^(DB|SHARD_[0-9]{1,4})$/;

const later = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

/** Bookmarks by database name (DB, SHARD_0, ...). */
export type Bookmarks = Record<string, string>;

/**
 * Where a request reads a database the client sent no bookmark for: `replica`, any replica (public
 * reads, whose answers may be as old as their cache anyway); `primary`, the primary through the
 * binding itself (keyed reads: the newest state, and no bookmark to keep); `write`, a session that
 * starts at the primary, so that the answer carries the bookmark of what the request wrote.
 */
export type Start = "replica" | "primary" | "write";

/**
 * A request's D1 sessions (Sessions API), one per database it touches: with read replication on,
 * a database the client sent a bookmark for is read from the nearest replica at least as new as it.
 * X-D1-Bookmark names each database: `DB=<bookmark>,SHARD_1=<bookmark>`.
 */
export class Sessions {
  private readonly opened = new Map<string, Database>();
  private readonly written: Bookmarks = {};

  constructor(
    private readonly env: Env,
    private readonly asked: Bookmarks,
    private readonly start: Start,
  ) {}

  static parse(header: string | undefined): Bookmarks {
    const asked: Bookmarks = {};
    for (const part of (header ?? "").split(",")) {
      const [name, value] = part.trim().split("=");
      if (name && value && DATABASE.test(name) && BOOKMARK.test(value)) asked[name] = value;
    }
    return asked;
  }

  control(): Database {
    return this.open("DB", this.env.DB);
  }

  shard(n: number): Database {
    const database = shardDatabases(this.env)[n];
    if (!database) throw new Error(`no shard ${n}`);
    return this.open(shardName(n), database);
  }

  /** Bookmarks of writes made elsewhere for this request (an agent's object). */
  note(bookmarks: Bookmarks | undefined) {
    for (const [name, value] of Object.entries(bookmarks ?? {})) this.written[name] = later(this.written[name], value)!;
  }

  /** The newest bookmark of every database the request wrote, or read through a session. */
  header(): string | null {
    const all: Bookmarks = { ...this.written };
    for (const [name, session] of this.opened) {
      const seen = ("getBookmark" in session ? session.getBookmark() : null) ?? undefined;
      const newest = later(all[name], seen);
      if (newest) all[name] = newest;
    }
    const parts = Object.entries(all).map(([name, value]) => `${name}=${value}`);
    return parts.length > 0 ? parts.join(",") : null;
  }

  private open(name: string, database: D1Database): Database {
    let session = this.opened.get(name);
    if (!session) {
      const bookmark = this.asked[name];
      // A keyed read without a bookmark needs no session: the binding itself reads the primary.
      if (bookmark === undefined && this.start === "primary") session = database;
      else session = database.withSession(bookmark ?? (this.start === "replica" ? "first-unconstrained" : "first-primary"));
      this.opened.set(name, session);
    }
    return session;
  }
}
