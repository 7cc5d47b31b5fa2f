import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

/** The database or a Sessions API session on it (reads may come from the nearest replica). */
export type Database = D1Database | D1DatabaseSession;

// A session has prepare() and batch(), all that drizzle's D1 driver uses.
export const db = (d1: Database) => drizzle(d1 as D1Database, { schema });

/** SQLite's UNIQUE/PRIMARY KEY violation, as D1 reports it. */
export const isUniqueViolation = (err: unknown) =>
  /UNIQUE constraint failed|SQLITE_CONSTRAINT/i.test(String((err as Error)?.message ?? err) + String((err as { cause?: unknown })?.cause ?? ""));
