// Rows as JSON arrays bound to one statement each (src/db/json-rows.ts): every row once, in order,
// no array over the bound unless one row alone is.

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PUT_ANSWERS } from "../../src/db/earlier-contract";
import { JSON_ROWS_MAX, jsonRowChunks } from "../../src/db/json-rows";
import { shardDatabases } from "../../src/env";
import { readAgentRows } from "../../src/db/agents";
import { statusEntriesOf } from "../../src/db/directory";
import { createOperator, registerAgent, shardOf } from "../helpers";

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

describe("a list bound as one JSON array (inJson)", () => {
  // D1 binds at most 100 parameters a statement: each of these once bound a parameter a SID, so
  // GET /me?limit=200 over more than 100 agents on one shard, or a status-list feed of many, failed.
  const unknown = Array.from({ length: 200 }, (_, i) => `SID-0x${(0xbeef0000 + i).toString(16).padStart(16, "0")}`);

  it("reads the agents' rows of a shard for any number of SIDs", async () => {
    const owner = await createOperator();
    const registered = [(await registerAgent(owner.key)).sid, (await registerAgent(owner.key)).sid];
    for (const sid of registered) {
      const rows = await readAgentRows(await shardOf(sid), [...unknown, sid]);
      expect(rows.map((r) => r.sid)).toEqual([sid]);
    }
  });

  it("reads the status-list places of any number of SIDs", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const places = await statusEntriesOf(env.DB, [...unknown, sid]);
    expect([...places.keys()].every((s) => s === sid)).toBe(true);
  });
});
