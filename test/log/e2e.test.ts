// The log end to end in workerd: a report on an agent → its leaf through the trust-log queue (the
// agent's outbox) → the sequencer integrates it → the checkpoint covers it and the log client
// verifies its inclusion from the tiles the service serves; a leaf whose message was lost is sent
// again by the object's alarm and lands exactly once.
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogClient } from "../../clients/typescript/log";
import { readEntries } from "../../src/db/history";
import { isTagged, parseBundle, parseLeaf, tileWidth, TILE_WIDTH, type LeafItem } from "../../src/domain/log";
import { leafNames, type OwnerLogKeys } from "../../clients/typescript/verify";
import type { Agent } from "../agent-under-test";
import { forgetSnapshot } from "../../src/db/snapshot";
import { ADMIN, bearer, call, createOperator, publishCredibility, registerAgent, settled, shardOf, T_CALL } from "../helpers";
import { holdQueues, type HeldQueues } from "../queues";
import { bucketTiles, markOf, sequencer } from "./helpers";

let queues: HeldQueues;
beforeEach(() => void (queues = holdQueues({}, { log: true })));
afterEach(() => {
  queues.release();
  forgetSnapshot();
});

/** A reporter the snapshot in force knows (c = 1): its first report on an agent comes after a credibility entry. */
async function credibleReporter() {
  const reporter = await createOperator({ verified: true });
  await publishCredibility({ [reporter.id]: 1 }, T_CALL);
  return reporter;
}

const agentObject = (sid: string) => env.AGENT.getByName(sid);
const logOf = async (sid: string) => (await env.DB.prepare("SELECT log FROM agent_directory WHERE sid = ?").bind(sid).first<{ log: number }>())!.log;
/** The row's outbox cursor: the entries up to it were handed to the queues. */
const published = async (sid: string) => (await (await shardOf(sid)).prepare("SELECT published FROM agents WHERE sid = ?").bind(sid).first<{ published: number }>())!.published;

/** Sends what the queues hold to the sequencer, then runs its batch (its clock frozen, its alarm run by the test). */
async function sequence(log: number) {
  const stub = await sequencer(log);
  await queues.drain();
  await runDurableObjectAlarm(stub);
  // The checkpoint is cached two seconds at the edge: read the new one past the cache.
  await caches.default.delete(`https://log.cache/log/${log}/checkpoint`);
  return stub;
}

const client = (n: number) => createLogClient({ baseUrl: "http://trust.test", log: n, fetch: async (input) => call(new URL(String(input)).pathname) });

/** The owner's keys to its agent's leaves (GET /agents/{sid}/log-keys). */
async function ownerKeys(key: string, sid: string): Promise<OwnerLogKeys> {
  const res = await call(`/agents/${sid}/log-keys`, { headers: bearer(key) });
  expect(res.status).toBe(200);
  return (await res.json()) as OwnerLogKeys;
}

/** The entry numbers of every leaf of the agent in the log's tree of `size` leaves, found with its owner's keys in its entry bundles. */
async function leavesOfAgent(n: number, size: number, keys: OwnerLogKeys): Promise<number[]> {
  const names = await leafNames(keys, keys.seq);
  const found: number[] = [];
  for (let b = 0; b * TILE_WIDTH < size; b++) {
    const bundle = parseBundle(await bucketTiles(n)({ level: "entries", index: b, width: tileWidth(0, b, size) }))!;
    for (const bytes of bundle) {
      const leaf = parseLeaf(bytes)!;
      const seq = isTagged(leaf) ? names.tags.get(leaf.tag) : leaf.agent === names.agent ? leaf.seq : undefined;
      if (seq !== undefined) found.push(seq);
    }
  }
  return found;
}

const itemsOf = (body: unknown) => (body as { leaves: LeafItem[] }).leaves;
const logMessages = () => queues.pending.filter((m) => m.queue === "trust-log");

async function report(key: string, sid: string) {
  const res = await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "success", reliabilitySignal: 800 } });
  expect(res.status).toBe(201);
}

/** The entry numbers of the agent's leaves its log holds, in order, found with its owner's keys, and its head (acknowledged, or the test fails). */
async function inLog(sid: string, key: string) {
  const n = await logOf(sid);
  const head = (await runInDurableObject(agentObject(sid), (o) => (o as Agent).inspect())).record!.seq;
  const status = await (await sequencer(n)).status(await markOf(sid));
  expect(status.acknowledged).toBe(head);
  return { head, seqs: (await leavesOfAgent(n, status.sequenced!.tree_size, await ownerKeys(key, sid))).sort((a, b) => a - b) };
}

const seqsTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("the transparency log, end to end", () => {
  it("takes a report's leaf through the queue into the sequenced tree, verifiable from the tiles", async () => {
    const owner = await createOperator();
    const reporter = await credibleReporter();
    const { sid } = await registerAgent(owner.key);
    const earlier = logMessages().length;
    await report(reporter.key, sid);
    const n = await logOf(sid);
    // The reporter's credibility entry and its report: one change, one message.
    const sent = logMessages().slice(earlier);
    expect(sent).toHaveLength(1);
    expect(itemsOf(sent[0].body).map((l) => l.n)).toEqual([2, 3]);
    // A new agent's leaves are tagged: no field names the agent or the entry.
    expect(itemsOf(sent[0].body).every((l) => isTagged(l.leaf) && l.epoch === 0)).toBe(true);
    // The row's cursor moved with this batch over what the last one sent (the registration's leaf).
    expect(await published(sid)).toBe(1);

    const log = await sequence(n);
    const entries = await readEntries(await shardOf(sid), sid);
    const status = await log.status(await markOf(sid));
    expect(status.sequenced).toMatchObject({ seq: 3 });

    const reader = client(n);
    const info = await reader.keys();
    const checkpoint = await reader.verifiedCheckpoint(info.verifier_keys, info.origin);
    expect(checkpoint.size).toBeGreaterThan(status.sequenced!.index);
    const leaf = await reader.leaf(status.sequenced!.index, checkpoint);
    expect(leaf).toEqual(itemsOf(sent[0].body)[1].leaf);
    expect(entries[2].n).toBe(3);
    expect(await reader.verifyLeaf(leaf!, status.sequenced!.index, checkpoint)).toBe(true);
  });

  it("sends again, at the alarm of the object's next life, leaves whose message was lost, and the log holds each exactly once", async () => {
    const owner = await createOperator();
    const reporter = await credibleReporter();
    const { sid } = await registerAgent(owner.key);
    const n = await logOf(sid);
    await report(reporter.key, sid);
    // Entries 2 and 3 (credibility, report): their message lost before any consumer saw it (as if the
    // send had failed unseen; a queue that took a message delivers it at least once).
    const at = queues.pending.findIndex((m) => m.queue === "trust-log" && itemsOf(m.body).some((l) => l.n === 3));
    const lost = queues.pending.splice(at, 1);
    expect(lost).toHaveLength(1);
    const before = logMessages().length;
    // The object dies before a later batch moved its cursor past them: its next life's alarm sends them again.
    await evictDurableObject(agentObject(sid));
    await runInDurableObject(agentObject(sid), (_o, state) => state.storage.setAlarm(Date.now() + 1000));
    expect(await runDurableObjectAlarm(agentObject(sid))).toBe(true);
    const again = logMessages().slice(before).flatMap((m) => itemsOf(m.body).map((l) => l.n));
    expect(again).toEqual([2, 3]);
    // The alarm writes no row: the row's cursor stays where the last batch put it until the next.
    expect(await published(sid)).toBe(1);

    // Delivered twice (the lost one turns up after all, and the resend): one leaf each in the log.
    queues.pending.push(...lost);
    await sequence(n);
    const { head, seqs } = await inLog(sid, owner.key);
    expect(seqs).toEqual(seqsTo(head));
  });

  it("a message lost after the queue took it is found by the reconciliation, which has the agent send again from the first entry its log lacks", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    const n = await logOf(sid);
    await sequence(n);
    await report(reporter.key, sid);
    // The queue took the message, then lost it: the object, which handed it over, will not send it again.
    const at = queues.pending.findIndex((m) => m.queue === "trust-log");
    queues.pending.splice(at, 1);
    expect((await (await sequencer(n)).marks([await markOf(sid)]))[0]).toBe(1);
    const pass = await call("/admin/log/reconcile", { headers: ADMIN, body: { after: 0, limit: 500 } });
    expect(pass.status).toBe(200);
    // (The file's other agents, whose leaves this test never sequenced, lag too.)
    const first = (await pass.json()) as { republished: number; failed: number; complete: boolean };
    expect(first).toMatchObject({ failed: 0, complete: true });
    expect(first.republished).toBeGreaterThanOrEqual(1);
    for (const log of new Set([n, ...(await env.DB.prepare("SELECT DISTINCT log FROM agent_directory").all<{ log: number }>()).results.map((r) => r.log)])) await sequence(log);
    const { head, seqs } = await inLog(sid, owner.key);
    expect(seqs).toEqual(seqsTo(head));
    // Once the logs hold everything, a pass finds nothing to do.
    expect(await (await call("/admin/log/reconcile", { headers: ADMIN, body: { after: 0 } })).json()).toMatchObject({ republished: 0 });
  });

  it("reconciles a page with more agents on one shard than one D1 statement may bind (100)", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const shard = (await env.DB.prepare("SELECT shard FROM agent_directory WHERE sid = ?").bind(sid).first<{ shard: number }>())!.shard;
    const last = (await env.DB.prepare("SELECT max(num) AS n FROM agent_directory").first<{ n: number }>())!.n;
    // 150 more agents of that shard in the directory (their rows are not needed: a missing row is a head of 0).
    const extra = Array.from({ length: 150 }, (_, i) => ({ num: last + 1 + i, sid: `SID-0x${(0xfeed00000000 + i).toString(16).padStart(16, "0")}` }));
    await env.DB.batch(
      extra.map((a) =>
        env.DB.prepare("INSERT INTO agent_directory (num, sid, shard, operator_id, created_at, log) VALUES (?, ?, ?, ?, ?, 0)").bind(a.num, a.sid, shard, owner.id, new Date(T_CALL).toISOString()),
      ),
    );
    try {
      const pass = await call("/admin/log/reconcile", { headers: ADMIN, body: { after: 0, limit: 500 } });
      expect(pass.status).toBe(200);
      const out = (await pass.json()) as { failed: number; visited: number };
      expect(out.failed).toBe(0);
      expect(out.visited).toBeGreaterThan(150);
    } finally {
      await env.DB.prepare("DELETE FROM agent_directory WHERE num > ?").bind(last).run();
    }
  });

  it("a queue that refuses a send: the object's alarm sends it again at the retry's time", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    const before = logMessages().length;
    queues.refusing.add("trust-log");
    try {
      await report(reporter.key, sid);
    } finally {
      queues.refusing.delete("trust-log");
    }
    expect(logMessages()).toHaveLength(before);
    const retry = await runInDurableObject(agentObject(sid), (_o, state) => state.storage.getAlarm());
    expect(retry! - Date.now()).toBeLessThanOrEqual(5_000);
    // The alarm at its time (the test runs it now: the object's clock says when).
    await runInDurableObject(agentObject(sid), (o) => void ((o as Agent).clock = () => retry!));
    expect(await runDurableObjectAlarm(agentObject(sid))).toBe(true);
    await sequence(await logOf(sid));
    const { head, seqs } = await inLog(sid, owner.key);
    expect(seqs).toEqual(seqsTo(head));
  });
});

