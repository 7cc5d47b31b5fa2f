// The cross-agent job in workerd (src/queues/credibility-run.ts): pairs and agents rows seeded with SQL
// on both shards, the job read page by page, the snapshot it publishes in R2 checked against the pure
// computation called on the same input, its resumption, its failures as /health shows them, and the
// reader the agents' objects use (src/db/snapshot.ts).
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { credibilityHealth, readRunState, writeRunState } from "../../src/db/credibility-run";
import { setAnchors } from "../../src/db/model-settings";
import { credibilityOf, forgetSnapshot, readLevels, snapshotInForce, SnapshotUnavailable } from "../../src/db/snapshot";
import { DAY_MS, job } from "../../src/domain/model";
import type { Env } from "../../src/env";
import { runCredibility } from "../../src/queues/credibility-run";
import { testApp } from "../helpers";

const NOW = Date.parse("2026-11-28T06:00:00Z");
const TODAY = Math.floor(NOW / DAY_MS);
const shards = [env.SHARD_0, env.SHARD_1!];

interface Pair {
  shard: number;
  sid: string;
  operator: number;
  vote: number;
  firstAt: number;
  receiptDay: number;
}
interface World {
  owners: Map<string, { shard: number; owner: number | null }>;
  pairs: Pair[];
  anchors: number[];
}

async function reset() {
  for (const shard of shards) await shard.batch([shard.prepare("DELETE FROM pairs"), shard.prepare("DELETE FROM agents")]);
  await env.DB.prepare("DELETE FROM model_settings WHERE key IN ('credibility_run', 'anchors')").run();
  const listed = await env.MODEL_BUCKET.list({ prefix: "snapshot/" });
  if (listed.objects.length > 0) await env.MODEL_BUCKET.delete(listed.objects.map((o) => o.key));
  forgetSnapshot();
}

async function seed(world: World) {
  for (const [sid, { shard, owner }] of world.owners) {
    await shards[shard]
      .prepare(
        "INSERT INTO agents (sid, operator_id, name, model_provider, model_name, fingerprint, last_config_change_at, evidence, created_at, updated_at) VALUES (?, ?, 'Agent', 'p', 'm', 'f', '2026-01-01', '{}', '2026-01-01', '2026-01-01')",
      )
      .bind(sid, owner)
      .run();
  }
  for (const p of world.pairs) {
    await shards[p.shard]
      .prepare("INSERT INTO pairs (sid, reporter, operator_id, vote, first_at, receipt_day, pair) VALUES (?, ?, ?, ?, ?, ?, '{}')")
      .bind(p.sid, `c-${p.operator}`, p.operator, p.vote, p.firstAt, p.receiptDay)
      .run();
  }
  await setAnchors(env, world.anchors, NOW);
}

/** The pure computation on the world, its ids mapped in id order as the job maps them. */
function expected(world: World, day: number, previousById: Uint8Array | null = null) {
  const ids = new Set<number>(world.anchors);
  for (const p of world.pairs) ids.add(p.operator);
  for (const { owner } of world.owners.values()) if (owner !== null) ids.add(owner);
  const sorted = [...ids].sort((a, b) => a - b);
  const index = new Map(sorted.map((id, i) => [id, i]));
  const owners: number[] = [];
  const agentOf = new Map<string, number>();
  const columns = shards.map((_, s) => {
    let c = job.emptyColumns(0);
    const mine = world.pairs.filter((p) => p.shard === s).sort((a, b) => (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : `c-${a.operator}` < `c-${b.operator}` ? -1 : 1));
    for (const p of mine) {
      if (!agentOf.has(p.sid)) {
        agentOf.set(p.sid, owners.length);
        const owner = world.owners.get(p.sid)?.owner ?? null;
        owners.push(owner === null ? -1 : index.get(owner)!);
      }
      c = job.pushPair(c, agentOf.get(p.sid)!, index.get(p.operator)!, p.vote, p.firstAt, p.receiptDay);
    }
    return c;
  });
  const snapshot = job.computeCredibility({
    operators: sorted.length,
    owners: Int32Array.from(owners),
    anchors: world.anchors.map((a) => index.get(a)!),
    shards: columns,
    previous: previousById ? Uint8Array.from(sorted, (id) => previousById[id] ?? 0) : null,
    day,
  });
  return new Map(sorted.map((id, i) => [id, snapshot.levels[i]]));
}

