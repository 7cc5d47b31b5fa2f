import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export const db = (d1: D1Database | D1DatabaseSession) => drizzle(d1 as D1Database, { schema });
export type Db = ReturnType<typeof db>;

/** SQLite's UNIQUE/PRIMARY KEY violation, as D1 reports it. */
export const isUniqueViolation = (err: unknown) =>
  /UNIQUE constraint failed|SQLITE_CONSTRAINT/i.test(String((err as Error)?.message ?? err) + String((err as { cause?: unknown })?.cause ?? ""));
