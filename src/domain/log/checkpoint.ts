// C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint): a signed note whose text is the log's
// origin, the tree size in decimal and the base64 root hash, one per line.

import { fromBase64, toBase64 } from "./bytes";
import { HASH_SIZE } from "./merkle";
import { openNote, parseVerifierKey, signNote, type NoteSigner, type NoteVerifier } from "./note";

export interface Checkpoint {
  origin: string;
  size: number;
  root: Uint8Array;
}

export const checkpointText = ({ origin, size, root }: Checkpoint): string => `${origin}\n${size}\n${toBase64(root)}\n`;

/** A checkpoint's text read back, or why it is not one (extension lines are allowed and ignored). */
export function parseCheckpointText(text: string): { ok: true; checkpoint: Checkpoint } | { ok: false; reason: string } {
  const lines = text.split("\n");
  if (lines.length < 4 || lines[lines.length - 1] !== "") return { ok: false, reason: "a checkpoint has an origin, a size and a root hash, each on its line" };
  const [origin, size, root] = lines;
  if (origin === "") return { ok: false, reason: "the checkpoint's origin is empty" };
  if (!/^(?:0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size)))
    return { ok: false, reason: "the checkpoint's tree size is not a decimal number" };
  const hash = fromBase64(root);
  if (!hash || hash.length !== HASH_SIZE) return { ok: false, reason: "the checkpoint's root hash is not 32 bytes of base64" };
  if (lines.slice(3, -1).some((l) => l === "")) return { ok: false, reason: "a checkpoint's extension lines are not empty" };
  return { ok: true, checkpoint: { origin, size: Number(size), root: hash } };
}

export const signCheckpoint = (checkpoint: Checkpoint, signers: NoteSigner[]) => signNote(checkpointText(checkpoint), signers);

/** A checkpoint could not be trusted: bad signature, malformed, or another log's. */
export class CheckpointError extends Error {}

/**
 * The checkpoint of a signed note, verified: signed by one of `verifiers` (NoteVerifiers or
 * verifier key strings, `<name>+<hex key ID>+<base64 key>`; a bad signature by a
 * known key refuses it) and, when `origin` is given, that log's. Throws CheckpointError otherwise.
 */
export async function verifyCheckpoint(note: string, verifiers: (NoteVerifier | string)[], origin?: string): Promise<Checkpoint> {
  const known: NoteVerifier[] = [];
  for (const v of verifiers) {
    const parsed = typeof v === "string" ? await parseVerifierKey(v) : v;
    if (!parsed) throw new CheckpointError(`not a verifier key: ${String(v)}`);
    known.push(parsed);
  }
  const opened = await openNote(note, known);
  if (!opened.ok) throw new CheckpointError(opened.reason);
  const parsed = parseCheckpointText(opened.text);
  if (!parsed.ok) throw new CheckpointError(parsed.reason);
  if (origin !== undefined && parsed.checkpoint.origin !== origin) {
    throw new CheckpointError(`the checkpoint is of ${parsed.checkpoint.origin}, not ${origin}`);
  }
  return parsed.checkpoint;
}
