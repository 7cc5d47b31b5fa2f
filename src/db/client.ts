import { drizzle } from "drizzle-orm/d1";

/** The database or a Sessions API session on it (reads may come from the nearest replica). */
export type Database = D1Database | D1DatabaseSession;

// A session has prepare() and batch(), all that drizzle's D1 driver uses. No relational schema is
// passed: building its config costs CPU on every call, and only the query builder is used.
export const db = (d1: Database) => drizzle(d1 as D1Database);

/** SQLite's UNIQUE/PRIMARY KEY violation, as D1 reports it. */
export const isUniqueViolation = (err: unknown) =>
  /UNIQUE constraint failed|SQLITE_CONSTRAINT/i.test(String((err as Error)?.message ?? err) + String((err as { cause?: unknown })?.cause ?? ""));
