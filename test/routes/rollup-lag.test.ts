// The daily rollup rows wait in the agent's object for the lag (ROLLUP_LAG_SECONDS; the suite runs
// with 0, these objects with the production hour): a row goes to the shard at the alarm once the
// oldest waiting row is due, with every report of that time in it, and at once when the reporter's
// next day begins. Time is the test clock: reports carry it, and the object's alarm reads it.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RETRY_MS, retryDelay } from "../../src/durable/agent/host";
import type { Agent } from "../agent-under-test";
import { agentConfig, bearer, createOperator, shardOf, testApp, tracksIn } from "../helpers";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.parse("2026-12-03T20:00:00Z");

async function world() {
  const t = testApp({ now: START });
  const [owner, reporter, other] = [await createOperator(), await createOperator(), await createOperator()];
  const res = await t.request("/register", { headers: bearer(owner.key), body: { name: "Lagged", ...agentConfig } });
  expect(res.status).toBe(201);
  const { sid } = (await res.json()) as { sid: string };
  const stub = env.AGENT.getByName(sid);
  /** The object's clock follows the test clock; its rollups wait an hour. */
  await runInDurableObject(stub, (o) => {
    (o as Agent).vars = { ROLLUP_LAG_SECONDS: "3600" };
    (o as Agent).clock = () => t.clock.now;
  });
  const shard = await shardOf(sid);
  const report = async (by: typeof reporter, at: number) => {
    t.clock.now = at;
    const r = await t.request("/transactions", { headers: bearer(by.key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 800 } });
    expect(r.status).toBe(201);
    return ((await r.json()) as { transaction_id: number }).transaction_id;
  };
  const rows = async () =>
    (await shard.prepare("SELECT day, reporter, reports FROM rollups WHERE sid = ? ORDER BY day, reporter").bind(sid).all<{ day: number; reporter: number; reports: number }>()).results;
  /** Runs the object's alarm at `at` (the runtime runs it whenever it is set; the object decides by its clock). */
  const alarm = async (at: number) => {
    t.clock.now = at;
    return runDurableObjectAlarm(stub);
  };
  /** Each reporter's track: where it is kept (the agent's row or the table), its waiting mark and last day. */
  const tracks = () => runInDurableObject(stub, (_o, state) => tracksIn(state.storage.sql));
  const waiting = async () => (await tracks()).map(({ reporter, waiting }) => ({ reporter, waiting }));
  /** 34 reporters, one report each a second apart from START: the row's 32 places and two more. */
  const pastTheRow = async () => {
    const reporters = [reporter, other];
    while (reporters.length < 34) reporters.push(await createOperator());
    for (const [i, r] of reporters.entries()) await report(r, START + i * 1_000);
    return reporters;
  };
  return { t, sid, owner, reporter, other, report, rows, alarm, tracks, waiting, pastTheRow };
}

