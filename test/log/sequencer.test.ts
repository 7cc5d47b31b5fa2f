import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { leafHash, tileNodeReader, inclusionProof, verifyCheckpoint, verifyInclusion } from "../../src/domain/log";
import { logOrigin } from "../../src/env";
import { bucketTiles, checkpointOf, freshSid, leafOf, sequencer, verifiersOf } from "./helpers";

describe("the log's sequencer", () => {
  it("accepts leaves, integrates them at its alarm and publishes a signed checkpoint and tiles", async () => {
    const log = sequencer(10);
    const sid = freshSid();
    const leaves = await Promise.all([1, 2, 3].map((seq) => leafOf(sid, seq)));
    const result = await log.append(leaves);
    expect(result.accepted).toEqual(leaves.map(({ leaf }) => ({ agent: leaf.agent, seq: leaf.seq })));
    expect(await log.status(leaves[0].leaf.agent)).toEqual({ acknowledged: 3, sequenced: null });
    expect(await runDurableObjectAlarm(log)).toBe(true);
    const note = (await checkpointOf(10))!;
    const checkpoint = await verifyCheckpoint(note, await verifiersOf(10), logOrigin(env, 10));
    expect(checkpoint.size).toBe(3);
    const status = await log.status(leaves[0].leaf.agent);
    expect(status).toEqual({ acknowledged: 3, sequenced: { seq: 3, index: 2, tree_size: 3, checkpoint: note } });
    const tiles = tileNodeReader(bucketTiles(10), 3);
    for (const [index, { leaf }] of leaves.entries()) {
      expect(await verifyInclusion(index, 3, await leafHash(leaf), await inclusionProof(tiles, index, 3), checkpoint.root)).toBe(true);
    }
  });
});
