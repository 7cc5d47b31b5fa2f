// The log's formats: C2SP tile paths and entry bundles, Go's signed notes (its own test key and
// signature, test/log/vectors.ts), checkpoints, and the leaf.
import { describe, expect, it } from "vitest";
import {
  agentTag,
  checkLeaf,
  logKey,
  checkpointText,
  encodeBundle,
  encodeTileIndex,
  EMPTY_EDGE,
  fromBase64,
  integrate,
  leafBytes,
  leafHash,
  hashLeaf,
  openNote,
  parseBundle,
  parseCheckpointText,
  parseLeaf,
  parseTilePath,
  parseVerifierKey,
  scoreCommit,
  signNote,
  tilePath,
  tileWidth,
  toBase64,
  toHex,
  utf8,
  verifierKey,
  verifyCheckpoint,
  CheckpointError,
} from "../../src/domain/log";
import { noteSigner, parseLogSigningKeys } from "../../src/domain/log/keys";
import { GO_NOTE } from "./vectors";

describe("tile paths (C2SP tlog-tiles)", () => {
  it("writes N in three-digit groups, all but the last prefixed with x", () => {
    expect(encodeTileIndex(0)).toBe("000");
    expect(encodeTileIndex(5)).toBe("005");
    expect(encodeTileIndex(999)).toBe("999");
    expect(encodeTileIndex(1000)).toBe("x001/000");
    expect(encodeTileIndex(1234067)).toBe("x001/x234/067");
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe("tile/0/x001/x234/067");
    expect(tilePath({ level: 2, index: 3, width: 17 })).toBe("tile/2/003.p/17");
    expect(tilePath({ level: "entries", index: 1000, width: 5 })).toBe("tile/entries/x001/000.p/5");
  });

  it("reads back exactly the paths the layout allows", () => {
    expect(parseTilePath("tile/0/x001/x234/067")).toEqual({ level: 0, index: 1234067, width: 256 });
    expect(parseTilePath("tile/63/000.p/255")).toEqual({ level: 63, index: 0, width: 255 });
    expect(parseTilePath("tile/entries/012.p/1")).toEqual({ level: "entries", index: 12, width: 1 });
    for (const bad of [
      "tile/64/000", // level past 63
      "tile/01/000", // a leading zero in L
      "tile/0/12", // N not three digits
      "tile/0/x000/012", // a non-canonical leading group
      "tile/0/001/002", // a group without x
      "tile/0/000.p/0", // width 0
      "tile/0/000.p/256", // width 256 is the full tile
      "tile/0/000.p/07", // a leading zero in W
      "tile/0/000.p/",
      "tile/data/000",
      "tile/0/000/",
      "tile/-1/000",
    ]) {
      expect(parseTilePath(bad), bad).toBeNull();
    }
  });

  it("sizes tiles as the specification's example of a tree of 70,000 leaves", async () => {
    // 273 full level-0 tiles and a partial one of 112; one full level-1 tile and a partial one of
    // 17; a partial level-2 tile of 1.
    expect(tileWidth(0, 272, 70_000)).toBe(256);
    expect(tileWidth(0, 273, 70_000)).toBe(112);
    expect(tileWidth(0, 274, 70_000)).toBe(0);
    expect(tileWidth(1, 0, 70_000)).toBe(256);
    expect(tileWidth(1, 1, 70_000)).toBe(17);
    expect(tileWidth(2, 0, 70_000)).toBe(1);
    expect(tileWidth(3, 0, 70_000)).toBe(0);
    const hashes = Array.from({ length: 70_000 }, (_, i) => {
      const h = new Uint8Array(32);
      new DataView(h.buffer).setUint32(0, i);
      return h;
    });
    const { tiles, edge } = await integrate(EMPTY_EDGE, hashes);
    const count = (level: number, full: boolean) => tiles.filter((t) => t.tile.level === level && (t.tile.width === 256) === full).length;
    expect([count(0, true), count(1, true), count(2, true)]).toEqual([273, 1, 0]);
    expect(tiles.filter((t) => t.tile.width < 256).map((t) => tilePath(t.tile))).toEqual(["tile/0/273.p/112", "tile/1/001.p/17", "tile/2/000.p/1"]);
    expect(edge.partials.map((p) => p.length)).toEqual([112, 17, 1]);
    // A tree of 256 leaves: one full level-0 tile and a partial level-1 tile of width 1.
    const small = await integrate(EMPTY_EDGE, hashes.slice(0, 256));
    expect(small.tiles.map((t) => tilePath(t.tile))).toEqual(["tile/0/000", "tile/1/000.p/1"]);
  });
});