// Operators: anchors 101, 102, 103 own agents on both shards; 200 dealt with all three with receipts
// 40 days ago; 201 did the same today (a new account); 202 reported without receipts; 300 owns an
// agent that anchor 101 praised with a receipt (trusted from the second run); 203 dealt with 300's
// agent, 301 praised 300's agent once; 204 slandered an anchor's agent that everyone else praised.
function world(): World {
  const owners = new Map<string, { shard: number; owner: number | null }>([
    ["SID-0x00000000000000a1", { shard: 0, owner: 101 }],
    ["SID-0x00000000000000a2", { shard: 1, owner: 102 }],
    ["SID-0x00000000000000a3", { shard: 0, owner: 103 }],
    ["SID-0x0000000000000300", { shard: 1, owner: 300 }],
    ["SID-0x0000000000000999", { shard: 1, owner: null }],
  ]);
  const pairs: Pair[] = [];
  const old = TODAY - 40;
  let t = NOW - 50 * DAY_MS;
  const pair = (sid: string, operator: number, vote: number, receiptDay: number) => pairs.push({ shard: owners.get(sid)!.shard, sid, operator, vote, firstAt: (t += 60_000), receiptDay });
  for (const sid of ["SID-0x00000000000000a1", "SID-0x00000000000000a2", "SID-0x00000000000000a3"]) {
    pair(sid, 200, 1000, old);
    pair(sid, 201, 1000, TODAY);
    pair(sid, 202, 1000, -1);
    pair(sid, 204, 0, old);
    pair(sid, 101, 1000, old); // anchor 101 deals with the others (and reports on its own agent)
  }
  pair("SID-0x0000000000000300", 101, 1000, old);
  pair("SID-0x0000000000000300", 203, 900, old);
  pair("SID-0x0000000000000300", 301, 1000, -1);
  pair("SID-0x0000000000000999", 200, 650, old);
  return { owners, pairs, anchors: [101, 102, 103] };
}

/** The job until it publishes; the number of invocations. */
async function publish(e: Env, now: number, options: Parameters<typeof runCredibility>[2] = {}) {
  for (let call = 1; call <= 200; call++) {
    const outcome = await runCredibility(e, now, { ...options, force: call === 1 && options.force });
    if (outcome.status === "published") return { calls: call, outcome };
    expect(outcome.status, outcome.error).toBe("in_progress");
  }
  throw new Error("the job never published");
}

async function published(id: string) {
  const levels = (await readLevels(env.MODEL_BUCKET, id))!;
  return (ids: Iterable<number>) => new Map([...ids].map((i) => [i, levels[i] ?? 0]));
}

/** An R2 binding that counts its reads and can be made to fail. */
function countedBucket() {
  const counter = { gets: [] as string[], failing: false };
  const bucket = {
    get: async (key: string) => {
      counter.gets.push(key);
      if (counter.failing) throw new Error("R2 unreachable");
      return env.MODEL_BUCKET.get(key);
    },
  } as unknown as R2Bucket;
  return { counter, env: { MODEL_BUCKET: bucket } };
}

beforeEach(reset);

