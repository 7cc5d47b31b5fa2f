// The monitor's step and the client's comparison of checkpoints, against logs that misbehave: a
// fork, a shrink, a stale checkpoint presented as current, a bad signature. And the owner's check
// against the service: every leaf of its agent found with its keys, a leaf the log lacks reported.
import { runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogClient } from "../../clients/typescript/log";
import { exitCode, MAX_LOG_DELAY_MS, MONITOR_EXIT, monitorStep, ownerCheck, type MonitorState } from "../../clients/typescript/log-monitor";
import type { ListedEntry, OwnerLogKeys } from "../../clients/typescript/verify";
import { verifyCheckpoint, type LeafItem } from "../../src/domain/log";
import { bearer, call, createOperator, registerAgent } from "../helpers";
import { holdQueues, type HeldQueues } from "../queues";
import { FakeLog, newKey } from "./fake-log";
import { checkpointOf, sequencer, verifiersOf } from "./helpers";

const ORIGIN = "monitor.test/log/0";
const leaves = (from: number, to: number, tag = "") => Array.from({ length: to - from }, (_, i) => `leaf ${from + i}${tag}`);

async function setUp() {
  const log = new FakeLog(ORIGIN, await newKey());
  const client = createLogClient({ baseUrl: "http://fake.test", log: 0, fetch: log.fetch });
  const state: MonitorState = { origin: ORIGIN, keys: [await log.verifierKey()], checkpoint: null };
  return { log, client, state };
}

describe("the monitor", () => {
  it("follows a log that only grows", async () => {
    const { log, client, state } = await setUp();
    await log.grow(leaves(0, 3));
    let step = await monitorStep(client, state);
    expect(step.verdict).toEqual({ kind: "first", size: 3 });
    step = await monitorStep(client, step.state);
    expect(step.verdict).toEqual({ kind: "same", size: 3 });
    await log.grow(leaves(3, 300));
    step = await monitorStep(client, step.state);
    expect(step.verdict).toEqual({ kind: "newer", from: 3, to: 300 });
    expect(exitCode(step.verdict)).toBe(MONITOR_EXIT.ok);
    expect(step.state.checkpoint).toBe(log.served.get("checkpoint"));
    // The checkpoint kept, verified once, for the owner's check.
    expect(step.kept?.size).toBe(300);
  });

  it("alerts on a fork: another tree of the same size, or a larger tree that does not extend the last", async () => {
    const { log, client, state } = await setUp();
    await log.grow(leaves(0, 5));
    const { state: seen } = await monitorStep(client, state);
    // The log shows this monitor one history and someone else another, signed with the same key.
    const other = new FakeLog(ORIGIN, log.key);
    await other.grow(leaves(0, 5, " rewritten"));
    const forked = createLogClient({ baseUrl: "http://fake.test", log: 0, fetch: other.fetch });
    const same = await monitorStep(forked, seen);
    expect(same.verdict).toMatchObject({ kind: "fork", last: 5, seen: 5 });
    expect(exitCode(same.verdict)).toBe(MONITOR_EXIT.fork);
    expect(same.state).toEqual(seen); // the last checkpoint seen stays the evidence
    await other.grow(leaves(5, 9));
    const larger = await monitorStep(forked, seen);
    expect(larger.verdict).toMatchObject({ kind: "fork", last: 5, seen: 9 });
    if (larger.verdict.kind === "fork") expect(larger.verdict.evidence).toEqual([seen.checkpoint, other.served.get("checkpoint")]);
  });

  it("alerts on a shrink: an older tree after a newer one, even a consistent one (a stale checkpoint presented as current)", async () => {
    const { log, client, state } = await setUp();
    const old = await log.grow(leaves(0, 4));
    await log.grow(leaves(4, 6));
    const { state: seen } = await monitorStep(client, state);
    log.served.set("checkpoint", old); // the log (or a cache) serves its older checkpoint again
    const step = await monitorStep(client, seen);
    expect(step.verdict).toMatchObject({ kind: "shrink", last: 6, seen: 4 });
    expect(exitCode(step.verdict)).toBe(MONITOR_EXIT.shrink);
    // A relying party that kept the newer one learns the same: consistent, but not newer.
    const { verifyCheckpoint } = await import("../../src/domain/log");
    const [kept, presented] = [await verifyCheckpoint(seen.checkpoint!, state.keys), await verifyCheckpoint(old, state.keys)];
    expect(await client.compare(kept, presented)).toBe("stale");
  });

  it("alerts on a checkpoint the pinned keys did not sign, or of another log", async () => {
    const { log, client, state } = await setUp();
    await log.grow(leaves(0, 2));
    const { state: seen } = await monitorStep(client, state);
    await log.grow(leaves(2, 3), await newKey()); // signed by a key nobody pinned
    const step = await monitorStep(client, seen);
    expect(step.verdict).toEqual({ kind: "bad-signature", reason: "no signature by a known key" });
    expect(exitCode(step.verdict)).toBe(MONITOR_EXIT.badSignature);
    // A checkpoint of the right key whose size was changed after signing.
    log.served.set("checkpoint", (await log.grow([])).replace("\n3\n", "\n4\n"));
    expect((await monitorStep(client, seen)).verdict).toMatchObject({ kind: "bad-signature", reason: expect.stringMatching(/^invalid signature for key monitor\.test\/log\/0\+/) });
    const elsewhere = await setUp();
    await elsewhere.log.grow(leaves(0, 1));
    const wrongOrigin = await monitorStep(elsewhere.client, { ...elsewhere.state, origin: "monitor.test/log/1" });
    expect(wrongOrigin.verdict).toEqual({ kind: "bad-signature", reason: "the checkpoint is of monitor.test/log/0, not monitor.test/log/1" });
  });
});

