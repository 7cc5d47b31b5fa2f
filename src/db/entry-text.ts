// How the shard stores an entry's text columns (its canonical JSON, `body`, its free text in clear,
// `private`, a keyed change's answer and what the entry tells, `answer` and `outbox`): the one place
// that writes and reads that form. A column holds either the text
// itself (SQLite TEXT: every row from before this form, and short text that would not shrink) or a
// BLOB: a format byte, then the text compressed with raw DEFLATE under a preset dictionary of the
// chain's own field names and common values. A report's entry of about 610 bytes, a third of it hex,
// stores in about 210: the shard's bytes were the largest part of a batched report's cost, and a
// WITHOUT ROWID row past about 1 KB spills into a 4 KB overflow page (docs/performance.md). The
// text, and so every hash over it, is unchanged: what leaves the service is always the text.

import { deflateRawSync, inflateRawSync } from "node:zlib";

/** What D1 hands back for the column: text for rows from before, the BLOB's bytes as numbers after. */
export type StoredText = string | number[] | ArrayBuffer | Uint8Array;

const FORMAT_DEFLATE_V1 = 1;

// Frozen: a stored row can only be read with the dictionary it was written with. A new dictionary
// is a new format byte, never an edit here (test/db/entry-text.test.ts pins its hash, and reads a row
// written with it). DEFLATE reaches back at most 32 KiB and codes near matches cheaper, so the most
// common shape, a report, comes last.
export const DICTIONARY_V1: Readonly<Uint8Array> = new TextEncoder().encode(
  '"bootstrap":false,"values":{},"snapshot":"through":"cut":"state":"locals":{},"recent":{},"owner":null,' +
    '"reporters":{},"caution":false,"version":3,"level":1,"key":null,"keys":[],"status":"active","suspended",' +
    '"outcome":"kept","of":"description":null,"name":"owner":"kind":"registration","kind":"claim","kind":"identity",' +
    '"kind":"credibility","kind":"inheritance","kind":"model","kind":"snapshot","kind":"status","kind":"dispute",' +
    '"kind":"withdrawal","changes":["memory_change","model_swap","prompt_change","provider_change","tools_change"],' +
    '"fingerprint":"","kind":"config","outcome":"partial","outcome":"timeout","outcome":"error","outcome":"failure",' +
    '"receipt":true,"metadata":"","signals":{}' +
    '{"at":"2026-01-01T00:00:00.000Z","base":1,"damping":1,"evidence":1,"kind":"report","metadata":null,"n":1,"nonce":"",' +
    '"outcome":"success","penalty":1,"prev":"","receipt":false,"reporter":"","score":{"composite":500,"financial":500,' +
    '"quality":500,"reliability":500,"security":500,"stability":500},"sid":"SID-0x","signals":{"financial":50,' +
    '"quality":50,"reliability":50,"security":50},"type":"","v":1,"weight":1}',
);

/** The stored form of a text column: the BLOB, unless the text is no longer than it (then the text). */
export function packText(text: string): string | Uint8Array {
  const packed = deflateRawSync(text, { dictionary: DICTIONARY_V1, level: 9 });
  if (packed.length + 1 >= new TextEncoder().encode(text).length) return text;
  const out = new Uint8Array(packed.length + 1);
  out[0] = FORMAT_DEFLATE_V1;
  out.set(packed, 1);
  return out;
}

/** A text column's text, whichever form its row has. */
export function unpackText(stored: StoredText): string {
  if (typeof stored === "string") return stored;
  const bytes = stored instanceof Uint8Array ? stored : stored instanceof ArrayBuffer ? new Uint8Array(stored) : Uint8Array.from(stored);
  if (bytes[0] !== FORMAT_DEFLATE_V1) throw new RangeError(`unknown stored entry format ${bytes[0]}`);
  return new TextDecoder().decode(inflateRawSync(bytes.subarray(1), { dictionary: DICTIONARY_V1 }));
}
