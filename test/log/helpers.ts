// Leaves and reads of the log for the tests: leaves named with the test's LOG_KEY, the sequencer
// of a log, and its tiles and checkpoint as R2 holds them.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { LogSequencer as LogSequencerUnderTest } from "../log-sequencer-under-test";
import { agentTag, entryCommit, entryTag, epochKey, logKey, toHex, utf8, sha256, type LegacyLeaf, type TaggedLeaf } from "../../src/domain/log";
import { parseLogSigningKeys, verifierKeys } from "../../src/domain/log/keys";
import { sequencerName } from "../../src/durable/log-sequencer";
import { logOrigin } from "../../src/env";
import { tilePath, type TileSource } from "../../src/domain/log/tiles";

let sidCounter = 0;
export const freshSid = () => `SID-0x${(0x7000_0000_0000 + ++sidCounter).toString(16).padStart(16, "0")}`;

export const entryHash = async (text: string) => toHex(await sha256(utf8(text)));

/** The leaf of entry `seq` of agent `sid` (tagged under its key of `epoch`), its entry named by `entry`, as the outbox sends it. */
export async function leafOf(sid: string, seq: number, entry = `entry ${seq}`, epoch = 0): Promise<{ sid: string; n: number; epoch: number; leaf: TaggedLeaf }> {
  const key = (await logKey(env.LOG_KEY))!;
  const tag = await entryTag(await epochKey(key, sid, epoch), seq);
  return { sid, n: seq, epoch, leaf: { tag, commit: await entryCommit(seq, await entryHash(`${sid} ${entry}`), 500, "00".repeat(16)) } };
}

/** A leaf of the format before the cut-over (the agent's constant tag, a clear seq), as messages sent then carry it. */
export async function legacyLeafOf(sid: string, seq: number, entry = `entry ${seq}`): Promise<{ sid: string; leaf: LegacyLeaf }> {
  const key = (await logKey(env.LOG_KEY))!;
  return { sid, leaf: { agent: await agentTag(key, sid), seq, entry_hash: await entryHash(`${sid} ${entry}`), score_commit: await entryHash(`score ${seq}`) } };
}

/** The sequencer's private name for an agent (its marks and status are keyed by it). */
/** A call's leaves in the order the sequencer puts them in the tree: agents as the call first names them, each agent's by entry number. */
export function inSequencerOrder<L extends { sid: string; n: number }>(leaves: readonly L[]): L[] {
  const firstSeen = new Map<string, number>();
  for (const [i, l] of leaves.entries()) if (!firstSeen.has(l.sid)) firstSeen.set(l.sid, i);
  return [...leaves].sort((x, y) => firstSeen.get(x.sid)! - firstSeen.get(y.sid)! || x.n - y.n);
}

export const markOf = async (sid: string) => agentTag((await logKey(env.LOG_KEY))!, sid);

/**
 * The instant the sequencers' clocks stand at: far ahead, so an alarm they set never fires by
 * itself during a test; tests run it with runDurableObjectAlarm.
 */
export const T_LOG = Date.parse("2100-01-01T10:20:30Z");

/** Log n's sequencer, its clock frozen at `at`. */
export async function sequencer(n: number, at = T_LOG) {
  const stub = env.LOG_SEQUENCER.getByName(sequencerName(n));
  await runInDurableObject(stub, (instance) => void ((instance as LogSequencerUnderTest).clock = () => at));
  return stub;
}

/** Log n's tiles straight from R2. */
export const bucketTiles = (n: number): TileSource => async (tile) => {
  const object = await env.LOG_BUCKET.get(`log/${n}/${tilePath(tile)}`);
  if (!object) throw new Error(`no ${tilePath(tile)} in R2`);
  return new Uint8Array(await object.arrayBuffer());
};

export const checkpointOf = async (n: number) => (await env.LOG_BUCKET.get(`log/${n}/checkpoint`))?.text() ?? null;

/** The verifier keys of log n, as GET /log/keys publishes them. */
export async function verifiersOf(n: number): Promise<string[]> {
  const keys = await parseLogSigningKeys(env.LOG_SIGNING_KEYS);
  if (!keys.ok) throw new Error(keys.problem);
  return verifierKeys(keys.keys, logOrigin(env, n));
}

/** Runs `work` with console.error captured: the lines it logged, parsed. */
export async function loggedErrors<T>(work: () => Promise<T>): Promise<{ result: T; errors: Record<string, unknown>[] }> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (line: string) => void lines.push(line);
  try {
    const result = await work();
    return { result, errors: lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
  } finally {
    console.error = original;
  }
}
