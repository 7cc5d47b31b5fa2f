// C2SP signed notes (https://c2sp.org/signed-note), the format of Go's golang.org/x/mod/sumdb/note:
// a text ending in a newline, a blank line, then lines `— <key name> <base64(key ID || signature)>`.
// Only Ed25519 (signature type 0x01) is used here. Key ID = SHA-256(name || "\n" || 0x01 || public
// key)[:4]; a verifier key is written `<name>+<hex key ID>+<base64(0x01 || public key)>`.

import { concat, fromBase64, toBase64, utf8, sha256, type Bytes } from "./bytes";

export const ED25519 = 0x01;
const SIGNATURE_PREFIX = "— ";
const MAX_SIGNATURES = 100;

/** Key names: non-empty, no Unicode space, no plus sign. */
export const isKeyName = (name: string) => name !== "" && !/[\s+]/u.test(name);

export async function keyId(name: string, publicKey: Uint8Array): Promise<number> {
  const digest = await sha256(utf8(`${name}\n`), Uint8Array.of(ED25519), publicKey);
  return new DataView(digest.buffer).getUint32(0);
}

const hex8 = (id: number) => id.toString(16).padStart(8, "0");

/** A note verifier: who signs, under which name, with which key. */
export interface NoteVerifier {
  name: string;
  keyId: number;
  publicKey: Bytes;
}

/** The verifier key string of an Ed25519 key, as Go's note.NewVerifier reads it. */
export async function verifierKey(name: string, publicKey: Uint8Array): Promise<string> {
  if (!isKeyName(name)) throw new RangeError(`invalid key name ${JSON.stringify(name)}`);
  return `${name}+${hex8(await keyId(name, publicKey))}+${toBase64(concat(Uint8Array.of(ED25519), publicKey))}`;
}

/** A verifier key string read back, or null unless it is a well-formed Ed25519 key whose ID matches. */
export async function parseVerifierKey(text: string): Promise<NoteVerifier | null> {
  const m = /^([^+]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/=]+)$/.exec(text);
  if (!m || !isKeyName(m[1])) return null;
  const key = fromBase64(m[3]);
  if (!key || key.length !== 33 || key[0] !== ED25519) return null;
  const publicKey = key.slice(1);
  const id = await keyId(m[1], publicKey);
  return hex8(id) === m[2] ? { name: m[1], keyId: id, publicKey } : null;
}

/** Signs note texts under a key name. */
export interface NoteSigner {
  name: string;
  keyId: number;
  sign(message: Bytes): Promise<Bytes>;
}

/** The signed note: the text, a blank line, one signature line per signer. */
export async function signNote(text: string, signers: NoteSigner[]): Promise<string> {
  if (!text.endsWith("\n")) throw new RangeError("a note's text ends with a newline");
  const message = utf8(text);
  const lines = await Promise.all(
    signers.map(async (s) => {
      const id = new Uint8Array(4);
      new DataView(id.buffer).setUint32(0, s.keyId);
      return `${SIGNATURE_PREFIX}${s.name} ${toBase64(concat(id, await s.sign(message)))}\n`;
    }),
  );
  return `${text}\n${lines.join("")}`;
}

export type OpenedNote = { ok: true; text: string; signedBy: string[] } | { ok: false; reason: string };

/**
 * The text of a note signed by at least one known key, as Go's note.Open decides it: a malformed
 * note or a bad signature by a known key is refused; signatures by unknown keys are ignored.
 */
export async function openNote(note: string, known: NoteVerifier[]): Promise<OpenedNote> {
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note)) return { ok: false, reason: "malformed note: a control character" };
  const split = note.lastIndexOf("\n\n");
  if (split < 0) return { ok: false, reason: "malformed note: no blank line before the signatures" };
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block === "" || !block.endsWith("\n")) return { ok: false, reason: "malformed note: no signature lines" };
  const lines = block.slice(0, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) return { ok: false, reason: "malformed note: too many signatures" };
  const signedBy: string[] = [];
  for (const line of lines) {
    if (!line.startsWith(SIGNATURE_PREFIX)) return { ok: false, reason: "malformed note: a signature line must start with an em dash" };
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.indexOf(" ");
    const name = space < 0 ? rest : rest.slice(0, space);
    const signature = space < 0 ? null : fromBase64(rest.slice(space + 1));
    if (!isKeyName(name) || !signature || signature.length < 5) return { ok: false, reason: "malformed note: a bad signature line" };
    const id = new DataView(signature.buffer).getUint32(0);
    const verifier = known.find((k) => k.name === name && k.keyId === id);
    if (!verifier) continue;
    const key = await crypto.subtle.importKey("raw", verifier.publicKey, { name: "Ed25519" }, false, ["verify"]);
    if (!(await crypto.subtle.verify({ name: "Ed25519" }, key, signature.slice(4), utf8(text)))) {
      return { ok: false, reason: `invalid signature for key ${name}+${hex8(id)}` };
    }
    if (!signedBy.includes(name)) signedBy.push(name);
  }
  if (signedBy.length === 0) return { ok: false, reason: "no signature by a known key" };
  return { ok: true, text, signedBy };
}