describe("rollup rows written behind", () => {
  it("keeps a reporter's row of the day in the object for the lag, then writes it once with every report of that time", async () => {
    const w = await world();
    const day = Math.floor(START / DAY);
    for (let i = 0; i < 5; i++) await w.report(w.reporter, START + i * 60_000);
    await w.report(w.other, START + 10 * 60_000);
    expect(await w.rows()).toEqual([]);
    // Waiting since its first report, not its last: the lag bounds how late the shard's row is.
    expect(await w.waiting()).toEqual([
      { reporter: w.reporter.id, waiting: START },
      { reporter: w.other.id, waiting: START + 10 * 60_000 },
    ]);

    // Before the oldest row is due the alarm writes nothing; once it is, every waiting row goes.
    await w.alarm(START + HOUR - 1);
    expect(await w.rows()).toEqual([]);
    await w.alarm(START + HOUR);
    expect(await w.rows()).toEqual([
      { day, reporter: Math.min(w.reporter.id, w.other.id), reports: w.reporter.id < w.other.id ? 5 : 1 },
      { day, reporter: Math.max(w.reporter.id, w.other.id), reports: w.reporter.id < w.other.id ? 1 : 5 },
    ]);
    expect((await w.waiting()).map((r) => r.waiting)).toEqual([0, 0]);

    // A later report waits again, and its alarm replaces the day's row with the grown one.
    await w.report(w.reporter, START + HOUR + 60_000);
    expect((await w.rows()).find((r) => r.reporter === w.reporter.id)?.reports).toBe(5);
    await w.alarm(START + 2 * HOUR + 60_000);
    expect((await w.rows()).find((r) => r.reporter === w.reporter.id)?.reports).toBe(6);
  });

  it("writes the waiting row of a day with the commit that starts the reporter's next day", async () => {
    const w = await world();
    const day = Math.floor(START / DAY);
    await w.report(w.reporter, START);
    await w.report(w.reporter, START + 30 * 60_000);
    // The next UTC day begins within the hour: its first report closes the day's row at once.
    const tomorrow = (day + 1) * DAY + 5 * 60_000;
    await w.report(w.reporter, tomorrow);
    expect(await w.rows()).toEqual([{ day, reporter: w.reporter.id, reports: 2 }]);
    expect(await w.waiting()).toEqual([{ reporter: w.reporter.id, waiting: tomorrow }]);
    await w.alarm(tomorrow + HOUR);
    expect(await w.rows()).toEqual([
      { day, reporter: w.reporter.id, reports: 2 },
      { day: day + 1, reporter: w.reporter.id, reports: 1 },
    ]);
  });

  it("keeps the rows waiting when the shard fails, and writes them at an alarm after the retry delay, longer after each failure in a row", async () => {
    const w = await world();
    await w.report(w.reporter, START);
    const stub = env.AGENT.getByName(w.sid);
    await runInDurableObject(stub, (o) => void ((o as Agent).faults.failShardBatch = 2));
    await w.alarm(START + HOUR);
    expect(await w.rows()).toEqual([]);
    expect(await w.waiting()).toEqual([{ reporter: w.reporter.id, waiting: START }]);
    // Not at once again (a shard that is down is not hammered), but 5 seconds later.
    await w.alarm(START + HOUR + 1_000);
    expect(await w.rows()).toEqual([]);
    await w.alarm(START + HOUR + RETRY_MS);
    expect(await w.rows()).toEqual([]);
    // The second failure in a row waits about twice as long.
    const second = START + HOUR + RETRY_MS + retryDelay(2, w.sid);
    await w.alarm(second - 1_000);
    expect(await w.rows()).toEqual([]);
    await w.alarm(second);
    expect(await w.rows()).toEqual([{ day: Math.floor(START / DAY), reporter: w.reporter.id, reports: 1 }]);
  });

  it("makes the rows again from the history before writing them when a withdrawal left the tracks stale", async () => {
    const w = await world();
    await w.report(w.reporter, START);
    const disputed = await w.report(w.reporter, START + 60_000);
    const opened = await w.t.request(`/transactions/${disputed}/dispute`, { headers: bearer(w.owner.key), body: { reason: "never happened" } });
    expect(opened.status).toBe(201);
    const { dispute } = (await opened.json()) as { dispute: { id: number } };
    expect((await w.t.request(`/disputes/${dispute.id}/respond`, { headers: bearer(w.reporter.key), body: { stand: false } })).status).toBe(200);
    // The waiting track still counts the withdrawn report; the row written counts only the one left.
    await w.alarm(START + HOUR);
    expect(await w.rows()).toEqual([{ day: Math.floor(START / DAY), reporter: w.reporter.id, reports: 1 }]);
  });

  it("writes every waiting row when the object has dropped its memory of storage: the lag is kept in storage", async () => {
    const w = await world();
    await w.report(w.reporter, START);
    await runInDurableObject(env.AGENT.getByName(w.sid), (o) => (o as unknown as { kernel: { forget(): void } }).kernel.forget());
    await w.alarm(START + HOUR);
    expect(await w.rows()).toEqual([{ day: Math.floor(START / DAY), reporter: w.reporter.id, reports: 1 }]);
  });

  it("keeps the tracks of the agent's first 32 reporters in its row and the others in a table, and writes both kinds at the alarm", async () => {
    const w = await world();
    const reporters = await w.pastTheRow();
    const { tracks } = w;
    const kept = await tracks();
    expect(kept.filter((t) => t.where === "row")).toHaveLength(32);
    expect(kept.filter((t) => t.where === "table").map((t) => t.reporter).sort()).toEqual(reporters.slice(32).map((r) => r.id).sort());
    expect(kept.every((t) => t.waiting > 0)).toBe(true);

    // A second report of a reporter kept in the row writes its track there, and the table is not touched.
    await w.report(reporters[0], START + 60_000);
    expect((await tracks()).find((t) => t.reporter === reporters[0].id)).toMatchObject({ where: "row", waiting: START });

    await w.alarm(START + HOUR);
    const rows = await w.rows();
    expect(rows).toHaveLength(34);
    expect(rows.find((r) => r.reporter === reporters[0].id)?.reports).toBe(2);
    expect((await tracks()).every((t) => t.waiting === 0)).toBe(true);
    // After a new object life the row's tracks are read back: a report adds to the day's row.
    await runInDurableObject(env.AGENT.getByName(w.sid), (o) => (o as unknown as { kernel: { forget(): void } }).kernel.forget());
    await w.report(reporters[1], START + HOUR + 60_000);
    await w.alarm(START + 2 * HOUR + 60_000);
    expect((await w.rows()).find((r) => r.reporter === reporters[1].id)?.reports).toBe(2);
  });

  it("moves a reporter's track from the table into the agent's row when the row has room, keeping how long its row has waited", async () => {
    const w = await world();
    await w.report(w.reporter, START);
    const stub = env.AGENT.getByName(w.sid);
    // Storage from before the row kept tracks: the track in the table.
    await runInDurableObject(stub, (o, state) => {
      const [row] = JSON.parse(state.storage.sql.exec<{ tracks: string }>("SELECT tracks FROM agent WHERE id = 1").one().tracks) as [number, unknown, number][];
      state.storage.sql.exec("UPDATE agent SET tracks = NULL");
      state.storage.sql.exec("INSERT INTO rollup_tracks (reporter, track, waiting) VALUES (?, ?, ?)", row[0], JSON.stringify(row[1]), row[2]);
      (o as unknown as { kernel: { forget(): void } }).kernel.forget();
    });
    const { tracks } = w;
    expect(await tracks()).toMatchObject([{ reporter: w.reporter.id, where: "table", waiting: START }]);
    await w.report(w.reporter, START + 60_000);
    expect(await tracks()).toMatchObject([{ reporter: w.reporter.id, where: "row", waiting: START }]);
    await w.alarm(START + HOUR);
    expect(await w.rows()).toEqual([{ day: Math.floor(START / DAY), reporter: w.reporter.id, reports: 2 }]);
  });

  it("gives a full row's idlest place to a reporter busier than it, never to one that only reports daily", async () => {
    const w = await world();
    const reporters = await w.pastTheRow();
    const { tracks } = w;
    const where = async (r: (typeof reporters)[number]) => (await tracks()).find((t) => t.reporter === r.id)!;
    const [late, other] = [reporters[32], reporters[33]];
    // The next day: every track in the row last reported the day before, as the late reporter did.
    await w.report(late, START + DAY);
    expect(await where(late)).toMatchObject({ where: "table" });
    // Two days on, it reported more lately than the row's idlest: it takes that place.
    await w.report(late, START + 2 * DAY);
    const after = await tracks();
    expect(after).toHaveLength(34);
    expect(after.filter((t) => t.where === "row")).toHaveLength(32);
    expect(await where(late)).toMatchObject({ where: "row", lastDay: Math.floor((START + 2 * DAY) / DAY) });
    const moved = after.filter((t) => t.where === "table" && t.reporter !== other.id);
    expect(moved).toHaveLength(1);
    // It kept its waiting row of the first day, and so its place in the alarm.
    expect(moved[0]).toMatchObject({ lastDay: Math.floor(START / DAY), waiting: START + reporters.findIndex((r) => r.id === moved[0].reporter) * 1_000 });
    await w.alarm(START + 2 * DAY + HOUR);
    const rows = await w.rows();
    expect(rows.filter((r) => r.day === Math.floor(START / DAY))).toHaveLength(34);
    expect(rows.filter((r) => r.reporter === late.id).map((r) => r.reports)).toEqual([1, 1, 1]);
  });

  it("makes the alarm's writes to the agent's row (the tracks' marks, the journal the shard has) one update", async () => {
    const w = await world();
    await w.report(w.reporter, START);
    const stub = env.AGENT.getByName(w.sid);
    const updates: string[] = [];
    await runInDurableObject(stub, (_o, state) => {
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        if (/^\s*UPDATE agent\b/i.test(query)) updates.push(query);
        return exec(query, ...bindings);
      }) as typeof sql.exec;
    });
    expect(JSON.parse((await runInDurableObject(stub, (_o, state) => state.storage.sql.exec<{ journal: string }>("SELECT journal FROM agent").one())).journal)).toHaveLength(1);
    await w.alarm(START + HOUR);
    expect(await w.rows()).toEqual([{ day: Math.floor(START / DAY), reporter: w.reporter.id, reports: 1 }]);
    expect(await w.waiting()).toEqual([{ reporter: w.reporter.id, waiting: 0 }]);
    expect(JSON.parse((await runInDurableObject(stub, (_o, state) => state.storage.sql.exec<{ journal: string }>("SELECT journal FROM agent").one())).journal)).toEqual([]);
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatch(/journal = \?.*tracks = \?/);
  });
});