/** A batch of reports by `key` (each with its own idempotency key), every one answered 201, its after-work settled. */
async function batch(key: string, sids: string[], name: string) {
  const transactions = sids.map((sid, i) => ({ sid, transactionType: "t", outcome: "success", reliabilitySignal: 800, idempotency_key: `${name}-${i}` }));
  const res = await call("/transactions/batch", { headers: bearer(key), body: { transactions } });
  expect(((await res.json()) as { results: { status: number }[] }).results.map((r) => r.status)).toEqual(sids.map(() => 201));
  await settled();
}

describe("a batch's leaves", () => {
  it("each agent's object sends its own commit's leaves in one message; each lands once", async () => {
    const owner = await createOperator();
    const reporter = await credibleReporter();
    const agents = [];
    for (let i = 0; i < 6; i++) agents.push((await registerAgent(owner.key)).sid);
    const before = logMessages().length;
    await batch(reporter.key, agents.flatMap((sid) => [sid, sid]), "together");
    const messages = logMessages().slice(before).map((m) => m.body as { log: number; leaves: LeafItem[] });
    expect(messages).toHaveLength(6);
    for (const sid of agents) {
      const mine = messages.filter((m) => m.leaves[0].sid === sid);
      expect(mine).toHaveLength(1);
      // Its credibility entry and two reports, one batch.
      expect(mine[0].leaves.map((l) => l.n)).toEqual([2, 3, 4]);
    }
    for (const n of new Set(await Promise.all(agents.map(logOf)))) await sequence(n);
    for (const sid of agents) {
      const { head, seqs } = await inLog(sid, owner.key);
      expect(seqs).toEqual(seqsTo(head));
    }
  });
});
