// The log end to end in workerd: a report on an agent → its leaf through the trust-log queue → the
// sequencer integrates it → the checkpoint covers it and the log client verifies its inclusion from
// the tiles the service serves; the agent's next alarm drops the acknowledged leaves from its
// outbox, and a leaf whose message was lost is sent again by the alarm and lands exactly once.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogClient } from "../../clients/typescript/log";
import { readEntries } from "../../src/db/history";
import { parseBundle, parseLeaf, tileWidth, TILE_WIDTH, type Leaf } from "../../src/domain/log";
import type { Agent } from "../agent-under-test";
import { bearer, call, createOperator, registerAgent, settled, shardOf, T_CALL } from "../helpers";
import { holdQueues, type HeldQueues } from "../queues";
import { bucketTiles, sequencer } from "./helpers";

let queues: HeldQueues;
beforeEach(() => void (queues = holdQueues({}, { log: true })));
afterEach(() => queues.release());

const agentObject = (sid: string) => env.AGENT.getByName(sid);
/** The seqs of the leaves the agent keeps for the log: in its row, and in its outbox's rows. */
const outbox = (sid: string) =>
  runInDurableObject(agentObject(sid), (_o, state) => {
    const acked = state.storage.sql.exec<{ n: number }>("SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'log_acked'), 0) AS n").one().n;
    const rows = state.storage.sql.exec<{ leaf: string }>("SELECT leaf FROM log_outbox UNION ALL SELECT leaves FROM agent WHERE leaves IS NOT NULL").toArray();
    return [...new Set(rows.flatMap((r) => (JSON.parse(r.leaf) as Leaf[]).map((l) => l.seq)))].filter((seq) => seq > acked).sort((a, b) => a - b);
  });
const logOf = async (sid: string) => (await env.DB.prepare("SELECT log FROM agent_directory WHERE sid = ?").bind(sid).first<{ log: number }>())!.log;

/**
 * The agents' clock, frozen when the file starts: not T_CALL, which the machine's clock may have
 * passed (an alarm the object set from it would then fire by itself, beside the one the test runs).
 */
const T_AGENT = Math.max(Date.now(), T_CALL);

/** The agent's alarm, run by the test at the time it was set for (the clock then frozen there). */
async function agentAlarm(sid: string) {
  const stub = agentObject(sid);
  await runInDurableObject(stub, async (o, state) => {
    const at = Math.max(T_AGENT, (await state.storage.getAlarm()) ?? 0);
    (o as Agent).clock = () => at;
  });
  return runDurableObjectAlarm(stub);
}

/** A new agent whose registration's leaf its log holds, its object not yet told. */
async function sequencedAgent() {
  const owner = await createOperator();
  const { sid } = await registerAgent(owner.key);
  await sequence(await logOf(sid));
  return { sid, stub: agentObject(sid) };
}

/**
 * Runs the agent's alarm half a minute before its log check is due, as a batch's retry comes (an
 * object has one alarm: it replaces the check's); `evicted`: the object's memory gone first. Returns
 * when the check is due.
 */
async function alarmBeforeCheck(stub: DurableObjectStub, { evicted }: { evicted: boolean }): Promise<number> {
  const checkAt = await runInDurableObject(stub, async (o, state) => {
    const at = (await state.storage.getAlarm())!;
    (o as Agent).clock = () => at - 30_000;
    if (evicted) (o as unknown as { kernel: { forget(): void } }).kernel.forget();
    await state.storage.setAlarm(at - 30_000);
    return at;
  });
  await runDurableObjectAlarm(stub);
  return checkAt;
}

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

/** Every leaf of the agent's tag in the log's tree of `size` leaves, read from its entry bundles. */
async function leavesOfAgent(n: number, size: number, agent: string): Promise<Leaf[]> {
  const found: Leaf[] = [];
  for (let b = 0; b * TILE_WIDTH < size; b++) {
    const bundle = parseBundle(await bucketTiles(n)({ level: "entries", index: b, width: tileWidth(0, b, size) }))!;
    for (const bytes of bundle) {
      const leaf = parseLeaf(bytes);
      if (leaf?.agent === agent) found.push(leaf);
    }
  }
  return found;
}

const tagOf = (body: unknown) => (body as { leaves: { leaf: Leaf }[] }).leaves[0].leaf.agent;

async function report(key: string, sid: string) {
  const res = await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "success", reliabilitySignal: 800 } });
  expect(res.status).toBe(201);
}