describe("entry bundles", () => {
  it("prefixes each entry with its big-endian uint16 length", () => {
    const bundle = encodeBundle([utf8("ab"), new Uint8Array(0), new Uint8Array(300).fill(7)]);
    expect(toHex(bundle.subarray(0, 4))).toBe("00026162");
    expect(toHex(bundle.subarray(4, 6))).toBe("0000");
    expect(toHex(bundle.subarray(6, 8))).toBe("012c");
    expect(parseBundle(bundle)!.map((e) => e.length)).toEqual([2, 0, 300]);
    expect(parseBundle(bundle.subarray(0, bundle.length - 1))).toBeNull();
    expect(parseBundle(Uint8Array.of(0))).toBeNull();
  });
});

describe("signed notes (Go's sumdb/note)", () => {
  const goSigner = async () => {
    // Go's private key string: PRIVATE+KEY+<name>+<key ID>+base64(0x01 || seed).
    const seed = fromBase64(GO_NOTE.privateKey.split("+").slice(4).join("+"))!.slice(1);
    const keys = await parseLogSigningKeys(JSON.stringify([toBase64(seed)]));
    if (!keys.ok) throw new Error(keys.problem);
    return { key: keys.keys[0], signer: await noteSigner(keys.keys[0], "PeterNeumann") };
  };

  it("makes Go's verifier key and signature from Go's test key", async () => {
    const { key, signer } = await goSigner();
    expect(await verifierKey("PeterNeumann", key.publicKey)).toBe(GO_NOTE.verifierKey);
    expect(signer.keyId.toString(16)).toBe("c74f20a3");
    expect(await signNote(GO_NOTE.text, [signer])).toBe(`${GO_NOTE.text}\n${GO_NOTE.signature}`);
  });

  it("opens Go's note with its verifier key and refuses what note.Open refuses", async () => {
    const verifier = (await parseVerifierKey(GO_NOTE.verifierKey))!;
    const note = `${GO_NOTE.text}\n${GO_NOTE.signature}`;
    expect(await openNote(note, [verifier])).toEqual({ ok: true, text: GO_NOTE.text, signedBy: ["PeterNeumann"] });
    const other = `— CarmenSandiego ${GO_NOTE.signature.split(" ")[2]}`;
    expect(await openNote(`${GO_NOTE.text}\n${other}`, [verifier])).toEqual({ ok: false, reason: "no signature by a known key" });
    // An unknown key's signature beside the known one is ignored.
    expect((await openNote(`${note}${other}`, [verifier])).ok).toBe(true);
    const tampered = note.replace("cryptography", "cryptograph");
    expect(await openNote(tampered, [verifier])).toEqual({ ok: false, reason: "invalid signature for key PeterNeumann+c74f20a3" });
    for (const malformed of [GO_NOTE.text, `${GO_NOTE.text}\n`, `${GO_NOTE.text}\n${GO_NOTE.signature.slice(0, -1)}`, `${GO_NOTE.text}\n- ${GO_NOTE.signature.slice(2)}`, `a\tb\n\n${GO_NOTE.signature}`]) {
      expect((await openNote(malformed, [verifier])).ok, JSON.stringify(malformed)).toBe(false);
    }
  });

  it("reads only well-formed verifier keys whose ID matches", async () => {
    expect(await parseVerifierKey(GO_NOTE.verifierKey)).not.toBeNull();
    for (const bad of [
      "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", // wrong ID
      "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==", // wrong length
      "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", // unknown algorithm
      "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
      "PeterNeumann+c74f20a3",
    ]) {
      expect(await parseVerifierKey(bad), bad).toBeNull();
    }
  });
});

