// History with a retention window: entries older than HISTORY_WINDOW_DAYS move to the archive (R2)
// after a snapshot entry, replays start from the snapshot and give the same scores, reads follow into
// the archive, a move killed halfway loses and doubles nothing, and erasure keeps the chain whole.
import { createExecutionContext, createScheduledController, evictDurableObject, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { listPages, readPage } from "../../src/db/history-archive";
import { readEntries, storedEntry, whoOf } from "../../src/db/history";
import { replayOf } from "../../src/domain/replay";
import type { Env } from "../../src/env";
import { checkChain, saltedHash, type Entry } from "../../src/domain/entries";
import worker from "../../src/index";
import { checkSnapshots, replayScore } from "../../clients/typescript/verify";
import type { Agent } from "../agent-under-test";
import { ADMIN, agentConfig, bearer, createOperator, shardOf, T_CALL, testApp } from "../helpers";

const DAY = 86_400_000;
const HOUR = 3_600_000;
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

/**
 * A self-registered agent, 600 days old, with three reports from its future claimer and three from
 * another reporter in its first days (all before the window), and how to report on it at a time.
 */
async function wildAgent(ip: string) {
  const app = testApp({ now: START });
  const registered = await app.request("/register/self", { body: { name: "Wild", ...agentConfig }, headers: { "cf-connecting-ip": ip } });
  expect(registered.status).toBe(201);
  const { sid, claim_token } = (await registered.json()) as { sid: string; claim_token: string };
  const claimer = await createOperator({ verified: true });
  const reporter = await createOperator({ verified: true });
  const reportAt = async (at: number, key: string) => {
    app.clock.now = at;
    expect((await app.request("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 900 } })).status).toBe(201);
  };
  for (let i = 1; i <= 3; i++) await reportAt(START + i * DAY, claimer.key);
  for (let i = 1; i <= 3; i++) await reportAt(START + i * DAY + HOUR, reporter.key);
  return { app, sid, claim_token, claimer, reporter, reportAt };
}

const archivePass = async (app: ReturnType<typeof testApp>) => {
  const res = await app.request("/admin/history/archive", { headers: ADMIN, body: { limit: 500 } });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    agents: number;
    entries: number;
    pages: number;
    bytes: number;
    failed: number;
    complete: boolean;
    cutoff: string;
    progress: { done: number; total: number };
  };
};

const scoreOf = async (app: ReturnType<typeof testApp>, sid: string, key: string) => {
  const res = await app.request(`/score/${sid}`, { headers: bearer(key) });
  expect(res.status).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  delete body.as_of;
  return body;
};

/** A new life of the agent's object (evicted, nothing in memory): it reads the agent from its shard (a configuration report that changes nothing loads it). */
async function rebuild(app: ReturnType<typeof testApp>, sid: string, key: string) {
  await evictDurableObject(env.AGENT.getByName(sid));
  expect((await app.request(`/agents/${sid}/config`, { headers: bearer(key), body: agentConfig })).status).toBe(200);
}

const CUT = T_CALL - 400 * DAY;
const seqOf = (transactionId: number) => transactionId % 2 ** 22;

/** The agent's chain on its shard now, and the numbers a move at `cut` sends to the archive. */
async function chainBefore(sid: string, cut = CUT) {
  const entries = await readEntries(await shardOf(sid), sid);
  const moving = entries.filter((e) => e.at < cut).map((e) => e.n);
  return { entries, moving, last: moving[moving.length - 1], staying: entries.filter((e) => e.at >= cut) };
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The whole chain: the archived pages' entries, then the shard's. */
async function wholeChain(sid: string) {
  const pages = await Promise.all((await listPages(env.ARCHIVE_BUCKET, sid)).map((p) => readPage(env.ARCHIVE_BUCKET, p.key)));
  const archived = pages.flatMap((page) => page?.entries ?? []).map(storedEntry);
  const onShard = await readEntries(await shardOf(sid), sid);
  return { archived, onShard, all: [...archived, ...onShard] };
}

describe("the retention window", () => {
  it("moves entries older than the window to compressed pages after a snapshot; a rebuild from the snapshot gives the same score", async () => {
    const { app, sid, owner } = await oldAgent(30);
    const before = await scoreOf(app, sid, owner.key);
    const live = await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect());
    const chain = await chainBefore(sid);
    // The registration and 30 old reports (with the credibility entries of their reporters) leave.
    expect(chain.moving).toEqual(upTo(chain.last));
    expect(chain.entries.filter((e) => e.at < CUT && e.kind === "report")).toHaveLength(30);

    const pass = await archivePass(app);
    expect(pass.cutoff).toBe(new Date(T_CALL - 400 * DAY).toISOString());
    expect(pass.failed).toBe(0);
    // A complete pass has visited every agent old enough to have history past the window, this one among them.
    expect(pass.complete).toBe(true);
    expect(pass.progress.total).toBeGreaterThanOrEqual(1);
    expect(pass.progress.done).toBe(pass.progress.total);
    const { archived, onShard, all } = await wholeChain(sid);
    // The old entries left; the 4 recent reports and the snapshot stay.
    expect(archived.map((e) => e.n)).toEqual(chain.moving);
    expect(onShard.map((e) => e.kind)).toEqual([...chain.staying.map((e) => e.kind), "snapshot"]);
    expect(chain.staying.filter((e) => e.kind === "report")).toHaveLength(4);
    const snapshot = onShard.at(-1)!.entry as Entry & { kind: "snapshot" };
    expect(snapshot.through).toBe(chain.last);
    expect(snapshot.cut).toBe(T_CALL - 400 * DAY);
    // Reporters (the owner among them) are named by commitment only.
    expect(Object.keys(snapshot.pairs)).toHaveLength(2);
    for (const key of Object.keys(snapshot.pairs)) expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(snapshot.owner).toMatch(/^[0-9a-f]{64}$/);
    expect(checkSnapshots(all.map((e) => e.entry))).toEqual([]);
    // A verifier holding the whole chain refuses a snapshot that is not the fold of what it covers.
    const forged = all.map((e) => (e.kind === "snapshot" ? { ...e.entry, model: { ...snapshot.model, reports: snapshot.model.reports + 1 } } : e.entry)) as Entry[];
    expect(checkSnapshots(forged)).toEqual([snapshot.n]);
    // Nor one that covers itself (it would start from its own state), nor one cut after entries it leaves out.
    const withEntry = (change: Partial<Entry & { kind: "snapshot" }>) => all.map((e) => (e.kind === "snapshot" ? { ...e.entry, ...change } : e.entry)) as Entry[];
    expect(checkSnapshots(withEntry({ through: snapshot.n }))).toEqual([snapshot.n]);
    expect(checkSnapshots(withEntry({ cut: Date.parse(snapshot.at) }))).toEqual([snapshot.n]);
    expect(all.map((e) => e.n)).toEqual(upTo(chain.entries.length + 1));
    expect(await checkChain(all.map((e) => e.text))).toBeNull();
    const pages = await listPages(env.ARCHIVE_BUCKET, sid);
    expect(pages).toEqual([{ key: `history/${sid}/000000000001.json.gz`, first: 1, last: chain.last }]);
    const object = await env.ARCHIVE_BUCKET.get(pages[0].key);
    const head = new Uint8Array(await object!.arrayBuffer());
    expect([head[0], head[1]]).toEqual([0x1f, 0x8b]); // gzip
    // A page holds each entry's text in clear, not the shard's compressed form.
    expect((await readPage(env.ARCHIVE_BUCKET, pages[0].key))!.entries.map((e) => typeof e.body)).toEqual(chain.moving.map(() => "string"));

    // The shard's entries alone replay to the live evidence, as the whole chain does.
    const fromShard = replayOf(onShard.map((e) => ({ entry: e.entry, who: whoOf(e) })), Date.parse(live.record!.createdAt));
    const fromAll = replayOf(all.map((e) => ({ entry: e.entry, who: whoOf(e) })), Date.parse(live.record!.createdAt));
    expect(fromShard.state.model).toEqual(live.record!.evidence);
    expect(fromAll.state.model).toEqual(live.record!.evidence);
    expect(fromShard.state.pairs).toEqual(fromAll.state.pairs);
    // A verifier, which knows reporters only by commitment, replays the shard's entries to the same evidence.
    const byCommitment = onShard.map((e) => ({ entry: e.entry, who: null }));
    expect(replayOf(byCommitment, Date.parse(live.record!.createdAt)).state.model).toEqual(live.record!.evidence);

    expect(await scoreOf(app, sid, owner.key)).toEqual(before);
    // Evicted with its storage lost: the object rebuilds from the shard, starting at the snapshot.
    await rebuild(app, sid, owner.key);
    expect(await scoreOf(app, sid, owner.key)).toEqual(before);
    const rebuilt = await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect());
    expect(rebuilt.record!.evidence).toEqual(live.record!.evidence);

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

  it("a replay from the snapshot counts the reports just before the cut, and a withdrawal after the move replays from it", async () => {
    const { app, sid, owner, reporter } = await oldAgent(3, 0);
    const other = await createOperator({ verified: true });
    const reportAt = async (at: number, key: string, outcome = "success") => {
      app.clock.now = at;
      const res = await app.request("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome, qualitySignal: 800 } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { transaction_id: number }).transaction_id;
    };
    // The same reporter three hours before the window's start and two after: one pair, its vote moved by both.
    await reportAt(CUT - 3 * HOUR, reporter.key);
    const afterCut = await reportAt(CUT + 2 * HOUR, reporter.key);
    await reportAt(T_CALL - 3 * DAY, reporter.key);
    const falseReport = await reportAt(T_CALL - 2 * DAY, other.key, "failure");
    app.clock.now = T_CALL;

    await archivePass(app);
    const { onShard, all } = await wholeChain(sid);
    expect(onShard[0].n).toBe(seqOf(afterCut));
    const snapshot = onShard.at(-1)!.entry as Entry & { kind: "snapshot" };
    // The owner's one report and the reporter's three before the cut.
    expect(Object.values(snapshot.pairs).map((p) => p.reports).sort()).toEqual([1, 3]);
    const live = (await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!;
    // The whole chain folded from the registration, the snapshot left out, is the state the snapshot goes on from.
    const fromGenesis = (entries: typeof all) =>
      replayOf(entries.filter((e) => e.kind !== "snapshot").map((e) => ({ entry: e.entry, who: e.operator })), Date.parse(live.createdAt)).state.model;
    expect(fromGenesis(all)).toEqual(live.evidence);
    const before = await scoreOf(app, sid, owner.key);
    await rebuild(app, sid, owner.key);
    expect(await scoreOf(app, sid, owner.key)).toEqual(before);

    // The owner disputes the recent false report and its reporter withdraws it: the replay starts at the snapshot.
    expect((await app.request(`/transactions/${falseReport}/dispute`, { headers: bearer(owner.key), body: { reason: "never happened" } })).status).toBe(201);
    const answered = await app.request(`/disputes/${falseReport}/respond`, { headers: bearer(other.key), body: { stand: false } });
    expect(answered.status).toBe(200);
    const withdrawn = (await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!;
    const after = await wholeChain(sid);
    expect(after.onShard.at(-1)!.kind).toBe("withdrawal");
    expect(fromGenesis(after.all)).toEqual(withdrawn.evidence);
    expect(withdrawn.evidence).not.toEqual(live.evidence);
    const scored = await scoreOf(app, sid, owner.key);
    await rebuild(app, sid, owner.key);
    expect(await scoreOf(app, sid, owner.key)).toEqual(scored);
    expect(replayScore(after.all.map((e) => e.entry), T_CALL)).toBe(scored.composite_score);
  });

  it("a claim after the move replays from the snapshot, leaving out the claimer's evidence from before the cut", async () => {
    const { app, sid, claim_token, claimer, reporter, reportAt } = await wildAgent("192.0.2.77");
    await reportAt(T_CALL - 5 * DAY, reporter.key);
    app.clock.now = T_CALL;
    await archivePass(app);
    const { onShard } = await wholeChain(sid);
    const snapshot = onShard.at(-1)!.entry as Entry & { kind: "snapshot" };
    expect(snapshot.owner).toBeNull();
    expect(Object.keys(snapshot.pairs)).toHaveLength(2);

    const claimed = await app.request(`/agents/${sid}/claim`, { headers: bearer(claimer.key), body: { claim_token } });
    expect(claimed.status).toBe(200);
    const record = (await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!;
    // Its reports before the cut were another reporter's (at credibility 0) and are gone from the shard: its pair stays as the snapshot has it.
    expect(record.evidence.reports).toBe(7);
    const before = await scoreOf(app, sid, claimer.key);
    await rebuild(app, sid, claimer.key);
    expect(await scoreOf(app, sid, claimer.key)).toEqual(before);
    const rebuilt = (await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!;
    expect(rebuilt.evidence).toEqual(record.evidence);
  });

  it("a second move folds from the first snapshot and the entries after it, wherever the first stands in the chain", async () => {
    const { app, sid, owner, reporter } = await oldAgent(4, 0);
    const reportAt = async (at: number) => {
      app.clock.now = at;
      expect((await app.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 750 } })).status).toBe(201);
    };
    // Reports after the first snapshot's cut, so before it in the chain, and one after it.
    for (const daysAgo of [390, 360, 10]) await reportAt(T_CALL - daysAgo * DAY);
    app.clock.now = T_CALL;
    await archivePass(app);
    const first = (await wholeChain(sid)).onShard.at(-1)!.entry as Entry & { kind: "snapshot" };
    await reportAt(T_CALL + 10 * DAY);
    // 100 days on, the cut passes the reports made 10 days before the first snapshot, not the first snapshot itself.
    app.clock.now = T_CALL + 100 * DAY;
    const live = (await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!;
    const before = await scoreOf(app, sid, owner.key);
    await archivePass(app);
    const { onShard, all } = await wholeChain(sid);
    const second = onShard.at(-1)!.entry as Entry & { kind: "snapshot" };
    expect(second.n).toBeGreaterThan(first.n);
    expect(second.through).toBeGreaterThan(first.through);
    expect(second.through).toBeLessThan(first.n);
    // The first snapshot's pairs and owner carry on.
    expect(second.owner).toBe(first.owner);
    for (const key of Object.keys(first.pairs)) expect(second.pairs[key]).toBeDefined();
    expect(checkSnapshots(all.map((e) => e.entry))).toEqual([]);
    const fromGenesis = replayOf(all.filter((e) => e.kind !== "snapshot").map((e) => ({ entry: e.entry, who: e.operator })), Date.parse(live.createdAt)).state.model;
    expect(fromGenesis).toEqual(live.evidence);
    await rebuild(app, sid, owner.key);
    expect(await scoreOf(app, sid, owner.key)).toEqual(before);
    const rebuilt = (await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!;
    expect(rebuilt.evidence).toEqual(live.evidence);
  });

  it("a claim between the cut and the snapshot keeps the claimer's earlier reports weighed as the owner's", async () => {
    const { app, sid, claim_token, claimer } = await wildAgent("192.0.2.78");
    app.clock.now = T_CALL - 100 * DAY;
    expect((await app.request(`/agents/${sid}/claim`, { headers: bearer(claimer.key), body: { claim_token } })).status).toBe(200);
    app.clock.now = T_CALL;
    const live = (await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!;
    const before = await scoreOf(app, sid, claimer.key);
    await archivePass(app);
    const { onShard, all } = await wholeChain(sid);
    const snapshot = onShard.at(-1)!.entry as Entry & { kind: "snapshot" };
    expect(snapshot.owner).not.toBeNull();
    // The claimer's reports from before its claim are the owner's, in the snapshot as in the live state.
    expect(snapshot.pairs[snapshot.owner!]?.owner).toBe(true);
    expect(checkSnapshots(all.map((e) => e.entry))).toEqual([]);
    await rebuild(app, sid, claimer.key);
    expect(await scoreOf(app, sid, claimer.key)).toEqual(before);
    expect((await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!.evidence).toEqual(live.evidence);
  });

  it("a report withdrawn after the cut stays out of the snapshot, and a report under dispute stays on the shard", async () => {
    const h = testApp({ now: T_CALL - 260 * DAY, env: { HISTORY_WINDOW_DAYS: "200" } });
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const other = await createOperator({ verified: true });
    const registered = await h.request("/register", { headers: bearer(owner.key), body: { name: "Disputed", ...agentConfig } });
    const { sid } = (await registered.json()) as { sid: string };
    const reportBy = async (key: string, outcome: string) => {
      const res = await h.request("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome, qualitySignal: 800 } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { transaction_id: number }).transaction_id;
    };
    await reportBy(reporter.key, "success");
    h.clock.now += DAY;
    const failure = await reportBy(other.key, "failure");
    h.clock.now += DAY;
    expect((await h.request(`/transactions/${failure}/dispute`, { headers: bearer(owner.key), body: { reason: "never happened" } })).status).toBe(201);
    // Unanswered, the dispute goes to the admins; they decide long after.
    const escalateAt = h.clock.now + 15 * DAY;
    await runInDurableObject(env.AGENT.getByName(sid), (o) => void ((o as Agent).clock = () => escalateAt));
    // The alarm the test runs (whatever the object had set, its clock now says when it runs).
    await runInDurableObject(env.AGENT.getByName(sid), (_o, state) => state.storage.setAlarm(Date.now() + DAY));
    expect(await runDurableObjectAlarm(env.AGENT.getByName(sid))).toBe(true);
    const escalated = (await (await h.request("/admin/disputes?status=escalated&limit=100", { headers: ADMIN })).json()) as { disputes: { id: number; status: string }[] };
    expect(escalated.disputes.find((d) => d.id === failure)).toMatchObject({ status: "escalated" });
    // While it waits, a pass with the report past the window leaves it (and all after it) on the shard.
    const fromFailure = (entries: Awaited<ReturnType<typeof readEntries>>) => entries.filter((e) => e.kind !== "snapshot" && e.n >= seqOf(failure));
    const beforePass = fromFailure(await readEntries(await shardOf(sid), sid));
    expect(beforePass[0].n).toBe(seqOf(failure));
    h.clock.now = T_CALL - 230 * DAY + 200 * DAY + 31 * DAY;
    const waiting = (await h.request("/admin/history/archive", { headers: ADMIN, body: { limit: 500 } }).then((r) => r.json())) as { failed: number };
    expect(waiting.failed).toBe(0);
    expect(fromFailure(await readEntries(await shardOf(sid), sid))).toEqual(beforePass);
    h.clock.now = T_CALL - 100 * DAY;
    const decided = await h.request(`/admin/disputes/${failure}/decide`, { headers: ADMIN, body: { outcome: "withdraw" } });
    expect(decided.status).toBe(200);
    const live = (await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!;
    h.clock.now = T_CALL;
    const before = await scoreOf(h, sid, owner.key);
    await h.request("/admin/history/archive", { headers: ADMIN, body: { limit: 500 } });
    const { onShard, all } = await wholeChain(sid);
    const snapshot = onShard.filter((e) => e.kind === "snapshot").at(-1)!.entry as Entry & { kind: "snapshot" };
    // The withdrawn report is covered, its withdrawal is not: the snapshot leaves it out all the same.
    expect(snapshot.through).toBeGreaterThanOrEqual(seqOf(failure));
    expect(all.find((e) => e.kind === "withdrawal")!.n).toBeGreaterThan(snapshot.through);
    expect(checkSnapshots(all.map((e) => e.entry))).toEqual([]);
    await rebuild(h, sid, owner.key);
    expect(await scoreOf(h, sid, owner.key)).toEqual(before);
    expect((await runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect())).record!.evidence).toEqual(live.evidence);
  });

  it("survives a kill between the archive's put and the shard's delete: the rerun loses and doubles nothing", async () => {
    const { app, sid, owner } = await oldAgent(12, 2);
    const before = await scoreOf(app, sid, owner.key);
    const chain = await chainBefore(sid);
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
    expect(rerun.entries).toBe(chain.moving.length);
    const pages = await listPages(env.ARCHIVE_BUCKET, sid);
    expect(pages).toEqual([{ key: `history/${sid}/000000000001.json.gz`, first: 1, last: chain.last }]);
    const { archived, onShard, all } = await wholeChain(sid);
    expect(archived.map((e) => e.n)).toEqual(chain.moving);
    expect(onShard[0].n).toBe(chain.last + 1);
    expect(onShard.filter((e) => e.kind === "snapshot")).toHaveLength(1);
    expect(all.map((e) => e.n)).toEqual(upTo(chain.entries.length + 1));
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
    const chain = await chainBefore(sid);
    expect((await archivePass(app)).entries).toBe(chain.moving.length);
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
    const chain = await chainBefore(sid);
    expect((await archivePass(app)).entries).toBe(chain.moving.length);
    const target = ids[2];
    const withText = chain.entries.filter((e) => e.salt !== null).length;
    const erased = await app.request("/admin/history/erase", { headers: ADMIN, body: { sid, transaction_id: target } });
    expect(erased.status).toBe(200);
    expect(await erased.json()).toEqual({ sid, transaction_id: target, erased: 1 });
    const { archived, all } = await wholeChain(sid);
    const row = archived.find((e) => e.n === seqOf(target))!;
    expect(row.salt).toBeNull();
    expect(row.private).toBeNull();
    // Its neighbours keep theirs, and their text still opens their hashes.
    const neighbour = archived.find((e) => e.n === seqOf(ids[3]))!;
    expect((neighbour.entry as Entry & { kind: "report" }).type).toBe(await saltedHash(neighbour.salt!, "type", "type-3"));
    expect(await checkChain(all.map((e) => e.text))).toBeNull();
    const listed = (await (await app.request(`/agents/${sid}/transactions?limit=200`, { headers: bearer(owner.key) })).json()) as { transactions: { transaction_id: number; transaction_type: string }[] };
    expect(listed.transactions.find((t) => t.transaction_id === target)!.transaction_type).toBe("erased");

    // Every entry of the agent, on the shard and in the archive.
    const everything = await app.request("/admin/history/erase", { headers: ADMIN, body: { sid } });
    expect(((await everything.json()) as { erased: number }).erased).toBe(withText - 1);
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
    const chain = await chainBefore(sid);
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
    const youngChain = await chainBefore(young.sid);
    await runCron(env as Env);
    expect((await listPages(env.ARCHIVE_BUCKET, sid)).map((p) => [p.first, p.last])).toEqual([[1, chain.last]]);
    expect(await listPages(env.ARCHIVE_BUCKET, young.sid)).toEqual([]);
    expect((await readEntries(await shardOf(young.sid), young.sid)).map((e) => e.n)).toEqual(youngChain.entries.map((e) => e.n));
    expect((await readEntries(await shardOf(sid), sid)).map((e) => e.kind)).toEqual([...chain.staying.map((e) => e.kind), "snapshot"]);
  });

  it("moves an agent's history a period at a time: no snapshot a day, everything past the window once it is due", async () => {
    const { app, sid, owner } = await oldAgent(2, 0);
    for (const daysAgo of [395, 380]) {
      app.clock.now = T_CALL - daysAgo * DAY;
      expect((await app.request("/transactions", { headers: bearer(owner.key), body: { sid, transactionType: "t", outcome: "success" } })).status).toBe(201);
    }
    app.clock.now = T_CALL;
    const chain = await chainBefore(sid);
    const kept = chain.staying.map((e) => `${e.n}:${e.kind}`);
    expect(kept).toEqual([`${chain.last + 1}:report`, `${chain.last + 2}:report`]);
    expect((await archivePass(app)).failed).toBe(0);
    const kinds = async () => (await readEntries(await shardOf(sid), sid)).map((e) => `${e.n}:${e.kind}`);
    const snapshotN = chain.entries.length + 1;
    expect(await kinds()).toEqual([...kept, `${snapshotN}:snapshot`]);
    // Ten days on, the report of 395 days ago is past the window, but not yet by a period.
    app.clock.now = T_CALL + 10 * DAY;
    await archivePass(app);
    expect(await kinds()).toEqual([...kept, `${snapshotN}:snapshot`]);
    // Forty days on it is: both reports and the old snapshot go, after a new snapshot.
    app.clock.now = T_CALL + 40 * DAY;
    const before = await scoreOf(app, sid, owner.key);
    await archivePass(app);
    expect(await kinds()).toEqual([`${snapshotN + 1}:snapshot`]);
    await rebuild(app, sid, owner.key);
    expect(await scoreOf(app, sid, owner.key)).toEqual(before);
    expect((await listPages(env.ARCHIVE_BUCKET, sid)).map((p) => [p.first, p.last])).toEqual([[1, chain.last], [chain.last + 1, snapshotN]]);
    const { all } = await wholeChain(sid);
    expect(await checkChain(all.map((e) => e.text))).toBeNull();
    expect(checkSnapshots(all.map((e) => e.entry))).toEqual([]);
    expect(((await readEntries(await shardOf(sid), sid))[0].entry as Entry & { kind: "snapshot" }).through).toBe(snapshotN);
  });
});