describe("the transparency log, end to end", () => {
  it("takes a report's leaf through the queue into the sequenced tree, verifiable from the tiles, and the agent drops it from its outbox", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    await report(reporter.key, sid);
    const n = await logOf(sid);
    // The registration; then the reporter's credibility entry (version 3) and its report, one change.
    expect(await outbox(sid)).toEqual([1, 2, 3]);
    const sent = queues.pending.filter((m) => m.queue === "trust-log");
    expect(sent).toHaveLength(2);
    const tag = tagOf(sent[0].body);

    const log = await sequence(n);
    const entries = await readEntries(await shardOf(sid), sid);
    const status = await log.status(tag);
    expect(status.acknowledged).toBe(3);
    expect(status.sequenced).toMatchObject({ seq: 3 });

    const reader = client(n);
    const info = await reader.keys();
    const checkpoint = await reader.verifiedCheckpoint(info.verifier_keys, info.origin);
    expect(checkpoint.size).toBeGreaterThan(status.sequenced!.index);
    const leaf = await reader.leaf(status.sequenced!.index, checkpoint);
    expect(leaf).toMatchObject({ seq: 3, entry_hash: entries[2].hash });
    expect(await reader.verifyLeaf(leaf!, status.sequenced!.index, checkpoint)).toBe(true);

    // The agent's next alarm asks the log how far it holds the agent's leaves and drops them.
    await agentAlarm(sid);
    expect(await outbox(sid)).toEqual([]);
  });

  it("sends again, at the alarm, a leaf whose message was lost, and the log holds it exactly once", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    const n = await logOf(sid);
    await sequence(n);
    await agentAlarm(sid);
    expect(await outbox(sid)).toEqual([]);

    await report(reporter.key, sid);
    const lost = queues.pending.splice(0).filter((m) => m.queue === "trust-log");
    expect(lost).toHaveLength(1); // the message of entries 2 and 3 (credibility, report), lost before any consumer saw it
    await agentAlarm(sid);
    expect(await outbox(sid)).toEqual([2, 3]); // the log lacks them: kept, and sent again
    const again = queues.pending.filter((m) => m.queue === "trust-log");
    expect(again.map((m) => m.body)).toEqual(lost.map((m) => m.body));

    // Delivered twice (the lost one turns up after all, and the resend): one leaf in the log.
    queues.pending.push(...lost);
    const log = await sequence(n);
    const tag = tagOf(lost[0].body);
    const status = await log.status(tag);
    expect(status).toMatchObject({ acknowledged: 3, sequenced: { seq: 3 } });
    const held = await leavesOfAgent(n, status.sequenced!.tree_size, tag);
    expect(held.map((l) => l.seq)).toEqual([1, 2, 3]);
    await agentAlarm(sid);
    expect(await outbox(sid)).toEqual([]);
  });

  it("asks the log only when its check is due: an alarm that comes earlier (a batch's retry) leaves the outbox as it is", async () => {
    const { sid, stub } = await sequencedAgent();
    const checkAt = await alarmBeforeCheck(stub, { evicted: false });
    expect(await outbox(sid)).toEqual([1]); // the log holds it, but was not asked
    expect(await runInDurableObject(stub, (_o, state) => state.storage.getAlarm())).toBeLessThanOrEqual(checkAt);

    await runInDurableObject(stub, (o) => void ((o as Agent).clock = () => checkAt));
    await runDurableObjectAlarm(stub);
    expect(await outbox(sid)).toEqual([]);
  });

  it("asks the log at the first alarm of a new object life, though that alarm sends every waiting leaf again first", async () => {
    const { sid, stub } = await sequencedAgent();
    await alarmBeforeCheck(stub, { evicted: true });
    expect(await outbox(sid)).toEqual([]);
  });
});

/** A batch of reports by `key` (each with its own idempotency key), every one answered 201, its after-work settled. */
async function batch(key: string, sids: string[], name: string) {
  const transactions = sids.map((sid, i) => ({ sid, transactionType: "t", outcome: "success", reliabilitySignal: 800, idempotency_key: `${name}-${i}` }));
  const res = await call("/transactions/batch", { headers: bearer(key), body: { transactions } });
  expect(((await res.json()) as { results: { status: number }[] }).results.map((r) => r.status)).toEqual(sids.map(() => 201));
  await settled();
}

/** The held trust-log messages, and the seqs each agent's leaves in them have, in the order sent. */
function heldLeaves() {
  const messages = queues.pending.filter((m) => m.queue === "trust-log").map((m) => m.body as { log: number; leaves: { sid: string; leaf: Leaf }[] });
  const bySid = new Map<string, number[]>();
  for (const m of messages) for (const { sid, leaf } of m.leaves) bySid.set(sid, [...(bySid.get(sid) ?? []), leaf.seq]);
  return { messages, bySid };
}

