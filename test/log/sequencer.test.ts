import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  parseBundle,
  parseLeaf,
  tileNodeReader,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
  type Checkpoint,
  type Leaf,
} from "../../src/domain/log";
import type { LogSequencer as LogSequencerUnderTest } from "../log-sequencer-under-test";
import { logOrigin } from "../../src/env";
import { bucketTiles, checkpointOf, freshSid, leafOf, legacyLeafOf, inSequencerOrder, loggedErrors, markOf, sequencer, T_LOG, verifiersOf } from "./helpers";

describe("the log's sequencer", () => {
  it("accepts leaves, integrates them at its alarm and publishes a signed checkpoint and tiles", async () => {
    const log = await sequencer(10);
    const sid = freshSid();
    const leaves = await Promise.all([1, 2, 3].map((seq) => leafOf(sid, seq)));
    const result = await log.append(leaves);
    expect(result).toEqual({ accepted: leaves.map(({ n }) => ({ sid, seq: n })), refused: [], ahead: [] });
    expect(await log.status(await markOf(sid))).toEqual({ acknowledged: 3, sequenced: null });
    expect(await runDurableObjectAlarm(log)).toBe(true);
    const note = (await checkpointOf(10))!;
    const checkpoint = await verifyCheckpoint(note, await verifiersOf(10), logOrigin(env, 10));
    expect(checkpoint.size).toBe(3);
    const status = await log.status(await markOf(sid));
    expect(status).toEqual({ acknowledged: 3, sequenced: { seq: 3, index: 2, tree_size: 3, checkpoint: note } });
    const tiles = tileNodeReader(bucketTiles(10), 3);
    for (const [index, { leaf }] of leaves.entries()) {
      expect(await verifyInclusion(index, 3, await leafHash(leaf), await inclusionProof(tiles, index, 3), checkpoint.root)).toBe(true);
    }
  });
});

describe("acceptance, idempotent on (agent, seq), in each agent's entry order", () => {
  it("changes nothing on a repeat and refuses another entry for an accepted seq, loudly", async () => {
    const log = await sequencer(11);
    const sid = freshSid();
    const first = await leafOf(sid, 1);
    const one = { sid, seq: 1 };
    expect((await log.append([first])).accepted).toHaveLength(1);
    // Repeated before and after integration: accepted, never a second index.
    expect(await log.append([first, first])).toEqual({ accepted: [one, one], refused: [], ahead: [] });
    await runDurableObjectAlarm(log);
    expect(await log.append([first])).toEqual({ accepted: [one], refused: [], ahead: [] });
    expect(await runDurableObjectAlarm(log)).toBe(false); // nothing new: no batch was scheduled

    const rewrite = await leafOf(sid, 1, "a rewritten entry");
    const { result, errors } = await loggedErrors(() => log.append([rewrite]));
    expect(result).toEqual({ accepted: [], refused: [{ ...one, reason: "another entry hash was accepted for this (agent, seq)" }], ahead: [] });
    expect(errors).toEqual([expect.objectContaining({ level: "error", sid, seq: 1, accepted_entry_hash: first.leaf.commit, offered_entry_hash: rewrite.leaf.commit })]);
    expect((await log.status(await markOf(sid))).sequenced).toMatchObject({ seq: 1, index: 0, tree_size: 1 });
  });

  it("integrates entry n only when n = high + 1: a later one is answered ahead (retried, not dropped) and taken once the gap arrives", async () => {
    const log = await sequencer(12);
    const sid = freshSid();
    const [one, two, three] = await Promise.all([1, 2, 3].map((seq) => leafOf(sid, seq)));
    const mark = await markOf(sid);
    expect(await log.append([one, three])).toEqual({ accepted: [{ sid, seq: 1 }], refused: [], ahead: [{ sid, seq: 3 }] });
    expect((await log.status(mark)).acknowledged).toBe(1);
    // Far ahead is no different: no fixed window past which a leaf is lost.
    expect((await log.append([await leafOf(sid, 5000)])).ahead).toEqual([{ sid, seq: 5000 }]);
    await runDurableObjectAlarm(log);
    expect(await log.status(mark)).toMatchObject({ acknowledged: 1, sequenced: { seq: 1, index: 0, tree_size: 1 } });
    // The retry of 3 comes with 2, in any order within the call: both are taken, in entry order.
    expect(await log.append([three, two])).toEqual({ accepted: [{ sid, seq: 2 }, { sid, seq: 3 }], refused: [], ahead: [] });
    await runDurableObjectAlarm(log);
    expect(await log.status(mark)).toMatchObject({ acknowledged: 3, sequenced: { seq: 3, index: 2, tree_size: 3 } });
    // The agent's leaves are in the tree in entry order.
    const bundle = parseBundle(new Uint8Array(await (await env.LOG_BUCKET.get("log/12/tile/entries/000.p/3"))!.arrayBuffer()))!;
    expect(bundle.map((b) => parseLeaf(b))).toEqual([one.leaf, two.leaf, three.leaf]);
    const other2 = await leafOf(sid, 2, "other");
    expect((await loggedErrors(() => log.append([other2]))).result.refused).toHaveLength(1);
  });

  it("takes leaves of the format before (messages sent before the cut-over) and tagged ones of one agent in one sequence", async () => {
    const log = await sequencer(18);
    const sid = freshSid();
    const before = await legacyLeafOf(sid, 1);
    const after = await leafOf(sid, 2);
    expect(await log.append([after, before])).toEqual({ accepted: [{ sid, seq: 1 }, { sid, seq: 2 }], refused: [], ahead: [] });
    expect((await log.status(await markOf(sid))).acknowledged).toBe(2);
  });

  it("refuses malformed leaves, leaves of another agent, and tags not of the entry and epoch given", async () => {
    const log = await sequencer(13);
    const sid = freshSid();
    const good = await leafOf(sid, 1);
    const legacy = await legacyLeafOf(sid, 1);
    const result = await log.append([
      { ...good, sid: freshSid() },
      { ...good, n: 0 },
      { ...good, leaf: { ...good.leaf, commit: "XYZ" } },
      { ...good, epoch: 1 },
      { ...good, epoch: undefined },
      { ...legacy, sid: freshSid() },
      good,
    ]);
    expect(result.refused.map((r) => r.reason)).toEqual([
      "leaf.tag is not HMAC(k_sid, n) for the epoch given",
      "n must be an integer ≥ 1",
      "leaf.commit must be 64 lowercase hex",
      "leaf.tag is not HMAC(k_sid, n) for the epoch given",
      "a tagged leaf comes with its epoch, an integer ≥ 0",
      "leaf.agent is not HMAC(LOG_KEY, sid)",
    ]);
    expect(result.accepted).toEqual([{ sid, seq: 1 }]);
  });
});

