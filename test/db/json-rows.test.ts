// Rows as JSON arrays bound to one statement each (src/db/json-rows.ts): every row once, in order,
// no array over the bound unless one row alone is.

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PUT_ANSWERS } from "../../src/db/earlier-contract";
import { JSON_ROWS_MAX, jsonRowChunks } from "../../src/db/json-rows";
import { shardDatabases } from "../../src/env";

describe("rows in JSON chunks", () => {
  it("keeps every row once and in order, each chunk within the bound", () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => [i, "x".repeat(300), { h: 'a"b\\c', r: [i] }]);
    const chunks = jsonRowChunks(rows);
    const total = rows.reduce((n, r) => n + JSON.stringify(r).length + 1, 1);
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(total / JSON_ROWS_MAX));
    expect(chunks.length).toBeLessThanOrEqual(Math.ceil(total / JSON_ROWS_MAX) + 1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(JSON_ROWS_MAX);
    expect(chunks.flatMap((c) => JSON.parse(c) as unknown[])).toEqual(rows);
  });

  it("gives nothing for no rows, and a row over the bound a chunk of its own", () => {
    expect(jsonRowChunks([])).toEqual([]);
    const big = ["y".repeat(JSON_ROWS_MAX)];
    const chunks = jsonRowChunks([[1], big, [2]]);
    expect(chunks.map((c) => JSON.parse(c) as unknown[])).toEqual([[[1]], [big], [[2]]]);
  });

  it("are read once by a statement that joins them to an agent's entries: each row finds its entry by key", async () => {
    // Joined straight to json_each, SQLite scans the JSON again for every entry of the agent.
    const json = jsonRowChunks([[1, "7\nkey", '{"h":"x"}']])[0];
    const { results } = await shardDatabases(env)[0]
      .prepare(`EXPLAIN QUERY PLAN ${PUT_ANSWERS}`)
      .bind(json, "SID-0x0123456789abcdef")
      .all<{ detail: string }>();
    const plan = results.map((r) => r.detail).join(" | ");
    expect(plan).toContain("MATERIALIZE j");
    expect(plan).toMatch(/SEARCH entries USING PRIMARY KEY \(sid=\? AND n=\?\)/);
  });
});