/** The seqs of the agent's leaves its log holds, in order of seq (the log takes them as they come), and its head (acknowledged, or the test fails). */
async function inLog(sid: string, tag: string) {
  const n = await logOf(sid);
  const head = (await runInDurableObject(agentObject(sid), (o) => (o as Agent).inspect())).record!.seq;
  const status = await (await sequencer(n)).status(tag);
  expect(status.acknowledged).toBe(head);
  return { head, seqs: (await leavesOfAgent(n, status.sequenced!.tree_size, tag)).map((l) => l.seq).sort((a, b) => a - b) };
}

const seqsTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("a batch's leaves", () => {
  it("go to the log from the request, one message per log for all its agents; each lands once and leaves its agent's outbox", async () => {
    const reporter = await createOperator({ verified: true });
    const agents = [];
    for (let i = 0; i < 6; i++) agents.push(await sequencedAgent());
    queues.pending.length = 0;
    const sids = agents.flatMap((a) => [a.sid, a.sid]);
    await batch(reporter.key, sids, "together");

    const { messages, bySid } = heldLeaves();
    const logs = new Set(await Promise.all(agents.map((a) => logOf(a.sid))));
    // One message per log, not one per agent: the objects were told their leaves went out, and sent none.
    expect(messages.map((m) => m.log).sort()).toEqual([...logs].sort());
    // Each agent's registration leaf (1) is in the log already, its object not told yet.
    for (const a of agents) expect(bySid.get(a.sid), a.sid).toEqual((await outbox(a.sid)).slice(1));

    const tags = new Map(messages.flatMap((m) => m.leaves.map((l) => [l.sid, l.leaf.agent] as const)));
    for (const n of logs) await sequence(n);
    for (const a of agents) {
      const { head, seqs } = await inLog(a.sid, tags.get(a.sid)!);
      expect(seqs).toEqual(seqsTo(head));
      await agentAlarm(a.sid);
      expect(await outbox(a.sid)).toEqual([]);
    }
  });

  it("are sent by each agent's object when the request could not send them", async () => {
    const reporter = await createOperator({ verified: true });
    const agents = [await sequencedAgent(), await sequencedAgent()];
    queues.pending.length = 0;
    const producer = env.LOG_QUEUE as unknown as { sendBatch: (m: unknown) => Promise<void> };
    const sendBatch = producer.sendBatch;
    let calls = 0;
    producer.sendBatch = async (m) => {
      if (calls++ === 0) throw new Error("the queue is unavailable");
      return sendBatch(m);
    };
    await batch(reporter.key, agents.map((a) => a.sid), "alone");
    producer.sendBatch = sendBatch;

    const { messages, bySid } = heldLeaves();
    expect(messages).toHaveLength(2); // each object's own
    for (const a of agents) expect(bySid.get(a.sid)).toEqual((await outbox(a.sid)).slice(1));
    for (const a of agents) {
      await sequence(await logOf(a.sid));
      const { head, seqs } = await inLog(a.sid, messages.find((m) => m.leaves[0].sid === a.sid)!.leaves[0].leaf.agent);
      expect(seqs).toEqual(seqsTo(head));
    }
  });

  it("handed out to a request that never sent them (nor acknowledged) go with the agent's next acknowledgement, not later", async () => {
    const reporter = await createOperator({ verified: true });
    const { sid, stub } = await sequencedAgent();
    queues.pending.length = 0;
    // The first request dies after the shard batch: its message and its acknowledgement are lost.
    const producer = env.LOG_QUEUE as unknown as { sendBatch: (m: unknown) => Promise<void> };
    const sendBatch = producer.sendBatch;
    let lost = 0;
    producer.sendBatch = async (m) => void (lost++ === 0 ? undefined : await sendBatch(m));
    await runInDurableObject(stub, (o) => {
      const kernel = (o as unknown as { kernel: { acknowledge: (...a: unknown[]) => Promise<void> } }).kernel;
      const acknowledge = kernel.acknowledge.bind(kernel);
      let first = true;
      kernel.acknowledge = (...a) => (first ? ((first = false), Promise.resolve()) : acknowledge(...a));
    });
    await batch(reporter.key, [sid, sid], "lost");
    expect(heldLeaves().messages).toHaveLength(0);
    await batch(reporter.key, [sid], "next");
    producer.sendBatch = sendBatch;

    // The second request sent its own leaf; its acknowledgement did not cover the gap, so the object sent from it on.
    const { bySid, messages } = heldLeaves();
    const head = (await runInDurableObject(stub, (o) => (o as Agent).inspect())).record!.seq;
    expect(new Set(bySid.get(sid))).toEqual(new Set(seqsTo(head).slice(1)));
    await sequence(await logOf(sid));
    const { seqs } = await inLog(sid, messages[0].leaves[0].leaf.agent);
    expect(seqs).toEqual(seqsTo(head));
  });
});