describe("the cross-agent job", () => {
  it("publishes what the pure computation gives on the same pairs: anchors at 1, receipted dealings with trusted owners over 30 days credible, new accounts at 0", async () => {
    const w = world();
    await seed(w);
    const { outcome } = await publish(env, NOW);
    expect(outcome.state.last).toMatchObject({ id: "2026-11-28.1", day: TODAY, pairs: w.pairs.length, anchors: 3, previous: null });
    const want = expected(w, TODAY);
    const got = (await published("2026-11-28.1"))(want.keys());
    expect(got).toEqual(want);
    expect([101, 102, 103].map((a) => got.get(a))).toEqual([20, 20, 20]);
    expect(got.get(200)).toBeGreaterThan(0);
    expect(got.get(201)).toBe(0); // receipts today: age 0
    expect(got.get(202)).toBe(0); // no receipts
    expect(got.get(203)).toBe(0); // 300 is not trusted yet: no anchor's c passed to it before this run
    // The manifest puts it in force, and the reader gives c as a multiple of 0.05.
    expect(await snapshotInForce(env, NOW)).toBe("2026-11-28.1");
    const read = await credibilityOf(env, [101, 200, 201, 99_999], NOW);
    expect(read.snapshot).toBe("2026-11-28.1");
    expect(read.values.get(101)).toBe(1);
    expect(read.values.get(200)).toBe(got.get(200)! / 20);
    expect(read.values.get(201)).toBe(0);
    expect(read.values.get(99_999)).toBe(0);

    // The next day's run starts from these levels: 101's receipted praise makes 300 trusted, so 203
    // (a receipted dealing with 300, 40 days old) gains breadth.
    const tomorrow = NOW + DAY_MS;
    const second = await publish(env, tomorrow);
    expect(second.outcome.state.last).toMatchObject({ id: "2026-11-29.2", previous: "2026-11-28.1" });
    const first = (await readLevels(env.MODEL_BUCKET, "2026-11-28.1"))!;
    const want2 = expected(w, TODAY + 1, first);
    const got2 = (await published("2026-11-29.2"))(want2.keys());
    expect(got2).toEqual(want2);
    expect(got2.get(203)).toBeGreaterThan(0);
    // Today's snapshot is out: the cron's next call does nothing.
    expect((await runCredibility(env, tomorrow + 60_000)).status).toBe("current");
  });

  it("resumes after its budget, and after a kill between a staged page and its state, counting nothing twice", async () => {
    const w = world();
    await seed(w);
    const want = expected(w, TODAY);

    // One page of 3 pairs an invocation: every agent's pairs straddle pages.
    const budgeted = await publish(env, NOW, { pages: 1, pageRows: 3 });
    expect(budgeted.calls).toBeGreaterThan(w.pairs.length / 3);
    expect(budgeted.outcome.state.last!.pairs).toBe(w.pairs.length);
    expect((await published("2026-11-28.1"))(want.keys())).toEqual(want);

    // A kill: the second invocation staged its page but its state never moved.
    const first = await runCredibility(env, NOW, { pages: 1, pageRows: 3, force: true });
    expect(first.status).toBe("in_progress");
    const second = await runCredibility(env, NOW, { pages: 1, pageRows: 3 });
    expect(second.state.run!.counts.reduce((a, b) => a + b)).toBe(6);
    const { v: _, ...before } = first.state;
    expect(await writeRunState(env, second.state, before, NOW)).not.toBeNull();
    const resumed = await publish(env, NOW, { pages: 2, pageRows: 3 });
    expect(resumed.outcome.state.last).toMatchObject({ id: "2026-11-28.2", pairs: w.pairs.length });
    expect((await published("2026-11-28.2"))(want.keys())).toEqual(want);
    // The staged pages are gone once published.
    expect((await env.MODEL_BUCKET.list({ prefix: "snapshot/runs/" })).objects).toEqual([]);
  });

  it("records a failure in its state and /health (with the snapshot in force and its age), resumes, and clears it once published", async () => {
    const w = world();
    await seed(w);
    await publish(env, NOW);
    const later = NOW + DAY_MS;
    const down = { prepare: () => ({ bind: () => ({ all: () => Promise.reject(new Error("D1_ERROR: shard unreachable")) }), all: () => Promise.reject(new Error("D1_ERROR: shard unreachable")) }) };
    const failing = { ...env, SHARD_1: down } as unknown as Env;
    const outcome = await runCredibility(failing, later, { pageRows: 4 });
    expect(outcome.status).toBe("failed");
    expect(outcome.error).toMatch(/shard unreachable/);
    expect(outcome.state.failure).toMatchObject({ kind: "error", run: "2026-11-29.2" });
    expect(outcome.state.run).toMatchObject({ shard: 1, failures: 1 });

    const health = await testApp({ now: later + 3_600_000 }).request("/health");
    expect(health.status).toBe(200);
    const body = (await health.json()) as { status: string; credibility: Record<string, unknown> };
    expect(body.status).toBe("ok");
    expect(body.credibility).toEqual({ status: "failing", snapshot: "2026-11-28.1", age_seconds: 25 * 3600, problem: expect.stringMatching(/^run 2026-11-29\.2: .*shard unreachable/), anchors: 3 });

    // The next invocation goes on at shard 1 (shard 0's pages stay staged) and clears the failure.
    const resumed = await runCredibility(env, later, { pageRows: 4 });
    expect(resumed.status).toBe("published");
    expect(resumed.state.failure).toBeNull();
    expect(resumed.state.last).toMatchObject({ id: "2026-11-29.2", pairs: w.pairs.length });
    const ok = await testApp({ now: later + 60_000 }).request("/health");
    expect(((await ok.json()) as { credibility: unknown }).credibility).toEqual({ status: "ok", snapshot: "2026-11-29.2", age_seconds: 60, problem: null, anchors: 3 });
    // No anchor named: said, since with none no agent can be clear.
    await env.DB.prepare("DELETE FROM model_settings WHERE key = 'anchors'").run();
    const none = await testApp({ now: later + 60_000 }).request("/health");
    expect(((await none.json()) as { credibility: { anchors: number } }).credibility.anchors).toBe(0);
  });

  it("never stops silently: too many pairs, errors in a row, a stalled run and a stale snapshot all show as failing", async () => {
    const w = world();
    await seed(w);
    const tooLarge = await runCredibility(env, NOW, { pageRows: 4, maxPairs: 5 });
    expect(tooLarge.status).toBe("too_large");
    expect(tooLarge.state.failure).toMatchObject({ kind: "too_large" });
    expect(tooLarge.state.run).toBeNull();
    // Given up for the day: the cron's next call reads nothing and says so again.
    const again = await runCredibility(env, NOW + 900_000, { pageRows: 4, maxPairs: 5 });
    expect(again).toMatchObject({ status: "too_large", read: { pages: 0 } });
    expect(credibilityHealth(again.state, NOW).problem).toMatch(/more than 5 pairs/);
    // An admin's forced run with the limit raised publishes, and clears the failure.
    const forced = await publish(env, NOW, { force: true, pageRows: 4 });
    expect(forced.outcome.state.failure).toBeNull();
    expect(credibilityHealth(forced.outcome.state, NOW + 60_000)).toEqual({ status: "ok", snapshot: "2026-11-28.2", ageSeconds: 60, problem: null });

    // Five errors in a row: the run starts again from the first page (and the failure stays shown).
    const bucketDown = { ...env, MODEL_BUCKET: { put: () => Promise.reject(new Error("R2 unreachable")), list: env.MODEL_BUCKET.list.bind(env.MODEL_BUCKET), delete: env.MODEL_BUCKET.delete.bind(env.MODEL_BUCKET) } } as unknown as Env;
    const tomorrow = NOW + DAY_MS;
    let last;
    for (let i = 0; i < 5; i++) last = await runCredibility(bucketDown, tomorrow);
    expect(last!.state.run).toBeNull();
    expect(last!.state.failure!.message).toMatch(/R2 unreachable \(5 failures in a row/);
    expect(credibilityHealth(last!.state, tomorrow).status).toBe("failing");

    // A run under way for 6 hours (its invocations killed before they could record anything).
    const started = await runCredibility(env, tomorrow, { pages: 1, pageRows: 2 });
    expect(started.status).toBe("in_progress");
    expect(credibilityHealth(started.state, tomorrow + 3_600_000).problem).toMatch(/^run 2026-11-29\.3: R2 unreachable/);
    const cleared = { ...started.state, failure: null };
    expect(credibilityHealth(cleared, tomorrow + 3_600_000).status).toBe("ok");
    expect(credibilityHealth(cleared, tomorrow + 6 * 3_600_000).problem).toMatch(/^run 2026-11-29\.4 started 6 hours ago and has not finished/);
    // A snapshot in force two days old.
    expect(credibilityHealth({ ...cleared, run: null }, NOW + 2 * DAY_MS).problem).toMatch(/^no snapshot published since 2026-11-28T06:00:00/);
  });

  it("gives a run killed each time it computes up for the day after 3 attempts", async () => {
    await seed(world());
    // Three computations that never ended (as a Worker over its memory leaves them).
    const started = await runCredibility(env, NOW, { pages: 1, pageRows: 100 });
    expect(started.status).toBe("in_progress");
    const state = await readRunState(env);
    const { v: _, ...rest } = state;
    await writeRunState(env, state, { ...rest, run: { ...state.run!, shard: 2, attempts: 3 } }, NOW);
    const gaveUp = await runCredibility(env, NOW);
    expect(gaveUp.status).toBe("failed");
    expect(gaveUp.state).toMatchObject({ run: null, gaveUp: TODAY, failure: { kind: "unfinished" } });
    expect(await runCredibility(env, NOW + 900_000)).toMatchObject({ status: "failed", read: { pages: 0 }, error: expect.stringMatching(/started 3 times and never finished/) });
    // The next day a run starts again.
    expect((await runCredibility(env, NOW + DAY_MS)).status).toBe("published");
  });
});

describe("a slanderer", () => {
  it("loses credibility for its slanders whether they carried receipts or not, as the service's job computes it", async () => {
    const owners = new Map<string, { shard: number; owner: number | null }>([
      ["SID-0x00000000000000a1", { shard: 0, owner: 101 }],
      ["SID-0x00000000000000a2", { shard: 1, owner: 102 }],
      ["SID-0x00000000000000a3", { shard: 0, owner: 103 }],
    ]);
    const praised = Array.from({ length: 8 }, (_, i) => `SID-0x00000000000005${String(i).padStart(2, "0")}`);
    for (const [i, sid] of praised.entries()) owners.set(sid, { shard: i % 2, owner: 101 + (i % 3) });
    const pairs: Pair[] = [];
    const old = TODAY - 40;
    let t = NOW - 50 * DAY_MS;
    const pair = (sid: string, operator: number, vote: number, receiptDay: number) => pairs.push({ shard: owners.get(sid)!.shard, sid, operator, vote, firstAt: (t += 60_000), receiptDay });
    // Three reporters with the same receipted dealings with the anchors' agents, 40 days old.
    for (const sid of ["SID-0x00000000000000a1", "SID-0x00000000000000a2", "SID-0x00000000000000a3"]) for (const op of [210, 211, 212]) pair(sid, op, 1000, old);
    // The anchors praise eight agents; 210 and 211 then call each a failure, 210 with receipts, 211 without.
    for (const sid of praised) for (const op of [101, 102, 103]) pair(sid, op, 1000, old);
    for (const sid of praised) {
      pair(sid, 210, 0, old);
      pair(sid, 211, 0, -1);
    }
    await seed({ owners, pairs, anchors: [101, 102, 103] });
    const { outcome } = await publish(env, NOW, { force: true });
    const levels = (await published(outcome.state.last!.id))([210, 211, 212]);
    for (const [op, level] of levels) expect(level, `operator ${op}`).toBe(expected({ owners, pairs, anchors: [101, 102, 103] }, TODAY).get(op));
    expect(levels.get(212)).toBe(20);
    expect(levels.get(210)).toBeLessThan(levels.get(212)!);
    expect(levels.get(211)).toBe(levels.get(210));
  });
});

describe("the snapshot reader", () => {
  it("reads only the buckets of the operators asked, each once per snapshot per isolate, and the manifest once a minute", async () => {
    const w = world();
    await seed(w);
    // Before the first snapshot: none, every operator at 0, no bucket read.
    const none = countedBucket();
    expect(await credibilityOf(none.env, [101, 200], NOW)).toEqual({ snapshot: null, values: new Map([[101, 0], [200, 0]]) });
    expect(none.counter.gets).toEqual(["snapshot/current.json"]);
    forgetSnapshot();

    // 8 ids a bucket: 101 and 103 in bucket 12, 200-204 in 25, 300 and 301 in 37 and 37.
    await publish(env, NOW, { bucketIds: 8 });
    forgetSnapshot();
    const manifest = (await (await env.MODEL_BUCKET.get("snapshot/current.json"))!.json()) as { operators: number; buckets: number };
    expect(manifest).toMatchObject({ operators: 302, buckets: 38 });
    const r2 = countedBucket();
    const first = await credibilityOf(r2.env, [101, 103, 200], NOW);
    expect(first.values.get(101)).toBe(1);
    expect(r2.counter.gets.sort()).toEqual(["snapshot/2026-11-28.1/b/12.bin", "snapshot/2026-11-28.1/b/25.bin", "snapshot/current.json"]);
    r2.counter.gets.length = 0;
    await credibilityOf(r2.env, [102, 201], NOW + 30_000);
    expect(r2.counter.gets).toEqual([]);
    await credibilityOf(r2.env, [300, 5_000_000], NOW + 30_000);
    expect(r2.counter.gets).toEqual(["snapshot/2026-11-28.1/b/37.bin"]);
    expect(await snapshotInForce(r2.env, NOW + 59_000)).toBe("2026-11-28.1");
    expect(r2.counter.gets).toHaveLength(1);

    // A new snapshot is taken up within the minute after it is in force; its buckets are read anew.
    expect((await runCredibility(env, NOW + DAY_MS, { bucketIds: 8 })).status).toBe("published");
    r2.counter.gets.length = 0;
    await credibilityOf(r2.env, [101], NOW + DAY_MS + 61_000);
    expect(r2.counter.gets.sort()).toEqual(["snapshot/2026-11-29.2/b/12.bin", "snapshot/current.json"]);
  });

  it("throws SnapshotUnavailable when R2 cannot be read or a bucket is missing: the caller keeps the values in force", async () => {
    await seed(world());
    await publish(env, NOW, { bucketIds: 8 });
    forgetSnapshot();
    const r2 = countedBucket();
    r2.counter.failing = true;
    await expect(snapshotInForce(r2.env, NOW)).rejects.toBeInstanceOf(SnapshotUnavailable);
    r2.counter.failing = false;
    expect(await snapshotInForce(r2.env, NOW)).toBe("2026-11-28.1");
    r2.counter.failing = true;
    const error = await credibilityOf(r2.env, [200], NOW).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotUnavailable);
    expect((error as SnapshotUnavailable).code).toBe("unavailable");
    r2.counter.failing = false;
    await env.MODEL_BUCKET.delete("snapshot/2026-11-28.1/b/37.bin");
    await expect(credibilityOf(r2.env, [300], NOW)).rejects.toThrow(/bucket 37 of 2026-11-28.1 is missing/);
  });
});

