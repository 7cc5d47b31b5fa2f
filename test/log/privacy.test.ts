// What the public log says of an agent: from one of its attestations and every leaf of the log,
// nobody without a key finds its other leaves (no field is a function of the sid or the entry
// number alone); its owner, with the keys of GET /agents/{sid}/log-keys, finds every one. And the
// cut-over: an agent from before the sweep keeps its leaves of before until the sweep sets its
// cut-over.
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { leafNames, type AttestationLog, type OwnerLogKeys } from "../../clients/typescript/verify";
import { entryTag, epochKey, isTagged, logKey, parseBundle, parseLeaf, sha256, tileWidth, toHex, TILE_WIDTH, utf8, type Leaf, type LeafItem } from "../../src/domain/log";
import { ADMIN, bearer, call, createOperator, registerAgent, shardOf } from "../helpers";
import { holdQueues, type HeldQueues } from "../queues";
import { bucketTiles, sequencer } from "./helpers";

let queues: HeldQueues;
beforeEach(() => void (queues = holdQueues({}, { log: true })));
afterEach(() => queues.release());

const logOf = async (sid: string) => (await env.DB.prepare("SELECT log FROM agent_directory WHERE sid = ?").bind(sid).first<{ log: number }>())!.log;

async function sequenceAll() {
  await queues.drain();
  for (const { log } of (await env.DB.prepare("SELECT DISTINCT log FROM agent_directory").all<{ log: number }>()).results) await runDurableObjectAlarm(await sequencer(log));
  for (let n = 0; n < 8; n++) await caches.default.delete(`https://log.cache/log/${n}/checkpoint`);
}

/** Every leaf of log n, as anyone reads it. */
async function wholeLog(n: number): Promise<Leaf[]> {
  const note = await (await env.LOG_BUCKET.get(`log/${n}/checkpoint`))!.text();
  const size = Number(note.split("\n")[1]);
  const leaves: Leaf[] = [];
  for (let b = 0; b * TILE_WIDTH < size; b++) leaves.push(...parseBundle(await bucketTiles(n)({ level: "entries", index: b, width: tileWidth(0, b, size) }))!.map((x) => parseLeaf(x)!));
  return leaves;
}

async function report(key: string, sid: string) {
  expect((await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "success", reliabilitySignal: 800 } })).status).toBe(201);
}

const attestationOf = async (sid: string) => {
  const jws = ((await (await call(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": "198.51.100.78" } })).json()) as { attestation: string }).attestation;
  return (JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(jws.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)))) as { log: AttestationLog }).log;
};

const keysOf = async (key: string, sid: string) => (await (await call(`/agents/${sid}/log-keys`, { headers: bearer(key) })).json()) as OwnerLogKeys;

describe("the public log links no agent's leaves", () => {
  it("from one attestation and the whole log, no other leaf of the agent is found; with the owner's keys, every one", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    const other = (await registerAgent(owner.key)).sid;
    for (let i = 0; i < 4; i++) await report(reporter.key, sid);
    await report(reporter.key, other);
    await sequenceAll();
    const n = await logOf(sid);
    const attested = await attestationOf(sid);
    const all = await wholeLog(n);
    const { sid: s, n: seq, entry_hash, score, nonce } = attested.opening;
    // The registration and four reports (no snapshot names the reporter: no credibility entry).
    expect([s, seq]).toEqual([sid, 5]);

    // Every leaf of the log is {tag, commit}: nothing else to match on.
    expect(all.every((l) => isTagged(l) && Object.keys(l).sort().join() === "commit,tag")).toBe(true);
    const values = new Set(all.flatMap((l) => (isTagged(l) ? [l.tag, l.commit] : [])));
    expect(values.size).toBe(2 * all.length); // no tag or commit repeats: no leaf points at another
    // What the holder of the attestation can compute without a key, for every entry number of the
    // agent: none of it is in the log (the opened leaf's own commit aside).
    const hex = async (text: string) => toHex(await sha256(utf8(text)));
    const guesses: string[] = [await hex(sid), await hex(`${sid}:0`), await hex(entry_hash), await hex(`${score}:${nonce}`)];
    for (let k = 1; k <= 8; k++) guesses.push(await hex(String(k)), await hex(`${sid}:${k}`), await hex(`${sid}${k}`), await hex(`${k}:${entry_hash}:${score}:${nonce}`));
    const opened = isTagged(attested.leaf) ? attested.leaf.commit : "";
    expect(guesses.filter((g) => values.has(g) && g !== opened)).toEqual([]);
    // The tags are keyed: under another log key the same sid and entry numbers give none of them.
    const otherKey = (await logKey(btoa(String.fromCharCode(...new Uint8Array(32).fill(7)))))!;
    for (let k = 1; k <= 8; k++) expect(values.has(await entryTag(await epochKey(otherKey, sid, 0), k))).toBe(false);

    // The owner's keys find exactly the agent's leaves: entries 1 … 5, none of the other agent's.
    const keys = await keysOf(owner.key, sid);
    expect(keys).toMatchObject({ sid, seq: 5, cutover: 0, epochs: [{ epoch: 0, from: 1, to: null }] });
    const names = await leafNames(keys, keys.seq);
    const found = all.flatMap((l) => (isTagged(l) && names.tags.has(l.tag) ? [names.tags.get(l.tag)!] : [])).sort((a, b) => a - b);
    expect(found).toEqual([1, 2, 3, 4, 5]);
    // Another operator gets no keys.
    expect((await call(`/agents/${sid}/log-keys`, { headers: bearer(reporter.key) })).status).toBe(403);
  });

  it("keeps an agent from before the sweep on the leaf of before until the sweep sets its cut-over, and tags the entries after it", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    // As an agent registered before tagged leaves: its row holds no cut-over.
    const shard = await shardOf(sid);
    await shard.prepare("UPDATE agents SET state = json_remove(state, '$.logTags') WHERE sid = ?").bind(sid).run();
    await evictDurableObject(env.AGENT.getByName(sid));
    expect((await keysOf(owner.key, sid)).cutover).toBeNull();
    const swept = await call("/admin/migrate-objects", { headers: ADMIN, body: {} });
    expect(swept.status).toBe(200);
    const keys = await keysOf(owner.key, sid);
    expect(keys).toMatchObject({ cutover: 1, epochs: [{ epoch: 0, from: 2, to: null }] });
    const before = queues.pending.length;
    await report(owner.key, sid);
    const sent = queues.pending.slice(before).filter((m) => m.queue === "trust-log").flatMap((m) => (m.body as { leaves: LeafItem[] }).leaves);
    // (The object's new life sends its unsent entries again: entry 1 keeps the leaf of before.)
    expect(sent.map((l) => l.n)).toContain(2);
    expect(sent.every((l) => isTagged(l.leaf) === (l.n ?? 0) > 1)).toBe(true);
  });
});
