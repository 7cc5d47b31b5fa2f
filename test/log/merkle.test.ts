// The Merkle tree against the reference vectors of RFC 6962 / RFC 9162 (test/log/vectors.ts), then
// against itself: proofs computed from tiles agree with proofs computed from memory, for every
// index and every pair of sizes of small trees.
import { describe, expect, it } from "vitest";
import {
  consistencyProof,
  emptyRoot,
  fromHex,
  hashChildren,
  hashLeaf,
  inclusionProof,
  integrate,
  EMPTY_EDGE,
  perfectRoot,
  portableSha256,
  rootFromInclusionProof,
  sha256Now,
  tileNodeReader,
  toHex,
  treeHash,
  utf8,
  verifyConsistency,
  verifyInclusion,
  type NodeReader,
} from "../../src/domain/log";
import { CONSISTENCY, HASHER, INCLUSION, LEAVES, ROOTS, SOME_HASH } from "./vectors";

const h = (hex: string) => fromHex(hex)!;
const hx = (bytes: Uint8Array) => toHex(bytes);

/** Complete subtrees straight from the leaf hashes. */
const memoryReader = (leafHashes: Uint8Array[]): NodeReader => async (height, index) =>
  perfectRoot(leafHashes.slice(index * 2 ** height, (index + 1) * 2 ** height));

const vectorLeafHashes = () => Promise.all(LEAVES.map((l) => hashLeaf(h(l))));

describe("SHA-256", () => {
  it("is the same from the portable implementation, the Worker's native one and WebCrypto", async () => {
    for (let length = 0; length < 300; length += 7) {
      const data = crypto.getRandomValues(new Uint8Array(length));
      const webcrypto = hx(new Uint8Array(await crypto.subtle.digest("SHA-256", data)));
      expect(hx(portableSha256(data))).toBe(webcrypto);
      expect(hx(sha256Now(data.subarray(0, 3), data.subarray(3)))).toBe(webcrypto);
    }
  });
});

describe("hashes (transparency-dev/merkle rfc6962_test.go)", () => {
  it("hashes the empty tree, leaves and nodes", async () => {
    expect(hx(await emptyRoot())).toBe(HASHER.empty);
    expect(hx(await hashLeaf(new Uint8Array(0)))).toBe(HASHER.emptyLeaf);
    expect(hx(await hashLeaf(utf8("L123456")))).toBe(HASHER.leaf);
    expect(hx(await hashChildren(utf8("N123"), utf8("N456")))).toBe(HASHER.node);
  });

  it("gives the root of every prefix of the eight leaves", async () => {
    const leaves = await vectorLeafHashes();
    for (let n = 1; n <= 8; n++) expect(hx(await treeHash(memoryReader(leaves), n))).toBe(ROOTS[n - 1]);
    expect(hx(await treeHash(memoryReader(leaves), 0))).toBe(HASHER.empty);
  });
});

// The corruptions of transparency-dev/merkle's verify_test.go: each must fail.
function corruptInclusion(index: number, size: number, proof: Uint8Array[], root: Uint8Array, leaf: Uint8Array) {
  const probes: [string, number, number, Uint8Array, Uint8Array[], Uint8Array][] = [
    ["index - 1", index - 1, size, leaf, proof, root],
    ["index + 1", index + 1, size, leaf, proof, root],
    ["index ^ 2", index ^ 2, size, leaf, proof, root],
    ["size * 2", index, size * 2, leaf, proof, root],
    ["size / 2", index, Math.floor(size / 2), leaf, proof, root],
    ["wrong leaf", index, size, utf8("WrongLeaf"), proof, root],
    ["empty root", index, size, leaf, proof, h(HASHER.empty)],
    ["random root", index, size, leaf, proof, h(SOME_HASH)],
    ["trailing garbage", index, size, leaf, [...proof, new Uint8Array(0)], root],
    ["trailing root", index, size, leaf, [...proof, root], root],
    ["preceding garbage", index, size, leaf, [new Uint8Array(0), ...proof], root],
    ["preceding root", index, size, leaf, [root, ...proof], root],
  ];
  proof.forEach((_, i) => {
    const wrong = proof.map((p) => p.slice());
    wrong[i][0] ^= 8;
    probes.push([`modified proof[${i}]`, index, size, leaf, wrong, root]);
  });
  if (proof.length > 0) probes.push(["removed component", index, size, leaf, proof.slice(0, -1), root]);
  if (proof.length > 1) probes.push(["inserted component", index, size, leaf, [proof[0], h(SOME_HASH), ...proof.slice(1)], root]);
  return probes;
}