describe("the monitor's owner check", () => {
  let queues: HeldQueues;
  beforeEach(() => void (queues = holdQueues({}, { log: true })));
  afterEach(() => queues.release());

  /** An agent with a registration and four reports, its leaves sequenced but for those `drop` removes from the log's queue. */
  async function agentInLog(drop: (n: number) => boolean = () => false) {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    for (let i = 0; i < 4; i++) {
      const res = await call("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success", reliabilitySignal: 800 } });
      expect(res.status).toBe(201);
    }
    for (const m of queues.pending) {
      if (m.queue !== "trust-log") continue;
      const body = m.body as { leaves: LeafItem[] };
      body.leaves = body.leaves.filter((l) => !(l.sid === sid && drop(l.n ?? 0)));
    }
    await queues.drain();
    const keys = (await (await call(`/agents/${sid}/log-keys`, { headers: bearer(owner.key) })).json()) as OwnerLogKeys;
    const n = keys.log.log;
    await runDurableObjectAlarm(await sequencer(n));
    await caches.default.delete(`https://log.cache/log/${n}/checkpoint`);
    const listed = ((await (await call(`/agents/${sid}/entries?limit=200`, { headers: bearer(owner.key) })).json()) as { entries: ListedEntry[] }).entries;
    const times = new Map(listed.map((e) => [e.n, Date.parse((JSON.parse(e.entry) as { at: string }).at)]));
    const client = createLogClient({ baseUrl: "http://trust.test", log: n, fetch: async (input) => call(new URL(String(input)).pathname) });
    const checkpoint = await verifyCheckpoint((await checkpointOf(n))!, await verifiersOf(n));
    return { keys, times, client, checkpoint, last: Math.max(...times.values()) };
  }

  it("finds every leaf of the agent with the owner's keys", async () => {
    const { keys, times, client, checkpoint, last } = await agentInLog();
    expect(keys).toMatchObject({ seq: 5, cutover: 0 });
    const check = await ownerCheck(client, checkpoint, keys, times, last + MAX_LOG_DELAY_MS + 1);
    expect(check).toEqual({ entries: 5, found: 5, missing: [], pending: [] });
  });

  it("reports a leaf the log does not hold: pending within the maximum delay, missing after it", async () => {
    const { keys, times, client, checkpoint, last } = await agentInLog((n) => n === 5);
    const at = times.get(5)!;
    expect(await ownerCheck(client, checkpoint, keys, times, at + MAX_LOG_DELAY_MS)).toEqual({ entries: 5, found: 4, missing: [], pending: [5] });
    expect(await ownerCheck(client, checkpoint, keys, times, last + MAX_LOG_DELAY_MS + 1)).toEqual({ entries: 5, found: 4, missing: [5], pending: [] });
    // An entry the listing does not date counts as due.
    expect((await ownerCheck(client, checkpoint, keys, new Map(), at)).missing).toEqual([5]);
  });
});