describe("batches", () => {
  it("integrate within a second of a leaf's arrival, and again while more arrive", async () => {
    const log = await sequencer(14);
    const sid = freshSid();
    const T = T_LOG;
    await log.append([await leafOf(sid, 1)]);
    expect(await runInDurableObject(log, (_, state) => state.storage.getAlarm())).toBe(T + 1000);
    await runInDurableObject(log, (instance) => void ((instance as LogSequencerUnderTest).clock = () => T + 1000));
    await log.append([await leafOf(sid, 2)]); // the alarm stays where it is
    expect(await runInDurableObject(log, (_, state) => state.storage.getAlarm())).toBe(T + 1000);
    expect(await runDurableObjectAlarm(log)).toBe(true);
    expect(await runInDurableObject(log, (_, state) => state.storage.getAlarm())).toBeNull();
    await log.append([await leafOf(sid, 3)]);
    expect(await runInDurableObject(log, (_, state) => state.storage.getAlarm())).toBe(T + 2000);
  });

  it("carry the tree across tile boundaries; every checkpoint is consistent with the one before", async () => {
    const n = 15;
    const log = await sequencer(n);
    const sids = Array.from({ length: 7 }, freshSid);
    const verifiers = await verifiersOf(n);
    const all: Leaf[] = [];
    let previous: Checkpoint | null = null;
    // 600 leaves in batches of uneven sizes: full tiles and bundles at 256 and 512, partial ones between.
    for (const count of [1, 200, 55, 1, 150, 193]) {
      const leaves = [];
      for (let i = 0; i < count; i++) {
        const at: number = all.length + leaves.length;
        leaves.push(await leafOf(sids[at % sids.length], Math.floor(at / sids.length) + 1));
      }
      all.push(...inSequencerOrder(leaves).map((l) => l.leaf));
      expect((await log.append(leaves)).refused).toEqual([]);
      await runDurableObjectAlarm(log);
      const checkpoint = await verifyCheckpoint((await checkpointOf(n))!, verifiers);
      expect(checkpoint.size).toBe(all.length);
      const tiles = tileNodeReader(bucketTiles(n), checkpoint.size);
      if (previous) {
        const proof = await consistencyProof(tiles, previous.size, checkpoint.size);
        expect(await verifyConsistency(previous.size, checkpoint.size, previous.root, checkpoint.root, proof)).toBe(true);
      }
      previous = checkpoint;
    }
    expect(all).toHaveLength(600);
    const tiles = tileNodeReader(bucketTiles(n), 600);
    for (const index of [0, 255, 256, 300, 511, 512, 599]) {
      expect(await verifyInclusion(index, 600, await leafHash(all[index]), await inclusionProof(tiles, index, 600), previous!.root)).toBe(true);
    }
    const listed = (await env.LOG_BUCKET.list({ prefix: `log/${n}/` })).objects.map((o) => o.key.slice(`log/${n}/`.length)).sort();
    // Full tiles and bundles replaced their partial versions; a level's partial tiles stay until
    // its tile is full (level 1's at 1 and 2 hashes here).
    expect(listed).toEqual([
      "checkpoint",
      "tile/0/000",
      "tile/0/001",
      "tile/0/002.p/88",
      "tile/1/000.p/1",
      "tile/1/000.p/2",
      "tile/entries/000",
      "tile/entries/001",
      "tile/entries/002.p/88",
    ]);
    const bundle = parseBundle(new Uint8Array(await (await env.LOG_BUCKET.get(`log/${n}/tile/entries/002.p/88`))!.arrayBuffer()))!;
    expect(bundle.map((b) => parseLeaf(b))).toEqual(all.slice(512));
    // The sequencer keeps only the leaves of the partial bundle (in the rows of the appends that brought them).
    expect(await runInDurableObject(log, (_, state) => state.storage.sql.exec("SELECT min(first) AS first, sum(count) AS n FROM leaves").one())).toEqual({ first: 407, n: 193 });
  });
});