function corruptConsistency(size1: number, size2: number, root1: Uint8Array, root2: Uint8Array, proof: Uint8Array[]) {
  const probes: [string, number, number, Uint8Array, Uint8Array, Uint8Array[]][] = [
    ["size1 - 1", size1 - 1, size2, root1, root2, proof],
    ["size1 + 1", size1 + 1, size2, root1, root2, proof],
    ["size1 ^ 2", size1 ^ 2, size2, root1, root2, proof],
    ["size2 * 2", size1, size2 * 2, root1, root2, proof],
    ["size2 / 2", size1, Math.floor(size2 / 2), root1, root2, proof],
    ["wrong root1", size1, size2, utf8("WrongRoot"), root2, proof],
    ["wrong root2", size1, size2, root1, utf8("WrongRoot"), proof],
    ["swapped roots", size1, size2, root2, root1, proof],
    ["empty proof", size1, size2, root1, root2, []],
    ["trailing garbage", size1, size2, root1, root2, [...proof, new Uint8Array(0)]],
    ["trailing root1", size1, size2, root1, root2, [...proof, root1]],
    ["trailing root2", size1, size2, root1, root2, [...proof, root2]],
    ["preceding garbage", size1, size2, root1, root2, [new Uint8Array(0), ...proof]],
    ["preceding root1", size1, size2, root1, root2, [root1, ...proof]],
    ["preceding root2", size1, size2, root1, root2, [root2, ...proof]],
    ["preceding proof[0]", size1, size2, root1, root2, [proof[0], ...proof]],
  ];
  if (proof.length > 0) probes.push(["truncated proof", size1, size2, root1, root2, proof.slice(0, -1)]);
  proof.forEach((_, i) => {
    const wrong = proof.map((p) => p.slice());
    wrong[i][0] ^= 16;
    probes.push([`modified proof[${i}]`, size1, size2, root1, root2, wrong]);
  });
  return probes;
}

describe("inclusion proofs (transparency-dev/merkle verify_test.go)", () => {
  it("computes the reference proofs, verifies them, and refuses every corruption", async () => {
    const leaves = await vectorLeafHashes();
    for (const v of INCLUSION) {
      const proof = await inclusionProof(memoryReader(leaves), v.index, v.size);
      expect(proof.map(hx), `${v.index} in ${v.size}`).toEqual(v.proof);
      const root = h(ROOTS[v.size - 1]);
      expect(hx((await rootFromInclusionProof(v.index, v.size, leaves[v.index], proof))!)).toBe(ROOTS[v.size - 1]);
      expect(await verifyInclusion(v.index, v.size, leaves[v.index], proof, root)).toBe(true);
      for (const [what, index, size, leaf, wrong, r] of corruptInclusion(v.index, v.size, proof, root, leaves[v.index])) {
        expect(await verifyInclusion(index, size, leaf, wrong, r), `${v.index} in ${v.size}: ${what}`).toBe(false);
      }
    }
  });

  it("refuses what can never be a proof", async () => {
    const some = h(SOME_HASH);
    const empty = h(HASHER.empty);
    for (const [index, size] of [[0, 0], [0, 1], [1, 0], [2, 1]]) {
      expect(await verifyInclusion(index, size, some, [], new Uint8Array(0))).toBe(false);
      expect(await verifyInclusion(index, size, new Uint8Array(0), [], empty)).toBe(false);
      expect(await verifyInclusion(index, size, some, [], empty)).toBe(false);
    }
    // A tree of one leaf: its root is its leaf hash and the proof is empty.
    const leaf = await hashLeaf(utf8("data"));
    expect(await verifyInclusion(0, 1, leaf, [], leaf)).toBe(true);
    expect(await verifyInclusion(0, 1, new Uint8Array(0), [], leaf)).toBe(false);
    expect(await verifyInclusion(0, 1, leaf, [], new Uint8Array(0))).toBe(false);
  });
});

