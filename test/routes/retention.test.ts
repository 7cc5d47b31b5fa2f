// History with a retention window: entries older than HISTORY_WINDOW_DAYS move to the archive (R2)
// after a snapshot entry, replays start from the snapshot and give the same scores, reads follow into
// the archive, a move killed halfway loses and doubles nothing, and erasure keeps the chain whole.
import { createExecutionContext, createScheduledController, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readAllArchived, listPages } from "../../src/db/history-archive";
import { readEntries, whoOf } from "../../src/db/history";
import { replayOf } from "../../src/domain/agent";
import type { Env } from "../../src/env";
import { checkChain, saltedHash, type Entry } from "../../src/domain/entries";
import worker from "../../src/index";
import { replayScore } from "../../clients/typescript/verify";
import type { Agent } from "../agent-under-test";
import { ADMIN, agentConfig, bearer, createOperator, emptyAgentObject, shardOf, T_CALL, testApp } from "../helpers";

const DAY = 86_400_000;
/** The agents here were registered 600 days before the frozen instant; the window is 400 days. */
const START = T_CALL - 600 * DAY;

async function oldAgent(oldReports: number, recentReports = 4, start = START) {
  const owner = await createOperator();
  const reporter = await createOperator({ verified: true });
  const app = testApp({ now: start });
  const registered = await app.request("/register", { headers: bearer(owner.key), body: { name: "Old agent", ...agentConfig } });
  expect(registered.status).toBe(201);
  const { sid } = (await registered.json()) as { sid: string };
  const ids: number[] = [];
  const report = async (at: number, i: number) => {
    app.clock.now = at;
    const res = await app.request("/transactions", {
      headers: bearer(i % 3 === 0 ? owner.key : reporter.key),
      body: { sid, transactionType: `type-${i}`, outcome: i % 5 === 0 ? "failure" : "success", qualitySignal: 700 + i, metadata: { i } },
    });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { transaction_id: number }).transaction_id);
  };
  // Several reports an hour apart (the damping window), then a day apart.
  for (let i = 0; i < oldReports; i++) await report(start + DAY + (i < 4 ? i * 3_600_000 : i * DAY), i);
  for (let i = 0; i < recentReports; i++) await report(T_CALL - 10 * DAY + i * DAY, oldReports + i);
  app.clock.now = T_CALL;
  return { app, sid, owner, reporter, ids };
}

const archivePass = async (app: ReturnType<typeof testApp>) => {
  const res = await app.request("/admin/history/archive", { headers: ADMIN, body: { limit: 500 } });
  expect(res.status).toBe(200);
  return (await res.json()) as { agents: number; entries: number; pages: number; bytes: number; failed: number; complete: boolean; cutoff: string };
};

const scoreOf = async (app: ReturnType<typeof testApp>, sid: string, key: string) => {
  const res = await app.request(`/score/${sid}`, { headers: bearer(key) });
  expect(res.status).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  delete body.as_of;
  return body;
};

