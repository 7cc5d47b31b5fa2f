// The migration sweep on storage the earlier contract wrote (test/fixtures/earlier-contract.json: an
// agent object of release 1.1.0 with three journal entries its shard never got, idempotency records
// of the last day and an event it never sent, dumped with its shard's and control database's rows).

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import fixture from "../fixtures/earlier-contract.json";
import { holdQueues } from "../queues";
import type { Agent } from "../agent-under-test";
import { ADMIN, bearer, shardOf, testApp, T_CALL } from "../helpers";

type Row = Record<string, unknown>;
// BLOB columns come back from D1 as arrays of bytes.
const value = (v: unknown) => (Array.isArray(v) ? new Uint8Array(v as number[]) : v);

async function insert(d1: D1Database, table: string, rows: Row[]) {
  for (const r of rows) {
    const cols = Object.keys(r);
    await d1.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).bind(...cols.map((c) => value(r[c]) ?? null)).run();
  }
}

const tablesOf = (sid: string) =>
  runInDurableObject(env.AGENT.getByName(sid), (_o, state) =>
    state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'").toArray().map((t) => t.name),
  );

describe("npm run admin -- migrate-objects", () => {
  it("moves an earlier-contract object's journal, answers and unsent events to the shard, empties its storage, and moves nothing twice", async () => {
    const { sid } = fixture;
    // An hour after the earlier object's last change (the fixture's clock): its records are an hour old.
    const at = T_CALL + 3_600_000;
    const h = testApp({ now: at });
    const call = (path: string, init: { headers?: Record<string, string>; body?: unknown }) => h.request(path, init);
    for (const [table, rows] of Object.entries(fixture.control)) await insert(env.DB, table, rows as Row[]);
    const shard = await shardOf(sid);
    for (const [table, rows] of Object.entries(fixture.shard)) await insert(shard, table, rows as Row[]);
    await runInDurableObject(env.AGENT.getByName(sid), (o, state) => {
      (o as Agent).clock = () => at;
      for (const t of fixture.storage) {
        state.storage.sql.exec(t.sql);
        for (const r of t.rows as Row[]) {
          const cols = Object.keys(r);
          state.storage.sql.exec(`INSERT INTO ${t.name} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`, ...cols.map((c) => (value(r[c]) ?? null) as SqlStorageValue));
        }
      }
    });
    expect((await tablesOf(sid)).length).toBeGreaterThan(5);
    const before = await shard.prepare("SELECT seq, contract FROM agents WHERE sid = ?").bind(sid).first<{ seq: number; contract: number }>();
    expect(before).toEqual({ seq: 3, contract: 1 });

    const queues = holdQueues();
    try {
      const swept = await call("/admin/migrate-objects", { headers: ADMIN, body: {} });
      expect(swept.status, await swept.clone().text()).toBe(200);
      expect(await swept.json()).toEqual({ total: 1, visited: 1, moved: 1, failed: [], next: null });
      // The event the object never sent went out, under its own id.
      expect(queues.pending.filter((m) => m.queue === "trust-events").map((m) => (m.body as { id: string }).id)).toContain("evt_b2b61d9c12377fa3_b58d6885635e_1");
    } finally {
      queues.release();
    }
    expect(await tablesOf(sid)).toEqual([]);
    const after = await shard.prepare("SELECT seq, contract, status, published FROM agents WHERE sid = ?").bind(sid).first<{ seq: number; contract: number; status: string; published: number }>();
    // Moved to version 4: the history replayed under it (every pair written), then its `model` entry.
    expect(after).toMatchObject({ seq: 7, contract: 3, status: "suspended" });
    const entries = await shard.prepare("SELECT n, kind, body FROM entries WHERE sid = ? ORDER BY n").bind(sid).all<{ n: number; kind: string }>();
    expect(entries.results.map((e) => e.n)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(entries.results.map((e) => e.kind).slice(-2)).toEqual(["status", "model"]);
    const pairs = await shard.prepare("SELECT operator_id FROM pairs WHERE sid = ? ORDER BY operator_id").bind(sid).all<{ operator_id: number }>();
    expect(pairs.results.map((p) => p.operator_id)).toContain(fixture.reporter.id);

    // A report the earlier object answered, repeated with its key, is replayed from its entry on the shard.
    for (const key of ["pending-1", "pending-2"] as const) {
      const again = await call("/transactions", { headers: bearer(fixture.reporter.key, { "idempotency-key": key }), body: { sid, transactionType: "task", outcome: "success", qualitySignal: key === "pending-1" ? 900 : 300 } });
      expect(again.status).toBe(201);
      const body = (await again.json()) as { transaction_id: number; updated_scores: unknown };
      expect(body.transaction_id).toBe(fixture.answers[key].transaction_id);
      expect(body.updated_scores).toEqual(fixture.answers[key].updated_scores);
    }
    const score = await call(`/score/${sid}`, { headers: bearer(fixture.owner.key) });
    expect(score.status).toBe(200);

    // A second sweep finds nothing to move.
    const again = await call("/admin/migrate-objects", { headers: ADMIN, body: { after: 0, limit: 10 } });
    expect(await again.json()).toEqual({ total: 1, visited: 1, moved: 0, failed: [], next: null });
    expect((await shard.prepare("SELECT count(*) AS n FROM entries WHERE sid = ?").bind(sid).first<{ n: number }>())!.n).toBe(7);
  });
});