describe("consistency proofs (transparency-dev/merkle verify_test.go)", () => {
  it("computes the reference proofs, verifies them, and refuses every corruption", async () => {
    const leaves = await vectorLeafHashes();
    for (const v of CONSISTENCY) {
      const proof = await consistencyProof(memoryReader(leaves), v.size1, v.size2);
      expect(proof.map(hx), `${v.size1} to ${v.size2}`).toEqual(v.proof);
      const [root1, root2] = [h(ROOTS[v.size1 - 1]), h(ROOTS[v.size2 - 1])];
      expect(await verifyConsistency(v.size1, v.size2, root1, root2, proof)).toBe(true);
      if (proof.length === 0) continue;
      for (const [what, size1, size2, r1, r2, wrong] of corruptConsistency(v.size1, v.size2, root1, root2, proof)) {
        expect(await verifyConsistency(size1, size2, r1, r2, wrong), `${v.size1} to ${v.size2}: ${what}`).toBe(false);
      }
    }
  });

  it("decides the edge cases as the reference does", async () => {
    const [r1, r2] = [utf8("don't care 1"), utf8("don't care 2")];
    const empty = h(HASHER.empty);
    const cases: [number, number, Uint8Array, Uint8Array, Uint8Array[], boolean][] = [
      [0, 0, r1, r2, [], false],
      [1, 1, r1, r2, [], false],
      [0, 0, r1, r1, [], true],
      [0, 1, r1, r2, [], true],
      [1, 1, r2, r2, [], true],
      [1, 0, r1, r2, [], false],
      [2, 1, r1, r2, [], false],
      [1, 2, r1, r2, [], false],
      [0, 0, empty, r2, [], false],
      [1, 1, empty, r2, [], false],
      [0, 0, empty, empty, [empty], false],
      [0, 1, empty, empty, [empty], false],
      [1, 1, empty, empty, [empty], false],
    ];
    for (const [size1, size2, a, b, proof, ok] of cases) {
      expect(await verifyConsistency(size1, size2, a, b, proof), `${size1} to ${size2}`).toBe(ok);
    }
  });
});

describe("proofs from tiles", () => {
  it("agree with proofs from memory for every index and every pair of sizes up to 40 leaves", async () => {
    const leaves = await Promise.all(Array.from({ length: 40 }, (_, i) => hashLeaf(utf8(`leaf ${i}`))));
    const memory = memoryReader(leaves);
    // A tile height of 8 makes every tree under 256 leaves one partial tile: the batch sizes vary so
    // that the edge is carried across batches.
    let edge = EMPTY_EDGE;
    const published = new Map<string, Uint8Array>();
    for (const batch of [1, 2, 5, 13, 19]) {
      const grown = await integrate(edge, leaves.slice(edge.size, edge.size + batch));
      for (const t of grown.tiles) published.set(`${t.tile.level}/${t.tile.index}/${t.tile.width}`, t.bytes);
      edge = grown.edge;
      expect(hx(grown.root)).toBe(hx(await treeHash(memory, edge.size)));
    }
    expect(edge.size).toBe(40);
    for (let n = 1; n <= 40; n++) {
      // Partial tiles exist at the sizes batches ended on; another width is the prefix of the widest
      // (as the service's reads answer it).
      const tiles = tileNodeReader(async (t) => {
        const widest = [...published].filter(([k]) => k.startsWith(`${t.level}/${t.index}/`)).map(([, b]) => b).sort((a, b) => b.length - a.length)[0];
        return widest.subarray(0, t.width * 32);
      }, n);
      const root = await treeHash(memory, n);
      expect(hx(await treeHash(tiles, n))).toBe(hx(root));
      for (let i = 0; i < n; i++) {
        const proof = await inclusionProof(tiles, i, n);
        expect(proof.map(hx)).toEqual((await inclusionProof(memory, i, n)).map(hx));
        expect(await verifyInclusion(i, n, leaves[i], proof, root)).toBe(true);
      }
      for (let m = 0; m <= n; m++) {
        const proof = await consistencyProof(tiles, m, n);
        expect(await verifyConsistency(m, n, await treeHash(memory, m), root, proof), `${m} to ${n}`).toBe(true);
      }
    }
  });
});
