// The log's public reads: GET /log/keys, /log/{n}/checkpoint and /log/{n}/tile/..., from R2 through
// the cache, with the service's CORS, ETags and error envelopes; read by the log client.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createLogClient } from "../../clients/typescript/log";
import { leafBytes, parseBundle, parseVerifierKey, verifyCheckpoint, type Leaf } from "../../src/domain/log";
import { EXAMPLE_CHECKPOINT, EXAMPLE_ORIGIN, EXAMPLE_VERIFIER_KEY } from "../../src/http/wire/log";
import { logOrigin } from "../../src/env";
import { call } from "../helpers";
import { freshSid, inSequencerOrder, leafOf, sequencer, verifiersOf } from "./helpers";

const bytes = async (res: Response) => new Uint8Array(await res.arrayBuffer());

/** Appends `count` leaves of a few agents to log n and integrates them. */
async function grow(n: number, count: number): Promise<Leaf[]> {
  const log = await sequencer(n);
  const sids = [freshSid(), freshSid(), freshSid()];
  const leaves = [];
  for (let i = 0; i < count; i++) leaves.push(await leafOf(sids[i % 3], Math.floor(i / 3) + 1));
  expect((await log.append(leaves)).refused).toEqual([]);
  await runDurableObjectAlarm(log);
  return inSequencerOrder(leaves).map((l) => l.leaf);
}

describe("GET /log/keys", () => {
  it("lists every log with its origin and the verifier keys of its checkpoints", async () => {
    const res = await call("/log/keys");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await res.json()) as { logs: { log: number; origin: string; verifier_keys: string[] }[] };
    expect(body.logs.map((l) => [l.log, l.origin])).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((n) => [n, logOrigin(env, n)]));
    for (const log of body.logs) {
      expect(log.verifier_keys).toEqual(await verifiersOf(log.log));
      expect((await parseVerifierKey(log.verifier_keys[0]))?.name).toBe(log.origin);
    }
  });

  it("documents a real key and checkpoint", async () => {
    expect(await verifyCheckpoint(EXAMPLE_CHECKPOINT, [EXAMPLE_VERIFIER_KEY], EXAMPLE_ORIGIN)).toMatchObject({ origin: EXAMPLE_ORIGIN, size: 1234 });
  });
});

describe("GET /log/{n}/checkpoint and /log/{n}/tile/...", () => {
  it("refuse unknown logs, bad numbers and an empty log in the service's envelopes", async () => {
    const cases: [string, number, string][] = [
      ["/log/8/checkpoint", 404, "Unknown log: logs are numbered 0 to 7"],
      ["/log/abc/checkpoint", 400, "Invalid log number: logs are numbered 0 to 7"],
      ["/log/01/checkpoint", 400, "Invalid log number: logs are numbered 0 to 7"],
      ["/log/7/checkpoint", 404, "The log has no checkpoint yet"],
      ["/log/7/tile/0/000.p/1", 404, "The log has no checkpoint yet"],
      ["/log/8/tile/0/000", 404, "Unknown log: logs are numbered 0 to 7"],
    ];
    for (const [path, status, message] of cases) {
      const a = await call(path);
      expect([a.status, ((await a.json()) as { error: string }).error], path).toEqual([status, message]);
      expect(a.headers.get("cache-control")).toBe("no-store");
      const b = await call(path, { headers: { "api-version": "B" } });
      expect((await b.json()) as unknown, path).toMatchObject({ error: { code: status === 404 ? "not_found" : "invalid_request", message } });
    }
  });

  it("serve the signed checkpoint and the tiles of the tree, cached, with CORS and ETags", async () => {
    const leaves = await grow(1, 300);
    const keys = await verifiersOf(1);
    const res = await call("/log/1/checkpoint");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=2");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const note = await res.text();
    expect(await verifyCheckpoint(note, keys, logOrigin(env, 1))).toMatchObject({ size: 300 });
    const etag = res.headers.get("etag")!;
    expect((await call("/log/1/checkpoint", { headers: { "if-none-match": etag } })).status).toBe(304);

    const full = await call("/log/1/tile/0/000");
    expect([full.status, full.headers.get("content-type"), full.headers.get("cache-control")]).toEqual([200, "application/octet-stream", "public, max-age=31536000, immutable"]);
    const fullBytes = await bytes(full);
    expect(fullBytes.length).toBe(256 * 32);
    const partial = await call("/log/1/tile/0/001.p/44");
    expect([partial.status, partial.headers.get("cache-control"), (await bytes(partial)).length]).toEqual([200, "public, max-age=60", 44 * 32]);
    // A partial tile no checkpoint had, or one a full tile replaced: the first W hashes of the wider one.
    expect(await bytes(await call("/log/1/tile/0/000.p/5"))).toEqual(fullBytes.slice(0, 5 * 32));
    expect((await bytes(await call("/log/1/tile/1/000.p/1"))).length).toBe(32);
    const bundle = parseBundle(await bytes(await call("/log/1/tile/entries/001.p/3")))!;
    expect(bundle.map((e) => [...e])).toEqual(leaves.slice(256, 259).map((l) => [...leafBytes(l)]));
    const preflight = await call("/log/1/tile/0/000", { method: "OPTIONS", headers: { origin: "https://monitor.example", "access-control-request-method": "GET" } });
    expect([preflight.status, preflight.headers.get("access-control-allow-origin")]).toEqual([204, "*"]);
  });

  it("answer 404 for a tile the tree does not reach and 400 for a path that is no tile", async () => {
    await grow(3, 3);
    for (const path of ["/log/3/tile/0/000.p/4", "/log/3/tile/0/000", "/log/3/tile/1/000.p/1", "/log/3/tile/entries/001.p/1", "/log/3/tile/0/x001/000"]) {
      const res = await call(path);
      expect([res.status, ((await res.json()) as { error: string }).error], path).toEqual([404, "Tile not found: the log's tree has 3 leaves"]);
    }
    for (const path of ["/log/3/tile/0/5", "/log/3/tile/64/000", "/log/3/tile/0/000.p/256", "/log/3/tile/0/000.p/0", "/log/3/tile/x", "/log/3/tile/0/x000/003", "/log/3/tile/data/000"]) {
      const res = await call(path);
      expect([res.status, ((await res.json()) as { error: string }).error], path).toEqual([400, (await import("../../src/domain/errors")).errors.badTilePath().message]);
    }
  });
});

