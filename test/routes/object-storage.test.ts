// The agent object's storage on the report path: rows a report passes through are reused instead of
// deleted and inserted again (storage is billed by the row written), and storage made in the older
// shapes (an AUTOINCREMENT journal, keyed tables with a rowid and an index, an index on report
// times) is given the present ones at the object's next start, its rows kept.

import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bearer, createOperator, registerAgent, shardOf, testApp } from "../helpers";

const DAY = 86_400_000;

const tableSql = (sid: string) =>
  runInDurableObject(env.AGENT.getByName(sid), (_o, state) =>
    Object.fromEntries(state.storage.sql.exec<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL").toArray().map((r) => [r.name, r.sql])),
  );

const count = (sid: string, table: string) =>
  runInDurableObject(env.AGENT.getByName(sid), (_o, state) => state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n);

async function world() {
  const h = testApp({ now: Date.parse("2026-11-21T10:00:30Z") });
  const owner = await createOperator();
  const reporter = await createOperator();
  const { sid } = await registerAgent(owner.key);
  const report = async (key?: string) => {
    const res = await h.request("/transactions", {
      headers: bearer(reporter.key, key ? { "idempotency-key": key } : {}),
      body: { sid, transactionType: "task", outcome: "success" },
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown>;
  };
  return { h, sid, report };
}

const rowTimes = (sid: string) =>
  runInDurableObject(env.AGENT.getByName(sid), (_o, state) =>
    state.storage.sql.exec<{ at: number; times: string }>("SELECT at, times FROM recent_times ORDER BY rowid").toArray().map((r) => ({ at: r.at, times: JSON.parse(r.times) as [number, number][] })),
  );

describe("the agent object's storage", () => {
  it("reuses the rows of report times past both damping windows and of journal entries the shard has", async () => {
    const { h, sid, report } = await world();
    for (let i = 0; i < 5; i++) await report();
    expect(await count(sid, "recent_times")).toBe(5);
    // Each change took over the row of the entry before it, which its shard batch had applied.
    expect(await count(sid, "journal")).toBe(1);
    // One damping window later the old times still count for the replay's tolerance: new rows.
    h.clock.now += DAY + 60_000;
    for (let i = 0; i < 3; i++) await report();
    expect(await count(sid, "recent_times")).toBe(8);
    // Past two windows the oldest are reused, one by one, and move to the end of the order.
    h.clock.now += DAY;
    for (let i = 0; i < 3; i++) await report();
    expect(await count(sid, "recent_times")).toBe(8);
    const times = (await rowTimes(sid)).map((r) => r.at);
    expect(times.slice(-3)).toEqual([h.clock.now, h.clock.now, h.clock.now]);
    expect(times.filter((t) => t <= h.clock.now - 2 * DAY)).toHaveLength(2);
    expect(await count(sid, "journal")).toBe(1);
  });

  it("keeps a group's report times in one row and its leaves in one outbox row, and damps by every time in them", async () => {
    const h = testApp({ now: Date.parse("2026-11-21T10:00:30Z") });
    const owner = await createOperator();
    const reporter = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const batch = (n: number, tag: string) =>
      h.request("/transactions/batch", {
        headers: bearer(reporter.key),
        body: { transactions: Array.from({ length: n }, (_, i) => ({ sid, transactionType: "task", outcome: i % 2 ? "failure" : "success", idempotency_key: `${tag}-${i}` })) },
      });
    const first = await batch(10, "a");
    expect(first.status).toBe(200);
    const rows = await rowTimes(sid);
    expect(rows).toHaveLength(1);
    expect(rows[0].times).toHaveLength(10);
    expect(rows[0].at).toBe(h.clock.now);
    const outbox = await runInDurableObject(env.AGENT.getByName(sid), (_o, state) =>
      state.storage.sql.exec<{ n: number; leaf: string }>("SELECT n, leaf FROM log_outbox ORDER BY n").toArray(),
    );
    // The registration's leaf in its own row; the group's (the new reporter's credibility entry and
    // the ten reports) in one, named by its greatest seq.
    expect(outbox.map((r) => (JSON.parse(r.leaf) as { seq: number }[]).map((l) => l.seq))).toEqual([[1], [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]]);
    expect(outbox.map((r) => r.n)).toEqual([1, 12]);
    // A new life reads the ten times back: the next report is damped as the eleventh of the window,
    // exactly as in an object that never left memory.
    const twin = await registerAgent(owner.key);
    await h.request("/transactions/batch", {
      headers: bearer(reporter.key),
      body: { transactions: Array.from({ length: 10 }, (_, i) => ({ sid: twin.sid, transactionType: "task", outcome: i % 2 ? "failure" : "success", idempotency_key: `b-${i}` })) },
    });
    await evictDurableObject(env.AGENT.getByName(sid));
    const one = async (s: string) => {
      const res = await h.request("/transactions", { headers: bearer(reporter.key), body: { sid: s, transactionType: "task", outcome: "failure" } });
      expect(res.status).toBe(201);
      return runInDurableObject(env.AGENT.getByName(s), (o) => {
        const kernel = (o as unknown as { kernel: { recent: Map<number, number[]>; stored(): { evidence: unknown } } }).kernel;
        return { times: [...kernel.recent.values()].map((t) => t.length), evidence: kernel.stored().evidence };
      });
    };
    const [evicted, kept] = [await one(sid), await one(twin.sid)];
    expect(evicted.times).toEqual([11]);
    expect(evicted.evidence).toEqual(kept.evidence);
  });

  it("never gives a journal id twice: not after the alarm empties the journal, not after memory is dropped, not after a restart", async () => {
    const { sid, report } = await world();
    const stub = env.AGENT.getByName(sid);
    const ids = () => runInDurableObject(stub, (_o, state) => state.storage.sql.exec<{ id: number }>("SELECT id FROM journal ORDER BY id").toArray().map((r) => r.id));
    const onShard = async () => (await (await shardOf(sid)).prepare("SELECT count(*) AS n FROM entries WHERE sid = ?").bind(sid).first<{ n: number }>())!.n;
    await report();
    await report();
    const [last] = (await ids()).slice(-1);
    // The alarm drops the entries the shard has: the journal is empty.
    await runInDurableObject(stub, async (_o, state) => {
      if ((await state.storage.getAlarm()) === null) await state.storage.setAlarm(Date.now() + DAY);
    });
    await runDurableObjectAlarm(stub);
    expect(await ids()).toEqual([]);
    // What memory holds goes (as after any failed transaction): the next change still gets a new id, and reaches the shard.
    await runInDurableObject(stub, (o) => (o as unknown as { kernel: { forget(): void } }).kernel.forget());
    const before = await onShard();
    await report();
    expect(await ids()).toEqual([last + 1]);
    expect(await onShard()).toBe(before + 1);
    // And in a new life of the object.
    await runDurableObjectAlarm(stub).catch(() => undefined);
    await runInDurableObject(stub, (_o, state) => state.storage.sql.exec("DELETE FROM journal"));
    await evictDurableObject(stub);
    await report();
    expect((await ids()).at(-1)).toBeGreaterThan(last + 1);
    expect(await onShard()).toBe(before + 2);
  });

  it("gives storage of the older shapes the present ones at its next start, keeping its rows and answers", async () => {
    const { sid, report } = await world();
    const first = await report("kept-answer");
    const stub = env.AGENT.getByName(sid);
    await report();
    const before = { times: (await rowTimes(sid)).flatMap((r) => r.times), journal: await count(sid, "journal"), idempotency: await count(sid, "idempotency") };
    await runInDurableObject(stub, (_o, state) => {
      const sql = state.storage.sql;
      const old = (table: string, create: string, columns: string) => {
        sql.exec(`ALTER TABLE ${table} RENAME TO ${table}_was`);
        sql.exec(create);
        sql.exec(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM ${table}_was`);
        sql.exec(`DROP TABLE ${table}_was`);
      };
      old("journal", "CREATE TABLE journal (id INTEGER PRIMARY KEY AUTOINCREMENT, shard TEXT NOT NULL, control TEXT NOT NULL)", "id, shard, control");
      old(
        "idempotency",
        "CREATE TABLE idempotency (operator_id INTEGER NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, result TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (operator_id, key))",
        "operator_id, key, request_hash, result, created_at",
      );
      old("receipts", "CREATE TABLE receipts (jti TEXT PRIMARY KEY, at INTEGER NOT NULL, forget_at INTEGER)", "jti, at, forget_at");
      sql.exec("INSERT INTO receipts (jti, at, forget_at) VALUES ('spent', 1, 99999999999999)");
      // Report times one per row, as they were kept before a change's times shared a row.
      sql.exec("CREATE TABLE recent (reporter INTEGER NOT NULL, at INTEGER NOT NULL)");
      sql.exec("CREATE INDEX recent_at ON recent (at)");
      for (const r of sql.exec<{ times: string }>("SELECT times FROM recent_times ORDER BY rowid").toArray()) {
        for (const [reporter, at] of JSON.parse(r.times) as [number, number][]) sql.exec("INSERT INTO recent (reporter, at) VALUES (?, ?)", reporter, at);
      }
      sql.exec("DROP TABLE recent_times");
      // A leaf kept alone in its row (an object, not a list), as before a change's leaves shared one.
      sql.exec("UPDATE log_outbox SET leaf = json_extract(leaf, '$[0]') WHERE json_array_length(leaf) = 1");
      sql.exec("UPDATE meta SET value = '\"s0\"' WHERE key = 'schema'");
    });
    await evictDurableObject(stub);
    // The next call starts the object: its tables take their present shapes.
    expect(await report("kept-answer")).toEqual(first);
    const shapes = await tableSql(sid);
    expect(shapes.journal).not.toMatch(/AUTOINCREMENT/i);
    expect(shapes.idempotency).toMatch(/WITHOUT ROWID/i);
    expect(shapes.receipts).toMatch(/WITHOUT ROWID/i);
    expect(shapes.recent_at).toBeUndefined();
    expect(shapes.recent).toBeUndefined();
    expect(Object.keys(shapes).filter((n) => n.endsWith("_reshaped"))).toEqual([]);
    // The old rows' times, in one row, then the start's report's in its own.
    const moved = await rowTimes(sid);
    expect(moved).toHaveLength(1);
    expect(moved[0].times).toEqual(before.times);
    // Leaves of both shapes are read back in order, once each.
    const pending = await runInDurableObject(stub, (o, state) => {
      state.storage.sql.exec("UPDATE meta SET value = '0' WHERE key = 'log_acked'");
      const kernel = (o as unknown as { kernel: { forget(): void; chain: { pending(): { seq: number }[] } } }).kernel;
      kernel.forget();
      return kernel.chain.pending().map((l) => l.seq);
    });
    // The registration, the reporter's credibility entry and the two reports.
    expect(pending).toEqual([1, 2, 3, 4]);
    expect(await count(sid, "journal")).toBe(before.journal);
    expect(await count(sid, "idempotency")).toBe(before.idempotency);
    expect(await runInDurableObject(stub, (_o, state) => state.storage.sql.exec("SELECT jti FROM receipts WHERE jti = 'spent'").toArray())).toEqual([{ jti: "spent" }]);
    // And the object goes on: a new report takes the next journal id. A new object life does not
    // know which entries the shard has until its first batch, so that change adds a row; from then
    // on each change takes over the oldest applied one.
    const next = await report("new-answer");
    expect(next).not.toEqual(first);
    const ids = async () =>
      runInDurableObject(stub, (_o, state) => state.storage.sql.exec<{ id: number }>("SELECT id FROM journal ORDER BY id").toArray().map((r) => r.id));
    const [a, b] = await ids();
    await report();
    expect(await ids()).toEqual([b, b + 1]);
    expect(a).toBeLessThan(b);
  });
});
