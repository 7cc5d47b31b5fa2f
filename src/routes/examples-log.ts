// The examples of the agent's entries list and of an attestation's `log`, made with the chain's own
// code (RFC 8785, SHA-256, the leaf and RFC 9162 hashes): every hash in them is the real one.
import { canonical, GENESIS, type Entry, type ScoreFace } from "../domain/entries";
import { DIMENSIONS } from "../domain/model";
import type { AttestationLog } from "../domain/attestations";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { concat, leafBytes, portableSha256 as sha256, toBase64, toHex, utf8, type Leaf } from "../domain/log";
import type { EntryList } from "../http/wire/entries";

const hex = (text: string) => toHex(sha256(utf8(text)));
const salted = (salt: string, field: string, text: string) => hex(`${salt}:${field}:${text}`);
const hmacHex = (key: Uint8Array, text: string) => toHex(hmac(nobleSha256, key, utf8(text)));

/** A score face: the composite, and each dimension at `dimension` but the first at `first`. */
const face = (composite: number, first: number, dimension: number): ScoreFace =>
  ({ composite, ...Object.fromEntries(DIMENSIONS.map((d, i) => [d, i === 0 ? first : dimension])) }) as ScoreFace;

export function logExamples(sid: string, origin: string, registeredAt: string, reportedAt: string) {
  const salts = ["0f1e2d3c4b5a69788796a5b4c3d2e1f0", "a1b2c3d4e5f60718293a4b5c6d7e8f90"];
  // An example log key; the agent's constant name under it and its key of owner epoch 0.
  const logKey = sha256(utf8("example log key"));
  const agent = hmacHex(logKey, sid);
  const epochKey = hmacHex(logKey, `${sid}:0`);
  const registration = {
    v: 1,
    sid,
    n: 1,
    kind: "registration",
    at: registeredAt,
    prev: GENESIS,
    nonce: "5a4b3c2d1e0f11223344556677889900",
    owner: hex("owner commitment"),
    fingerprint: hex("fingerprint"),
    name: salted(salts[0], "name", "Invoice Assistant"),
    description: null,
    score: face(500, 500, 500),
  } as unknown as Entry;
  const first = canonical(registration);
  const report = {
    v: 1,
    sid,
    n: 2,
    kind: "report",
    at: reportedAt,
    prev: hex(first),
    nonce: "99887766554433221100ffeeddccbbaa",
    reporter: hex("reporter commitment"),
    outcome: "success",
    signals: { reliability: 900 },
    receipt: false,
    type: salted(salts[1], "type", "invoice_reconciliation"),
    metadata: null,
    score: face(538, 571, 500),
  } as unknown as Entry;
  const second = canonical(report);
  const entries: EntryList = {
    sid,
    log: { log: 0, origin: `${origin.replace(/^https?:\/\//, "")}/log/0`, agent },
    entries: [
      { n: 1, kind: "registration", entry: first, hash: hex(first), score: 500, opening: { salt: salts[0], name: "Invoice Assistant", description: null } },
      { n: 2, kind: "report", entry: second, hash: hex(second), score: 538, opening: { salt: salts[1], type: "invoice_reconciliation", metadata: null } },
    ],
    next_cursor: null,
  };
  // The report's leaf, at index 1 of a tree of two leaves (the agent's registration at index 0):
  // {tag: HMAC(k, "<n>"), commit: SHA-256("<n>:<entry hash>:<score>:<nonce>")}.
  const nonces = [registration.nonce, report.nonce];
  const leaves: Leaf[] = [1, 2].map((n) => ({
    tag: hmacHex(Uint8Array.from(epochKey.match(/../g)!.map((b) => parseInt(b, 16))), String(n)),
    commit: hex(`${n}:${entries.entries[n - 1].hash}:${entries.entries[n - 1].score}:${nonces[n - 1]}`),
  }));
  const hashes = leaves.map((l) => sha256(concat(Uint8Array.of(0), leafBytes(l))));
  const root = sha256(concat(Uint8Array.of(1), hashes[0], hashes[1]));
  const logOrigin = entries.log.origin;
  const log: AttestationLog = {
    origin: logOrigin,
    index: 1,
    tree_size: 2,
    root: toBase64(root),
    inclusion: [toBase64(hashes[0])],
    leaf: leaves[1],
    opening: { sid, n: 2, entry_hash: entries.entries[1].hash, score: 538, nonce: report.nonce },
    // Signature placeholder of the right length (the attestation's own signature is one too).
    checkpoint: `${logOrigin}\n2\n${toBase64(root)}\n\n— ${logOrigin} ${toBase64(new Uint8Array(68))}\n`,
  };
  return { entries, log, epochKey };
}
