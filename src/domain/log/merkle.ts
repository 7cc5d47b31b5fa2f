// The Merkle tree of RFC 9162 (Certificate Transparency 2.0, the tree of RFC 6962): leaf hash
// SHA-256(0x00 || leaf), node hash SHA-256(0x01 || left || right). Proofs are computed from the
// hashes of complete subtrees (whatever stores them: tiles, memory) and verified with the RFC's
// own algorithms. Sizes and indices are plain numbers: no bitwise operator (32 bits) touches them.

import { equalBytes, sha256Now, type Bytes } from "./bytes";

export const HASH_SIZE = 32;

const LEAF_PREFIX = Uint8Array.of(0);
const NODE_PREFIX = Uint8Array.of(1);

export const leafHashNow = (data: Uint8Array): Bytes => sha256Now(LEAF_PREFIX, data);
export const nodeHashNow = (left: Uint8Array, right: Uint8Array): Bytes => sha256Now(NODE_PREFIX, left, right);
export const hashLeaf = async (data: Uint8Array): Promise<Bytes> => leafHashNow(data);
export const hashChildren = async (left: Uint8Array, right: Uint8Array): Promise<Bytes> => nodeHashNow(left, right);
/** The root of the empty tree: SHA-256 of nothing. */
export const emptyRoot = async (): Promise<Bytes> => sha256Now(new Uint8Array(0));

/** The hash of the complete subtree of height `height` whose leaves start at `index * 2^height`. */
export type NodeReader = (height: number, index: number) => Promise<Uint8Array>;

const isPowerOfTwo = (n: number) => {
  if (n < 1) return false;
  while (n % 2 === 0) n /= 2;
  return n === 1;
};
const log2 = (n: number) => {
  let h = 0;
  for (; n > 1; n /= 2) h++;
  return h;
};
/** The largest power of two smaller than n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
const half = (n: number) => Math.floor(n / 2);
const odd = (n: number) => n % 2 === 1;

/** The root of 2^k hashes taken as the leaves of a perfect tree (the hashes already hashed). */
export function perfectRoot(hashes: Uint8Array[]): Uint8Array {
  let level = hashes;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(nodeHashNow(level[i], level[i + 1]));
    level = next;
  }
  return level[0];
}

/** MTH(D[start:end]) of RFC 9162 §2.1.1, reading complete subtrees from `read`. */
export async function subtreeHash(read: NodeReader, start: number, end: number): Promise<Uint8Array> {
  const n = end - start;
  if (n === 0) return emptyRoot();
  if (isPowerOfTwo(n) && start % n === 0) return read(log2(n), start / n);
  const k = splitPoint(n);
  return hashChildren(await subtreeHash(read, start, start + k), await subtreeHash(read, start + k, end));
}

export const treeHash = (read: NodeReader, size: number) => subtreeHash(read, 0, size);

/** The inclusion proof of leaf `index` in the tree of `size` leaves: PATH(m, D[n]), RFC 9162 §2.1.3.1. */
export async function inclusionProof(read: NodeReader, index: number, size: number): Promise<Uint8Array[]> {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path = async (m: number, start: number, end: number): Promise<Uint8Array[]> => {
    const n = end - start;
    if (n <= 1) return [];
    const k = splitPoint(n);
    if (m < k) return [...(await path(m, start, start + k)), await subtreeHash(read, start + k, end)];
    return [...(await path(m - k, start + k, end)), await subtreeHash(read, start, start + k)];
  };
  return path(index, 0, size);
}

/** The consistency proof from the tree of `size1` leaves to the tree of `size2`: PROOF(m, D[n]), RFC 9162 §2.1.4.1. */
export async function consistencyProof(read: NodeReader, size1: number, size2: number): Promise<Uint8Array[]> {
  if (!(size1 >= 0 && size1 <= size2)) throw new RangeError(`no consistency proof from ${size1} to ${size2}`);
  if (size1 === 0 || size1 === size2) return [];
  const subproof = async (m: number, start: number, end: number, whole: boolean): Promise<Uint8Array[]> => {
    const n = end - start;
    if (m === n) return whole ? [] : [await subtreeHash(read, start, end)];
    const k = splitPoint(n);
    if (m <= k) return [...(await subproof(m, start, start + k, whole)), await subtreeHash(read, start + k, end)];
    return [...(await subproof(m - k, start + k, end, false)), await subtreeHash(read, start, start + k)];
  };
  return subproof(size1, 0, size2, true);
}

const wellFormed = (hashes: Uint8Array[]) => hashes.every((h) => h.length === HASH_SIZE);

/** The root an inclusion proof leads to (RFC 9162 §2.1.3.2), or null when the proof cannot be one. */
export async function rootFromInclusionProof(index: number, size: number, leafHash: Uint8Array, proof: Uint8Array[]): Promise<Uint8Array | null> {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return null;
  if (leafHash.length !== HASH_SIZE || !wellFormed(proof)) return null;
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array = leafHash;
  for (const p of proof) {
    if (sn === 0) return null;
    if (odd(fn) || fn === sn) {
      r = await hashChildren(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = await hashChildren(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? r : null;
}

/** Whether `proof` shows the leaf of hash `leafHash` at `index` in the tree of `size` leaves and root `root`. */
export async function verifyInclusion(index: number, size: number, leafHash: Uint8Array, proof: Uint8Array[], root: Uint8Array): Promise<boolean> {
  const computed = await rootFromInclusionProof(index, size, leafHash, proof);
  return computed !== null && root.length === HASH_SIZE && equalBytes(computed, root);
}

/**
 * Whether `proof` shows that the tree of `size1` leaves and root `root1` is a prefix of the tree of
 * `size2` leaves and root `root2` (RFC 9162 §2.1.4.2). Equal sizes need equal roots and an empty
 * proof; the empty tree is a prefix of every tree.
 */
export async function verifyConsistency(size1: number, size2: number, root1: Uint8Array, root2: Uint8Array, proof: Uint8Array[]): Promise<boolean> {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2) || size1 < 0 || size2 < size1) return false;
  if (!wellFormed(proof)) return false;
  if (size1 === size2) return proof.length === 0 && equalBytes(root1, root2);
  if (size1 === 0) return proof.length === 0;
  if (proof.length === 0 || root1.length !== HASH_SIZE || root2.length !== HASH_SIZE) return false;
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : proof;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = await hashChildren(c, fr);
      sr = await hashChildren(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = await hashChildren(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalBytes(fr, root1) && equalBytes(sr, root2);
}
