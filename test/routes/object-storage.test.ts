// The agent object's storage on the report path: a change's journal entry rides in the agent's row,
// its report times and leaves share a row each, rows a report passes through are reused instead of
// deleted and inserted again (storage is billed by the row written), and storage made in the older
// shapes (a journal table, an AUTOINCREMENT journal, keyed tables with a rowid and an index, report
// times one per row) is given the present ones at the object's next start, its rows kept.

import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, bearer, call, createOperator, registerAgent, shardOf, testApp } from "../helpers";

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
  return { h, sid, report, reporter };
}

/** The journal's ids: those in the agent's row and those in the journal table (`table`). */
const journal = (sid: string) =>
  runInDurableObject(env.AGENT.getByName(sid), (_o, state) => {
    const row = state.storage.sql.exec<{ journal: string | null }>("SELECT journal FROM agent WHERE id = 1").one();
    return {
      inline: (JSON.parse(row.journal ?? "[]") as { id: number }[]).map((j) => j.id),
      table: state.storage.sql.exec<{ id: number }>("SELECT id FROM journal ORDER BY id").toArray().map((r) => r.id),
    };
  });
const journalIds = async (sid: string) => {
  const { inline, table } = await journal(sid);
  return [...inline, ...table].sort((a, b) => a - b);
};

const inlineTimes = (sid: string) =>
  runInDurableObject(env.AGENT.getByName(sid), (_o, state) => JSON.parse(state.storage.sql.exec<{ times: string }>("SELECT times FROM agent").one().times) as [number, number][]);

const rowTimes = (sid: string) =>
  runInDurableObject(env.AGENT.getByName(sid), (_o, state) =>
    state.storage.sql.exec<{ at: number; times: string }>("SELECT at, times FROM recent_times ORDER BY rowid").toArray().map((r) => ({ at: r.at, times: JSON.parse(r.times) as [number, number][] })),
  );