describe("the log client over the routes", () => {
  const client = (n: number) =>
    createLogClient({ baseUrl: "http://trust.test", log: n, fetch: async (input) => call(new URL(String(input)).pathname) });

  it("verifies the checkpoint, every leaf's inclusion, and the consistency of two checkpoints", async () => {
    await grow(4, 3);
    const log = client(4);
    const info = await log.keys();
    expect(info.origin).toBe(logOrigin(env, 4));
    const first = await log.verifiedCheckpoint(info.verifier_keys, info.origin);
    const leaves = await grow(4, 5);
    // The cached checkpoint lives 2 seconds: read the new one past the cache.
    await caches.default.delete("https://log.cache/log/4/checkpoint");
    const second = await log.verifiedCheckpoint(info.verifier_keys, info.origin);
    expect(second.size).toBe(first.size + 5);
    expect(await log.verifyConsistency(first, second)).toBe(true);
    expect(await log.compare(first, second)).toBe("newer");
    expect(await log.compare(second, first)).toBe("stale");
    for (const [i, leaf] of leaves.entries()) {
      expect(await log.verifyLeaf(leaf, first.size + i, second)).toBe(true);
      expect(await log.leaf(first.size + i, second)).toEqual(leaf);
    }
    expect(await log.verifyLeaf(leaves[0], first.size + 1, second)).toBe(false);
  });

  it("refuses a leaf altered in its entry bundle", async () => {
    const leaves = await grow(5, 4);
    const log = client(5);
    const checkpoint = await log.verifiedCheckpoint((await log.keys()).verifier_keys);
    // Whoever can write the bucket (or sits between it and the client) swaps entry 2 for another.
    const key = "log/5/tile/entries/000.p/4";
    const altered = { ...leaves[2], commit: "0".repeat(64) };
    const entries = parseBundle(new Uint8Array(await (await env.LOG_BUCKET.get(key))!.arrayBuffer()))!;
    const { encodeBundle } = await import("../../src/domain/log");
    await env.LOG_BUCKET.put(key, encodeBundle([entries[0], entries[1], leafBytes(altered), entries[3]]));
    expect(await log.leaf(2, checkpoint)).toBeNull();
    expect(await log.leaf(1, checkpoint)).toEqual(leaves[1]);
    expect(await log.verifyLeaf(altered, 2, checkpoint)).toBe(false);
    expect(await log.verifyLeaf(leaves[2], 2, checkpoint)).toBe(true);
  });
});