describe("crash safety", () => {
  it("completes a batch cut short after its tiles, at the next alarm, with the same bytes", async () => {
    const n = 16;
    const log = await sequencer(n);
    const sid = freshSid();
    await log.append(await Promise.all([1, 2, 3].map((seq) => leafOf(sid, seq))));
    await runDurableObjectAlarm(log);
    const before = await checkpointOf(n);
    await log.append(await Promise.all([4, 5].map((seq) => leafOf(sid, seq))));
    await runInDurableObject(log, (instance) => void ((instance as LogSequencerUnderTest).faults.afterTiles = 1));
    await runDurableObjectAlarm(log);
    // The tiles of the tree of 5 are in R2; its checkpoint is not, and the old one still stands.
    const tile = await (await env.LOG_BUCKET.get(`log/${n}/tile/0/000.p/5`))!.arrayBuffer();
    expect(await checkpointOf(n)).toBe(before);
    expect((await log.status(await markOf(sid))).sequenced).toMatchObject({ seq: 3, tree_size: 3 });
    // A leaf arriving meanwhile waits for the next batch: the batch in flight keeps its size.
    await log.append([await leafOf(sid, 6)]);
    expect(await runInDurableObject(log, (_, state) => state.storage.getAlarm())).not.toBeNull();
    await runDurableObjectAlarm(log);
    expect((await verifyCheckpoint((await checkpointOf(n))!, await verifiersOf(n))).size).toBe(5);
    expect(new Uint8Array(await (await env.LOG_BUCKET.get(`log/${n}/tile/0/000.p/5`))!.arrayBuffer())).toEqual(new Uint8Array(tile));
    await runDurableObjectAlarm(log);
    expect((await verifyCheckpoint((await checkpointOf(n))!, await verifiersOf(n))).size).toBe(6);
  });

  it("completes a batch whose checkpoint is in R2 but not recorded, writing the same checkpoint", async () => {
    const n = 17;
    const log = await sequencer(n);
    const sid = freshSid();
    await log.append(await Promise.all([1, 2].map((seq) => leafOf(sid, seq))));
    await runInDurableObject(log, (instance) => void ((instance as LogSequencerUnderTest).faults.beforeCommit = 1));
    await runDurableObjectAlarm(log);
    const written = await checkpointOf(n);
    expect((await verifyCheckpoint(written!, await verifiersOf(n))).size).toBe(2);
    // Storage was not told: the agent's leaves are not sequenced yet, and the batch runs again.
    expect((await log.status(await markOf(sid))).sequenced).toBeNull();
    await runDurableObjectAlarm(log);
    expect(await checkpointOf(n)).toBe(written);
    expect((await log.status(await markOf(sid))).sequenced).toEqual({ seq: 2, index: 1, tree_size: 2, checkpoint: written });
  });
});
