// How a change writes the pairs it moved (src/db/pairs.ts): a few statements whatever their number,
// since a Worker invocation may run at most 1,000 D1 queries and a configuration change moves every
// pair of an agent; and what is read back is what was written, byte for byte.

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { JSON_ROWS_MAX } from "../../src/db/json-rows";
import { putPairs, readAllPairs, type PairRow } from "../../src/db/pairs";
import { shardStatements } from "../../src/db/shard-writes";
import { observe } from "../../src/domain/model";
import { shardDatabases } from "../../src/env";
import { T_CALL } from "../helpers";

const reporterKey = (i: number) => i.toString(16).padStart(64, "0");

/** A pair as the model makes it: `reports` reports of a reporter, the last one failing when asked. */
function pairOf(i: number, failing = false): PairRow {
  let pair = observe(
    null,
    { reporter: reporterKey(i), at: T_CALL + i, outcome: "success", signals: { quality: 700 + (i % 300), financial: 900 }, receipt: i % 3 === 0 },
    false,
  );
  pair = observe(pair, { reporter: reporterKey(i), at: T_CALL + i + 1, outcome: failing ? "failure" : "success", signals: {}, receipt: false }, false);
  return { pair: { ...pair, firstReceiptAt: i % 3 === 0 ? T_CALL + i : null }, operatorId: 100_000 + i };
}

describe("the pairs a change writes", () => {
  it("go in a few statements, none binding more than the bound, and read back as written", async () => {
    const shard = shardDatabases(env)[0];
    const sid = "SID-0x00000000000ba1a1";
    const rows = Array.from({ length: 20_000 }, (_, i) => pairOf(i, i % 10 === 0));
    const statements = putPairs(shard, sid, rows);
    expect(statements.length).toBeGreaterThan(1);
    expect(statements.length).toBeLessThan(20);
    // What each statement binds: the sid, then one JSON array of rows within the bound.
    const bound: unknown[][] = [];
    const recorder = { prepare: () => ({ bind: (...args: unknown[]) => (bound.push(args), {}) }) } as unknown as D1Database;
    putPairs(recorder, sid, rows);
    expect(bound).toHaveLength(statements.length);
    for (const [boundSid, json] of bound) {
      expect(boundSid).toBe(sid);
      expect(new TextEncoder().encode(json as string).length).toBeLessThanOrEqual(JSON_ROWS_MAX);
      expect(Array.isArray(JSON.parse(json as string))).toBe(true);
    }
    expect(bound.reduce((n, [, json]) => n + (JSON.parse(json as string) as unknown[]).length, 0)).toBe(rows.length);
    // A change that replaces every pair: the DELETE, then as few statements.
    expect(shardStatements(shard, [{ kind: "pairs", sid, rows, replaced: true }])).toHaveLength(statements.length + 1);
    await shard.batch(statements);
    const read = await readAllPairs(shard, sid);
    expect(read.size).toBe(rows.length);
    for (const row of rows) expect(read.get(row.pair.reporter)).toEqual(row);
    const columns = await shard
      .prepare(
        "SELECT operator_id, vote, first_at, receipt_day, pair, typeof(operator_id) || typeof(vote) || typeof(first_at) || typeof(receipt_day) AS types FROM pairs WHERE sid = ? AND reporter = ?",
      )
      .bind(sid, reporterKey(3))
      .first<{ operator_id: number; vote: number; first_at: number; receipt_day: number; pair: string; types: string }>();
    const { reporter: _key, ...stored } = rows[3].pair;
    expect(columns).toEqual({
      operator_id: 100_003,
      vote: rows[3].pair.votes.stability,
      first_at: T_CALL + 3,
      receipt_day: Math.floor((T_CALL + 3) / 86_400_000),
      // The state's text as the model's JSON gives it, byte for byte; the numbers as integers.
      pair: JSON.stringify(stored),
      types: "integer".repeat(4),
    });
    const none = await shard.prepare("SELECT receipt_day FROM pairs WHERE sid = ? AND reporter = ?").bind(sid, reporterKey(1)).first<{ receipt_day: number }>();
    expect(none!.receipt_day).toBe(-1);
  });

  it("splits where the rows' text would pass the bound", () => {
    const shard = shardDatabases(env)[0];
    const one = JSON.stringify(pairOf(1).pair).length;
    const perStatement = Math.floor(JSON_ROWS_MAX / (one + 60));
    const rows = Array.from({ length: perStatement * 3 }, (_, i) => pairOf(i));
    const statements = putPairs(shard, "SID-0x00000000000ba1a2", rows);
    expect(statements.length).toBeGreaterThanOrEqual(3);
    expect(statements.length).toBeLessThanOrEqual(4);
    expect(putPairs(shard, "SID-0x00000000000ba1a2", [])).toEqual([]);
    expect(putPairs(shard, "SID-0x00000000000ba1a2", [pairOf(1)])).toHaveLength(1);
  });

  it("update in place, and replace every pair of the agent when the change says so", async () => {
    const shard = shardDatabases(env)[0];
    const sid = "SID-0x00000000000ba1a3";
    await shard.batch(shardStatements(shard, [{ kind: "pairs", sid, rows: [pairOf(1), pairOf(2), pairOf(3)], replaced: false }]));
    const moved = pairOf(2, true);
    await shard.batch(shardStatements(shard, [{ kind: "pairs", sid, rows: [moved], replaced: false }]));
    expect([...(await readAllPairs(shard, sid)).values()]).toEqual([pairOf(1), moved, pairOf(3)]);
    await shard.batch(shardStatements(shard, [{ kind: "pairs", sid, rows: [pairOf(4)], replaced: true }]));
    expect([...(await readAllPairs(shard, sid)).values()]).toEqual([pairOf(4)]);
    await shard.batch(shardStatements(shard, [{ kind: "pairs", sid, rows: [], replaced: true }]));
    expect((await readAllPairs(shard, sid)).size).toBe(0);
  });
});