describe("the cross-agent job at size", () => {
  it("reads 50,000 pairs on two shards by the primary key, page by page, and publishes what the pure computation gives", async () => {
    // A deterministic world: 1,000 agents (500 a shard, owners among 1,500 operators, every tenth
    // unowned), 50 distinct reporters each among 2,000 operators, votes mostly successes, 60% receipted.
    let seedValue = 7;
    const random = () => ((seedValue = (seedValue * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
    const w: World = { owners: new Map(), pairs: [], anchors: [1, 2, 3] };
    const VOTES = [1000, 1000, 1000, 650, 500, 250, 0];
    for (let a = 0; a < 1000; a++) {
      const sid = `SID-0x${a.toString(16).padStart(16, "0")}`;
      const shard = a % 2;
      w.owners.set(sid, { shard, owner: a % 10 === 9 ? null : (a % 1500) + 1 });
      const reporters = new Set<number>();
      while (reporters.size < 50) reporters.add(1 + Math.floor(random() * 2000));
      for (const operator of reporters) {
        const receiptDay = random() < 0.6 ? TODAY - Math.floor(random() * 60) : -1;
        w.pairs.push({ shard, sid, operator, vote: VOTES[Math.floor(random() * VOTES.length)], firstAt: NOW - 60 * DAY_MS + Math.floor(random() * 59 * DAY_MS), receiptDay });
      }
    }
    for (const [sid, { shard, owner }] of w.owners) {
      await shards[shard]
        .prepare("INSERT INTO agents (sid, operator_id, name, model_provider, model_name, fingerprint, last_config_change_at, evidence, created_at, updated_at) VALUES (?, ?, 'Agent', 'p', 'm', 'f', '2026-01-01', '{}', '2026-01-01', '2026-01-01')")
        .bind(sid, owner)
        .run();
    }
    for (let i = 0; i < w.pairs.length; i += 1000) {
      const rows = w.pairs.slice(i, i + 1000);
      for (const s of [0, 1]) {
        const mine = rows.filter((p) => p.shard === s);
        if (mine.length === 0) continue;
        const values = mine.map((p) => `('${p.sid}', 'c-${p.operator}', ${p.operator}, ${p.vote}, ${p.firstAt}, ${p.receiptDay}, '{}')`).join(", ");
        await shards[s].prepare(`INSERT INTO pairs (sid, reporter, operator_id, vote, first_at, receipt_day, pair) VALUES ${values}`).run();
      }
    }
    await setAnchors(env, w.anchors, NOW);

    // The cursor's query is a range search on the primary key, not a scan and a sort.
    const plan = await env.SHARD_0.prepare("EXPLAIN QUERY PLAN SELECT p.sid FROM pairs p LEFT JOIN agents a ON a.sid = p.sid WHERE (p.sid, p.reporter) > (?, ?) ORDER BY p.sid, p.reporter LIMIT 10")
      .bind("SID-0x0000000000000010", "c-5")
      .all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail).join("; ");
    expect(details).toMatch(/SEARCH p USING PRIMARY KEY \(\(sid,reporter\)>\(\?,\?\)\)/);
    expect(details).not.toMatch(/TEMP B-TREE/);

    const want = expected(w, TODAY);
    const started = performance.now();
    const { calls, outcome } = await publish(env, NOW, { pages: 4 });
    const ms = performance.now() - started;
    console.log(JSON.stringify({ measured: "credibility run", pairs: w.pairs.length, operators: want.size, invocations: calls, ms: Math.round(ms) }));
    expect(calls).toBe(3); // 11 pages of 5,000 (one empty), 4 an invocation
    expect(outcome.state.last).toMatchObject({ pairs: 50_000, operators: 2001 });
    expect((await published(outcome.state.last!.id))(want.keys())).toEqual(want);
    expect(outcome.state.last!.credible).toBe([...want.values()].filter((l) => l > 0).length);
  });
});