describe("checkpoints (C2SP tlog-checkpoint)", () => {
  it("signs the origin, the size and the root, and verifies them only for the log and keys they are of", async () => {
    const keys = await parseLogSigningKeys(JSON.stringify([toBase64(crypto.getRandomValues(new Uint8Array(32)))]));
    if (!keys.ok) throw new Error(keys.problem);
    const origin = "trust.example/log/0";
    const root = await hashLeaf(utf8("x"));
    const note = await signNote(checkpointText({ origin, size: 1, root }), [await noteSigner(keys.keys[0], origin)]);
    expect(note.split("\n").slice(0, 4)).toEqual([origin, "1", toBase64(root), ""]);
    const vkey = await verifierKey(origin, keys.keys[0].publicKey);
    expect(await verifyCheckpoint(note, [vkey], origin)).toEqual({ origin, size: 1, root });
    await expect(verifyCheckpoint(note, [vkey], "trust.example/log/1")).rejects.toThrow("the checkpoint is of trust.example/log/0, not trust.example/log/1");
    // The same key under another log's name verifies nothing of this log.
    await expect(verifyCheckpoint(note, [await verifierKey("trust.example/log/1", keys.keys[0].publicKey)])).rejects.toThrow(CheckpointError);
    expect(parseCheckpointText("o\n01\nAAAA\n").ok).toBe(false);
    expect(parseCheckpointText(`o\n1\n${toBase64(root)}\n`).ok).toBe(true);
    expect(parseCheckpointText(`o\n1\n${toBase64(root)}`).ok).toBe(false);
  });
});

describe("leaves", () => {
  const leaf = { agent: "a".repeat(64), seq: 3, entry_hash: "b".repeat(64), score_commit: "c".repeat(64) };

  it("are their RFC 8785 JSON, keys sorted", async () => {
    expect(new TextDecoder().decode(leafBytes({ seq: 3, score_commit: "c".repeat(64), entry_hash: "b".repeat(64), agent: "a".repeat(64) } as typeof leaf))).toBe(
      `{"agent":"${"a".repeat(64)}","entry_hash":"${"b".repeat(64)}","score_commit":"${"c".repeat(64)}","seq":3}`,
    );
    expect(toHex(await leafHash(leaf))).toBe(toHex(await hashLeaf(leafBytes(leaf))));
    expect(parseLeaf(leafBytes(leaf))).toEqual(leaf);
    expect(parseLeaf(utf8(JSON.stringify(leaf)))).toBeNull(); // not canonical: keys unsorted
  });

  it("are checked field by field", () => {
    expect(checkLeaf(leaf).ok).toBe(true);
    expect(checkLeaf({ ...leaf, seq: 0 })).toEqual({ ok: false, problem: "leaf.seq must be an integer ≥ 1" });
    expect(checkLeaf({ ...leaf, agent: "A".repeat(64) })).toEqual({ ok: false, problem: "leaf.agent must be 64 lowercase hex" });
    expect(checkLeaf({ ...leaf, sid: "x" })).toEqual({ ok: false, problem: "a leaf has no field sid" });
  });

  it("name agents by HMAC-SHA256(LOG_KEY, sid)", async () => {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const webcrypto = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const expected = toHex(new Uint8Array(await crypto.subtle.sign("HMAC", webcrypto, utf8("SID-0x0123456789abcdef"))));
    expect(await agentTag((await logKey(toBase64(secret)))!, "SID-0x0123456789abcdef")).toBe(expected);
    expect(await logKey(toBase64(secret.slice(1)))).toBeNull();
  });

  it("commit to a score and a nonce", async () => {
    expect(await scoreCommit(742, "00ff")).toBe(toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8("742:00ff")))));
  });
});