describe("the agent object's storage", () => {
  it("keeps a change's journal entry, report times and leaves in the agent's row; past 1,000 times (200 leaves) the row's go to a row of their own, reused once all are past", async () => {
    const { h, sid, report } = await world();
    for (let i = 0; i < 5; i++) await report();
    expect(await inlineTimes(sid)).toHaveLength(5);
    expect(await count(sid, "recent_times")).toBe(0);
    // Each change's entry went into the agent's row with its record; the one before it, which its
    // shard batch had applied, left it in the same write.
    expect((await journal(sid)).inline).toHaveLength(1);
    expect((await journal(sid)).table).toEqual([]);
    // One damping window later the old times still count for the replay's tolerance: they stay.
    h.clock.now += DAY + 60_000;
    for (let i = 0; i < 3; i++) await report();
    expect(await inlineTimes(sid)).toHaveLength(8);
    // Past two windows they leave the row with the next change's write.
    h.clock.now += DAY;
    for (let i = 0; i < 3; i++) await report();
    expect((await inlineTimes(sid)).map(([, at]) => at)).toEqual([...Array(3).fill(h.clock.now - DAY), ...Array(3).fill(h.clock.now)]);
    expect((await journal(sid)).inline).toHaveLength(1);
    // A busy agent: once the row would hold more than 1,000 times, the ones it held go to a row of their own.
    const reporter = await createOperator();
    await call(`/admin/operators/${reporter.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100_000, rate_limit_per_day: 100_000 } });
    const batch = (tag: string) =>
      h.request("/transactions/batch", {
        headers: bearer(reporter.key),
        body: { transactions: Array.from({ length: 100 }, (_, i) => ({ sid, transactionType: "task", outcome: "success", idempotency_key: `${tag}-${i}` })) },
      });
    for (let b = 0; b < 10; b++) expect((await batch(`a${b}`)).status).toBe(200);
    expect(await count(sid, "recent_times")).toBe(1);
    expect((await rowTimes(sid))[0].times).toHaveLength(906);
    expect(await inlineTimes(sid)).toHaveLength(100);
    // A new life reads both back.
    await evictDurableObject(env.AGENT.getByName(sid));
    await report();
    const held = await runInDurableObject(env.AGENT.getByName(sid), (o) => [...(o as unknown as { kernel: { recent: Map<number, number[]> } }).kernel.recent.values()].map((t) => t.length).sort((a, b) => a - b));
    expect(held).toEqual([7, 1000]);
    // Two windows on, the next spill takes over that row.
    h.clock.now += 2 * DAY + 60_000;
    for (let b = 0; b < 11; b++) expect((await batch(`b${b}`)).status).toBe(200);
    expect(await count(sid, "recent_times")).toBe(1);
    expect((await rowTimes(sid))[0].times).toHaveLength(1000);
    expect((await rowTimes(sid))[0].at).toBe(h.clock.now);
    expect(await inlineTimes(sid)).toHaveLength(100);
    // Leaves past the row's 200 went to outbox rows: none lost, none twice, every one the log lacks kept.
    const kept = await runInDurableObject(env.AGENT.getByName(sid), (o, state) => {
      const sql = state.storage.sql;
      const acked = sql.exec<{ n: number }>("SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'log_acked'), 0) AS n").one().n;
      const seqs = sql
        .exec<{ leaf: string }>("SELECT leaf FROM log_outbox UNION ALL SELECT leaves FROM agent")
        .toArray()
        .flatMap((r) => [JSON.parse(r.leaf) as { seq: number } | { seq: number }[]].flat().map((l) => l.seq))
        .filter((seq) => seq > acked);
      const { seq } = (o as unknown as { kernel: { stored(): { seq: number } } }).kernel.stored();
      return { acked, seq, seqs: [...new Set(seqs)].sort((a, b) => a - b), rows: sql.exec<{ n: number }>("SELECT count(*) AS n FROM log_outbox").one().n };
    });
    expect(kept.rows).toBeGreaterThan(0);
    expect(kept.seqs).toEqual(Array.from({ length: kept.seq - kept.acked }, (_, i) => kept.acked + 1 + i));
  });

  it("keeps a group's report times in the agent's row and its leaves in one outbox row, and damps by every time in them", async () => {
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
    expect(await inlineTimes(sid)).toEqual(Array.from({ length: 10 }, () => [expect.any(Number), h.clock.now]));
    // The group's leaves (the new reporter's credibility entry and the ten reports) in the agent's
    // row, with the registration's if the log has not acknowledged it yet; no outbox row.
    const leaves = await runInDurableObject(env.AGENT.getByName(sid), (_o, state) => JSON.parse(state.storage.sql.exec<{ leaves: string }>("SELECT leaves FROM agent").one().leaves) as { seq: number }[]);
    expect(leaves.map((l) => l.seq).filter((seq) => seq > 1)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await count(sid, "log_outbox")).toBe(0);
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

  it("keeps the journal in its own table past 64 KB (a shard down for a while), and applies all of it, in order, once the shard is back", async () => {
    const { h, sid, report } = await world();
    await report();
    const shard = await shardOf(sid);
    // A second reporter shares the load: one reporter's hourly limit is under 60 reports.
    const second = await createOperator();
    const reportBySecond = async () =>
      expect((await h.request("/transactions", { headers: bearer(second.key), body: { sid, transactionType: "task", outcome: "success" } })).status).toBe(201);
    const onShard = async () => (await shard.prepare("SELECT count(*) AS n FROM entries WHERE sid = ? AND kind = 'report'").bind(sid).first<{ n: number }>())!.n;
    await shard.exec("CREATE TRIGGER fail_entries BEFORE INSERT ON entries WHEN NEW.kind = 'report' BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
    try {
      // About 1.3 KB an entry: the agent's row rides in it as a mark, not with its evidence.
      for (let i = 0; i < 30; i++) {
        await report();
        await reportBySecond();
      }
    } finally {
      await shard.exec("DROP TRIGGER fail_entries");
    }
    const held = await runInDurableObject(env.AGENT.getByName(sid), (_o, state) => state.storage.sql.exec<{ n: number }>("SELECT length(journal) AS n FROM agent").one().n);
    expect(held).toBeLessThanOrEqual(64 * 1024);
    const { inline, table } = await journal(sid);
    expect(table.length).toBeGreaterThan(0);
    expect(inline.length + table.length).toBe(60);
    expect(await onShard()).toBe(1);
    // The next report's batch applies the 60 before it and itself.
    await report();
    expect(await onShard()).toBe(62);
    const entries = await shard.prepare("SELECT n FROM entries WHERE sid = ? ORDER BY n").bind(sid).all<{ n: number }>();
    expect(entries.results.map((r) => r.n)).toEqual(entries.results.map((_, i) => i + 1));
    // The table's rows leave as soon as the shard has them: a new object life would apply them again,
    // after changes that followed them. The agent's row drops its own with its next write.
    expect((await journal(sid)).table).toEqual([]);
    await report();
    expect((await journal(sid)).inline).toHaveLength(1);
    await runInDurableObject(env.AGENT.getByName(sid), async (_o, state) => {
      if ((await state.storage.getAlarm()) === null) await state.storage.setAlarm(Date.now() + DAY);
    });
    await runDurableObjectAlarm(env.AGENT.getByName(sid));
    expect(await journal(sid)).toEqual({ inline: [], table: [] });
  });

  it("keeps a change's journal entry small however many reporters the agent has: its shard row is made from the record when the batch is built", async () => {
    const { h, sid } = await world();
    for (let i = 0; i < 130; i++) {
      const r = await createOperator();
      expect((await h.request("/transactions", { headers: bearer(r.key), body: { sid, transactionType: "task", outcome: "success" } })).status).toBe(201);
    }
    const stored = await runInDurableObject(env.AGENT.getByName(sid), (_o, state) =>
      state.storage.sql.exec<{ record: number; journal: number }>("SELECT length(record) AS record, length(journal) AS journal FROM agent").one(),
    );
    // The evidence alone is past the journal's 64 KB share of the row; the entry holds a mark of the row.
    expect(stored.record).toBeGreaterThan(64 * 1024);
    expect(stored.journal).toBeLessThan(4 * 1024);
    expect(await count(sid, "journal")).toBe(0);
    const record = await runInDurableObject(env.AGENT.getByName(sid), async (o) => (await (o as unknown as { inspect(): Promise<{ record: { evidence: unknown; seq: number } }> }).inspect()).record);
    const row = await (await shardOf(sid)).prepare("SELECT evidence, seq FROM agents WHERE sid = ?").bind(sid).first<{ evidence: string; seq: number }>();
    expect(JSON.parse(row!.evidence)).toEqual(record.evidence);
    expect(row!.seq).toBe(record.seq);
  });

  it("never gives a journal id twice: not after the alarm empties the journal, not after memory is dropped, not after a restart", async () => {
    const { sid, report } = await world();
    const stub = env.AGENT.getByName(sid);
    const ids = () => journalIds(sid);
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
    await runInDurableObject(stub, (_o, state) => state.storage.sql.exec("UPDATE agent SET journal = NULL"));
    await evictDurableObject(stub);
    await report();
    expect((await ids()).at(-1)).toBeGreaterThan(last + 1);
    expect(await onShard()).toBe(before + 2);
  });

  it("keeps idempotency records in the agent's row; past 50 the row's go to one row, found by key in a new object life, and forgotten after 24 hours", async () => {
    const { h, sid, report, reporter } = await world();
    await call(`/admin/operators/${reporter.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100_000, rate_limit_per_day: 100_000 } });
    const answers: Record<string, unknown>[] = [];
    for (let i = 0; i < 60; i++) answers.push(await report(`key-${i}`));
    const inRow = () => runInDurableObject(env.AGENT.getByName(sid), (_o, state) => (JSON.parse(state.storage.sql.exec<{ answers: string }>("SELECT answers FROM agent").one().answers) as [number, string][]).map((a) => a[1]));
    // The 51st record found the row full: the 50 it held went to one row.
    expect(await count(sid, "answer_rows")).toBe(1);
    expect(await count(sid, "idempotency")).toBe(0);
    expect(await inRow()).toEqual(Array.from({ length: 10 }, (_, i) => `key-${50 + i}`));

    // Repeats replay the first answer, wherever it is kept, also in a new object life.
    expect(await report("key-0")).toEqual(answers[0]);
    expect(await report("key-55")).toEqual(answers[55]);
    await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as unknown as { kernel: { forget(): void } }).kernel.forget());
    expect(await report("key-49")).toEqual(answers[49]);
    const other = await h.request("/transactions", { headers: bearer((await createOperator()).key, { "idempotency-key": "key-3" }), body: { sid, transactionType: "task", outcome: "success" } });
    expect(other.status).toBe(201); // another caller's key is its own
    const changed = await h.request("/transactions", { headers: bearer(reporter.key, { "idempotency-key": "key-3" }), body: { sid, transactionType: "task", outcome: "failure" } });
    expect(changed.status).toBe(422);
    expect(await count(sid, "answer_rows")).toBe(1);

    // A day later the keys are forgotten: a repeat is a new report, and the row leaves.
    h.clock.now += DAY + 60 * 60_000;
    const again = await report("key-0");
    expect(again.transaction_id).not.toEqual(answers[0].transaction_id);
    expect(await count(sid, "answer_rows")).toBe(0);
    expect(await inRow()).toEqual(["key-0"]);
  });

  it("keeps records one per row by their key once an agent has 200 rows of them, so the index in memory stays bounded", async () => {
    const { sid, report, reporter } = await world();
    await call(`/admin/operators/${reporter.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 100_000, rate_limit_per_day: 100_000 } });
    const answers: Record<string, unknown>[] = [];
    for (let i = 0; i < 50; i++) answers.push(await report(`full-${i}`));
    // As if 200 rows of records were there already (writing 10,000 reports here would take minutes).
    await runInDurableObject(env.AGENT.getByName(sid), (o) => {
      const store = (o as unknown as { kernel: { store: { answers: { rows: number | undefined } } } }).kernel.store;
      store.answers.rows = 200;
    });
    await report("full-50");
    expect(await count(sid, "answer_rows")).toBe(0);
    expect(await count(sid, "idempotency")).toBe(50);
    expect(await report("full-7")).toEqual(answers[7]);
    await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as unknown as { kernel: { forget(): void } }).kernel.forget());
    expect(await report("full-42")).toEqual(answers[42]);
  });

  it("names an event in the insert that adds it, one past the last even once the outbox has emptied", async () => {
    const { sid } = await world();
    const out = await runInDurableObject(env.AGENT.getByName(sid), (o, state) => {
      const sql = state.storage.sql;
      const store = (o as unknown as { kernel: { store: { addEvent(e: object): void; published(id: number): void } } }).kernel.store;
      const statements: string[] = [];
      const exec = sql.exec.bind(sql);
      (sql as { exec: unknown }).exec = (query: string, ...bindings: unknown[]) => (statements.push(query), exec(query, ...bindings));
      const event = { type: "agent.status_changed", sid, ownerId: null, timestamp: "2026-11-21T10:00:30.000Z", data: { sid, status: "suspended", previous_status: "active" } };
      const ids = () => sql.exec<{ id: number; named: string }>("SELECT id, json_extract(event, '$.id') AS named FROM outbox ORDER BY id").toArray();
      try {
        store.addEvent(event);
        store.addEvent(event);
        const first = ids();
        store.published(first[1].id);
        store.addEvent(event);
        return { first, then: ids(), updates: statements.filter((q) => /^\s*UPDATE outbox/i.test(q)).length };
      } finally {
        (sql as { exec: unknown }).exec = exec;
      }
    });
    const epoch = out.first[0].named.split("_")[2];
    expect(out.first.map((r) => r.named)).toEqual(out.first.map((r) => `evt_${sid.slice(6)}_${epoch}_${r.id}`));
    expect(out.then).toEqual([{ id: out.first[1].id + 1, named: `evt_${sid.slice(6)}_${epoch}_${out.first[1].id + 1}` }]);
    expect(out.updates).toBe(0);
  });

  it("gives storage of the older shapes the present ones at its next start, keeping its rows and answers", async () => {
    const { sid, report } = await world();
    const first = await report("kept-answer");
    const stub = env.AGENT.getByName(sid);
    await report();
    const before = { times: await inlineTimes(sid), journal: await journalIds(sid) };
    expect(await count(sid, "idempotency")).toBe(0);
    expect(before.journal).toHaveLength(1);
    await runInDurableObject(stub, (_o, state) => {
      const sql = state.storage.sql;
      const times = JSON.parse(sql.exec<{ times: string }>("SELECT times FROM agent").one().times) as [number, number][];
      const answers = JSON.parse(sql.exec<{ answers: string }>("SELECT answers FROM agent").one().answers) as [number, string, string, unknown, number][];
      // Leaves one per outbox row (an object, not a list), as they were kept before they shared rows.
      for (const leaf of JSON.parse(sql.exec<{ leaves: string }>("SELECT leaves FROM agent").one().leaves) as { seq: number }[]) {
        sql.exec("INSERT OR REPLACE INTO log_outbox (n, leaf) VALUES (?, ?)", leaf.seq, JSON.stringify(leaf));
      }
      const old = (table: string, create: string, columns: string) => {
        sql.exec(`ALTER TABLE ${table} RENAME TO ${table}_was`);
        sql.exec(create);
        sql.exec(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM ${table}_was`);
        sql.exec(`DROP TABLE ${table}_was`);
      };
      // The journal in its own AUTOINCREMENT table, the agent's row without it.
      old("journal", "CREATE TABLE journal (id INTEGER PRIMARY KEY AUTOINCREMENT, shard TEXT NOT NULL, control TEXT NOT NULL)", "id, shard, control");
      for (const j of JSON.parse(sql.exec<{ journal: string }>("SELECT journal FROM agent").one().journal) as { id: number; shard: unknown; control: unknown }[]) {
        sql.exec("INSERT INTO journal (id, shard, control) VALUES (?, ?, ?)", j.id, JSON.stringify(j.shard), JSON.stringify(j.control));
      }
      old("agent", "CREATE TABLE agent (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL, shown TEXT)", "id, record, shown");
      old(
        "idempotency",
        "CREATE TABLE idempotency (operator_id INTEGER NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, result TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (operator_id, key))",
        "operator_id, key, request_hash, result, created_at",
      );
      // Idempotency records one per row, as they were kept before they rode in the agent's row.
      for (const [operator, key, hash, result, at] of answers) {
        sql.exec("INSERT INTO idempotency (operator_id, key, request_hash, result, created_at) VALUES (?, ?, ?, ?, ?)", operator, key, hash, JSON.stringify(result), at);
      }
      sql.exec("DROP TABLE answer_rows");
      old("receipts", "CREATE TABLE receipts (jti TEXT PRIMARY KEY, at INTEGER NOT NULL, forget_at INTEGER)", "jti, at, forget_at");
      sql.exec("INSERT INTO receipts (jti, at, forget_at) VALUES ('spent', 1, 99999999999999)");
      // Report times one per row, as they were kept before a change's times shared a row.
      sql.exec("CREATE TABLE recent (reporter INTEGER NOT NULL, at INTEGER NOT NULL)");
      sql.exec("CREATE INDEX recent_at ON recent (at)");
      for (const [reporter, at] of times) {
        sql.exec("INSERT INTO recent (reporter, at) VALUES (?, ?)", reporter, at);
      }
      sql.exec("DROP TABLE recent_times");

      sql.exec("UPDATE meta SET value = '\"s0\"' WHERE key = 'schema'");
    });
    await evictDurableObject(stub);
    // The next call starts the object: its tables take their present shapes.
    expect(await report("kept-answer")).toEqual(first);
    const shapes = await tableSql(sid);
    expect(shapes.journal).not.toMatch(/AUTOINCREMENT/i);
    expect(shapes.agent).toMatch(/journal_last/);
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
    expect(await journal(sid)).toEqual({ inline: [], table: before.journal });
    // The old record is read where it is (it leaves once expired); new ones go in the agent's row.
    expect(await count(sid, "idempotency")).toBe(1);
    expect(await runInDurableObject(stub, (_o, state) => state.storage.sql.exec("SELECT jti FROM receipts WHERE jti = 'spent'").toArray())).toEqual([{ jti: "spent" }]);
    // And the object goes on: a new report takes the next journal id, in the agent's row. Its batch
    // applies the old entry with it, and the table's row leaves then (a later object life would
    // apply it again, after changes that followed it), with the entries of the row.
    const next = await report("new-answer");
    expect(next).not.toEqual(first);
    expect(await journal(sid)).toEqual({ inline: [], table: [] });
    await report();
    const { inline: [b], table } = await journal(sid);
    expect(b).toBeGreaterThan(before.journal[0] + 1);
    expect(table).toEqual([]);
    await runInDurableObject(stub, async (_o, state) => {
      if ((await state.storage.getAlarm()) === null) await state.storage.setAlarm(Date.now() + DAY);
    });
    await runDurableObjectAlarm(stub);
    expect(await journal(sid)).toEqual({ inline: [], table: [] });
  });
});
