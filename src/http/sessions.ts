import { shardDatabases, shardName, type Env } from "../env";

export const BOOKMARK_HEADER = "X-D1-Bookmark";
// D1 bookmarks are fixed-width hex groups, so the later of two compares greater as a string.
const BOOKMARK = /^[0-9a-f-]{8,128}$/i;
const DATABASE = /^(DB|SHARD_[0-9]{1,4})$/;

const later = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined ? a : a > b ? a : b);

/** Bookmarks by database name (DB, SHARD_0, ...). */
export type Bookmarks = Record<string, string>;

/**
 * A request's D1 sessions (Sessions API), one per database it touches: with read replication on,
 * reads are served by the nearest replica, at least as new as the bookmark the client sent back.
 * X-D1-Bookmark names each database: `DB=<bookmark>,SHARD_1=<bookmark>`.
 */
export class Sessions {
  private readonly opened = new Map<string, D1DatabaseSession>();
  private readonly written: Bookmarks = {};

  constructor(
    private readonly env: Env,
    private readonly asked: Bookmarks,
  ) {}

  static parse(header: string | undefined): Bookmarks {
    const asked: Bookmarks = {};
    for (const part of (header ?? "").split(",")) {
      const [name, value] = part.trim().split("=");
      if (name && value && DATABASE.test(name) && BOOKMARK.test(value)) asked[name] = value;
    }
    return asked;
  }

  control(): D1DatabaseSession {
    return this.open("DB", this.env.DB);
  }

  shard(n: number): D1DatabaseSession {
    const database = shardDatabases(this.env)[n];
    if (!database) throw new Error(`no shard ${n}`);
    return this.open(shardName(n), database);
  }

  /** Bookmarks of writes made elsewhere for this request (an agent's object). */
  note(bookmarks: Bookmarks | undefined) {
    for (const [name, value] of Object.entries(bookmarks ?? {})) this.written[name] = later(this.written[name], value)!;
  }

  /** The newest bookmark of every database the request touched. */
  header(): string | null {
    const all: Bookmarks = { ...this.written };
    for (const [name, session] of this.opened) {
      const seen = session.getBookmark() ?? undefined;
      const newest = later(all[name], seen);
      if (newest) all[name] = newest;
    }
    const parts = Object.entries(all).map(([name, value]) => `${name}=${value}`);
    return parts.length > 0 ? parts.join(",") : null;
  }

  private open(name: string, database: D1Database): D1DatabaseSession {
    let session = this.opened.get(name);
    if (!session) {
      session = database.withSession(this.asked[name] ?? "first-unconstrained");
      this.opened.set(name, session);
    }
    return session;
  }
}