/** Empties the agent's object and has it rebuild from its shard (a configuration report that changes nothing loads it). */
async function rebuild(app: ReturnType<typeof testApp>, sid: string, key: string) {
  await emptyAgentObject(sid);
  expect((await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record).toBeNull();
  expect((await app.request(`/agents/${sid}/config`, { headers: bearer(key), body: agentConfig })).status).toBe(200);
}

/** The whole chain: the archived pages' entries, then the shard's. */
async function wholeChain(sid: string) {
  const archived = await readAllArchived(env.ARCHIVE_BUCKET, sid);
  const onShard = await readEntries(await shardOf(sid), sid);
  return { archived, onShard, all: [...archived, ...onShard] };
}

describe("the retention window", () => {
  it("moves entries older than the window to compressed pages after a snapshot; a rebuild from the snapshot gives the same score", async () => {
    const { app, sid, owner } = await oldAgent(30);
    const before = await scoreOf(app, sid, owner.key);
    const live = await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect());

    const pass = await archivePass(app);
    expect(pass.cutoff).toBe(new Date(T_CALL - 400 * DAY).toISOString());
    expect(pass.failed).toBe(0);
    const { archived, onShard, all } = await wholeChain(sid);
    // The registration and the 30 old reports left; the 4 recent ones and the snapshot stay.
    expect(archived.map((e) => e.n)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(onShard.map((e) => e.kind)).toEqual(["report", "report", "report", "report", "snapshot"]);
    const snapshot = onShard[4].entry as Entry & { kind: "snapshot" };
    expect(snapshot.through).toBe(31);
    expect(Object.keys(snapshot.state.locals)).toHaveLength(2);
    for (const key of Object.keys(snapshot.state.locals)) expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(all.map((e) => e.n)).toEqual(Array.from({ length: 36 }, (_, i) => i + 1));
    expect(await checkChain(all.map((e) => e.text))).toBeNull();
    const pages = await listPages(env.ARCHIVE_BUCKET, sid);
    expect(pages).toEqual([{ key: `history/${sid}/000000000001.json.gz`, first: 1, last: 31 }]);
    const object = await env.ARCHIVE_BUCKET.get(pages[0].key);
    const head = new Uint8Array(await object!.arrayBuffer());
    expect([head[0], head[1]]).toEqual([0x1f, 0x8b]); // gzip

    // The shard's entries alone replay to the live evidence, as the whole chain does.
    const fromShard = replayOf(onShard.map((e) => ({ entry: e.entry, who: whoOf(e) })), Date.parse(live.record!.createdAt), T_CALL);
    const fromAll = replayOf(all.map((e) => ({ entry: e.entry, who: whoOf(e) })), Date.parse(live.record!.createdAt), T_CALL);
    expect(fromShard.evidence).toEqual(live.record!.evidence);
    expect(fromAll.evidence).toEqual(live.record!.evidence);
    expect(fromShard.locals).toEqual(live.record!.locals);
    // A verifier, which knows reporters only by commitment, replays the shard's entries to the same evidence.
    const byCommitment = onShard.map((e) => ({ entry: e.entry, who: e.kind === "snapshot" ? null : (e.entry as { reporter?: string }).reporter ?? null }));
    expect(replayOf(byCommitment, Date.parse(live.record!.createdAt), T_CALL).evidence).toEqual(live.record!.evidence);

    expect(await scoreOf(app, sid, owner.key)).toEqual(before);
    // Evicted with its storage lost: the object rebuilds from the shard, starting at the snapshot.
    await rebuild(app, sid, owner.key);
    expect(await scoreOf(app, sid, owner.key)).toEqual(before);
    const rebuilt = await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect());
    expect(rebuilt.record!.evidence).toEqual(live.record!.evidence);
    expect(rebuilt.record!.locals).toEqual(live.record!.locals);

    // The owner's entries route reads the archive first, then the shard, page by page; the verifier's
    // replay of the shard's entries alone (from the snapshot) gives the served score.
    const listed: { n: number; entry: string }[] = [];
    let cursor: string | null = null;
    do {
      const res = await app.request(`/agents/${sid}/entries?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { headers: bearer(owner.key) });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { entries: { n: number; entry: string }[]; next_cursor: string | null };
      listed.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    expect(listed.map((e) => e.n)).toEqual(all.map((e) => e.n));
    expect(await checkChain(listed.map((e) => e.entry))).toBeNull();
    expect(replayScore(onShard.map((e) => e.entry), T_CALL)).toBe(before.composite_score);
    expect(replayScore(all.map((e) => e.entry), T_CALL)).toBe(before.composite_score);

    // A second pass finds nothing new to move and writes no second snapshot.
    const again = await archivePass(app);
    expect(again.entries).toBe(0);
    expect((await readEntries(await shardOf(sid), sid)).filter((e) => e.kind === "snapshot")).toHaveLength(1);
  });

  it("survives a kill between the archive's put and the shard's delete: the rerun loses and doubles nothing", async () => {
    const { app, sid, owner } = await oldAgent(12, 2);
    const before = await scoreOf(app, sid, owner.key);
    await runInDurableObject(env.AGENT.getByName(sid), (o) => {
      (o as Agent).faults.failAfterArchivePut = 1;
    });
    const killed = await archivePass(app);
    expect(killed.failed).toBe(1);
    // The page was written, the shard still holds its rows.
    expect(await listPages(env.ARCHIVE_BUCKET, sid)).toHaveLength(1);
    const half = await readEntries(await shardOf(sid), sid);
    expect(half[0].n).toBe(1);
    expect(half.at(-1)!.kind).toBe("snapshot");
    // Reads see each report once meanwhile.
    const listedHalf = (await (await app.request(`/agents/${sid}/transactions?limit=200`, { headers: bearer(owner.key) })).json()) as { transactions: unknown[] };
    expect(listedHalf.transactions).toHaveLength(14);

    const rerun = await archivePass(app);
    expect(rerun.failed).toBe(0);
    expect(rerun.entries).toBe(13);
    const pages = await listPages(env.ARCHIVE_BUCKET, sid);
    expect(pages).toEqual([{ key: `history/${sid}/000000000001.json.gz`, first: 1, last: 13 }]);
    const { archived, onShard, all } = await wholeChain(sid);
    expect(archived.map((e) => e.n)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(onShard[0].n).toBe(14);
    expect(onShard.filter((e) => e.kind === "snapshot")).toHaveLength(1);
    expect(all.map((e) => e.n)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(await checkChain(all.map((e) => e.text))).toBeNull();
    await rebuild(app, sid, owner.key);
    expect(await scoreOf(app, sid, owner.key)).toEqual(before);
  });

  it("reads follow into the archive: the owner's reports page through it, the report's history fills from it", async () => {
    const { app, sid, owner, ids } = await oldAgent(20, 3);
    const listAll = async (limit: number) => {
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const res = await app.request(`/agents/${sid}/transactions?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { headers: bearer(owner.key) });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { transactions: { transaction_id: number; transaction_type: string }[]; next_cursor: string | null };
        seen.push(...body.transactions.map((t) => t.transaction_id));
        cursor = body.next_cursor;
      } while (cursor);
      return seen;
    };
    const listedBefore = await listAll(7);
    const reportBefore = (await (await app.request(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as { score_history: unknown[] };
    expect((await archivePass(app)).entries).toBe(21);
    expect(listedBefore).toEqual([...ids].reverse());
    expect(await listAll(7)).toEqual(listedBefore);
    expect(await listAll(2)).toEqual(listedBefore);
    const first = (await (await app.request(`/agents/${sid}/transactions?limit=5`, { headers: bearer(owner.key) })).json()) as { transactions: { transaction_type: string }[] };
    expect(first.transactions.map((t) => t.transaction_type)).toEqual(["type-22", "type-21", "type-20", "type-19", "type-18"]);
    const reportAfter = (await (await app.request(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as { score_history: unknown[] };
    expect(reportAfter.score_history).toHaveLength(23);
    expect(reportAfter.score_history).toEqual(reportBefore.score_history);
  });

  it("erases an archived report's free text by transaction id, in its page, and the chain still verifies", async () => {
    const { app, sid, owner, ids } = await oldAgent(6, 1);
    expect((await archivePass(app)).entries).toBe(7);
    const target = ids[2];
    const erased = await app.request("/admin/history/erase", { headers: ADMIN, body: { sid, transaction_id: target } });
    expect(erased.status).toBe(200);
    expect(await erased.json()).toEqual({ sid, transaction_id: target, erased: 1 });
    const { archived, all } = await wholeChain(sid);
    const row = archived.find((e) => e.n === 4)!;
    expect(row.salt).toBeNull();
    expect(row.private).toBeNull();
    // Its neighbours keep theirs, and their text still opens their hashes.
    const neighbour = archived.find((e) => e.n === 5)!;
    expect((neighbour.entry as Entry & { kind: "report" }).type).toBe(await saltedHash(neighbour.salt!, "type", "type-3"));
    expect(await checkChain(all.map((e) => e.text))).toBeNull();
    const listed = (await (await app.request(`/agents/${sid}/transactions?limit=200`, { headers: bearer(owner.key) })).json()) as { transactions: { transaction_id: number; transaction_type: string }[] };
    expect(listed.transactions.find((t) => t.transaction_id === target)!.transaction_type).toBe((row.entry as Entry & { kind: "report" }).type);

    // Every entry of the agent, on the shard and in the archive.
    const everything = await app.request("/admin/history/erase", { headers: ADMIN, body: { sid } });
    expect(((await everything.json()) as { erased: number }).erased).toBe(7);
    const after = await wholeChain(sid);
    expect(after.all.filter((e) => e.salt !== null)).toEqual([]);
    expect(await checkChain(after.all.map((e) => e.text))).toBeNull();
  });

  it("refuses bad erasures: another agent's transaction, an unknown agent, no admin token", async () => {
    const { app, sid, ids } = await oldAgent(1, 0);
    const other = await oldAgent(1, 0);
    expect((await app.request("/admin/history/erase", { headers: ADMIN, body: { sid, transaction_id: other.ids[0] } })).status).toBe(404);
    expect((await app.request("/admin/history/erase", { headers: ADMIN, body: { sid: "SID-0x0000000000000000" } })).status).toBe(404);
    expect((await app.request("/admin/history/erase", { headers: ADMIN, body: { sid, transaction_id: "1" } })).status).toBe(400);
    expect((await app.request("/admin/history/erase", { body: { sid, transaction_id: ids[0] } })).status).toBe(401);
    expect((await app.request("/admin/history/archive", { body: {} })).status).toBe(401);
    expect((await app.request("/admin/history/archive", { headers: ADMIN, body: { limit: 0 } })).status).toBe(400);
  });

  it("runs daily from the Cron Trigger, with the window HISTORY_WINDOW_DAYS sets", async () => {
    const { sid } = await oldAgent(3, 1);
    const runCron = async (bindings: Env) => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: T_CALL, cron: "30 3 * * *" }), bindings, ctx);
      await waitOnExecutionContext(ctx);
    };
    // A window longer than the agent's age moves nothing.
    await runCron({ ...env, HISTORY_WINDOW_DAYS: "700" } as Env);
    expect(await listPages(env.ARCHIVE_BUCKET, sid)).toEqual([]);
    // An agent whose oldest entry is past the window by less than a period (30 days) waits for it.
    const young = await oldAgent(2, 1, T_CALL - 420 * DAY);
    await runCron(env as Env);
    expect((await listPages(env.ARCHIVE_BUCKET, sid)).map((p) => [p.first, p.last])).toEqual([[1, 4]]);
    expect(await listPages(env.ARCHIVE_BUCKET, young.sid)).toEqual([]);
    expect((await readEntries(await shardOf(young.sid), young.sid)).map((e) => e.kind)).toEqual(["registration", "report", "report", "report"]);
    expect((await readEntries(await shardOf(sid), sid)).map((e) => e.kind)).toEqual(["report", "snapshot"]);
  });

  it("moves an agent's history a period at a time: no snapshot a day, everything past the window once it is due", async () => {
    const { app, sid, owner } = await oldAgent(2, 0);
    for (const daysAgo of [395, 380]) {
      app.clock.now = T_CALL - daysAgo * DAY;
      expect((await app.request("/transactions", { headers: bearer(owner.key), body: { sid, transactionType: "t", outcome: "success" } })).status).toBe(201);
    }
    app.clock.now = T_CALL;
    expect((await archivePass(app)).failed).toBe(0);
    const kinds = async () => (await readEntries(await shardOf(sid), sid)).map((e) => `${e.n}:${e.kind}`);
    expect(await kinds()).toEqual(["4:report", "5:report", "6:snapshot"]);
    // Ten days on, the report of 395 days ago is past the window, but not yet by a period.
    app.clock.now = T_CALL + 10 * DAY;
    await archivePass(app);
    expect(await kinds()).toEqual(["4:report", "5:report", "6:snapshot"]);
    // Forty days on it is: both reports and the old snapshot go, after a new snapshot.
    app.clock.now = T_CALL + 40 * DAY;
    const before = await scoreOf(app, sid, owner.key);
    await archivePass(app);
    expect(await kinds()).toEqual(["7:snapshot"]);
    await rebuild(app, sid, owner.key);
    expect(await scoreOf(app, sid, owner.key)).toEqual(before);
    expect((await listPages(env.ARCHIVE_BUCKET, sid)).map((p) => [p.first, p.last])).toEqual([[1, 3], [4, 6]]);
    const { all } = await wholeChain(sid);
    expect(await checkChain(all.map((e) => e.text))).toBeNull();
    expect(((await readEntries(await shardOf(sid), sid))[0].entry as Entry & { kind: "snapshot" }).through).toBe(6);
  });
});
