import { sql, type Column } from "drizzle-orm";

// Many rows in few statements: each statement binds one JSON array of rows (read back with
// `json_each(?)`), up to JSON_ROWS_MAX characters. A Worker invocation may run at most 1,000 D1
// queries; a change or a move that writes one statement a row passes that on a large agent.

/**
 * The most characters one statement binds. The rows are ASCII today (hex keys, numbers, key names,
 * JSON text), but a character may take up to 3 bytes: 600,000 stays under D1's 2 MB string limit.
 */
export const JSON_ROWS_MAX = 600_000;

/** Each row as a JSON array of its values, grouped into JSON arrays of at most JSON_ROWS_MAX characters. */
export function jsonRowChunks(rows: Iterable<readonly unknown[]>): string[] {
  const chunks: string[] = [];
  let part: string[] = [];
  let size = 2;
  for (const row of rows) {
    const text = JSON.stringify(row);
    if (part.length > 0 && size + text.length + 1 > JSON_ROWS_MAX) {
      chunks.push(`[${part.join(",")}]`);
      part = [];
      size = 2;
    }
    part.push(text);
    size += text.length + 1;
  }
  if (part.length > 0) chunks.push(`[${part.join(",")}]`);
  return chunks;
}

/**
 * `column IN (values)` with the values bound as one JSON array: D1 binds at most 100 parameters a
 * statement, and drizzle's `inArray` binds one a value.
 */
export const inJson = (column: Column, values: readonly (string | number)[]) => sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
