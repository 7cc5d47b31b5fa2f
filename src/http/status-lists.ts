import type { Context } from "hono";
import { highestStatusList, setStatusEntry, statusEntryOf } from "../db/directory";
import type { AgentRef } from "../domain/agent";
import { refusalError } from "../domain/errors";
import { statusListUri, type StatusPointer } from "../domain/status-list";
import type { AgentFacts } from "../domain/status-list";
import { agentOf } from "./agents";
import type { Env } from "../env";
import type { AppEnv } from "./context";

// Where agents are in the status lists: a place is drawn once, when the agent is first listed (at
// registration, or on its first attestation or credential, or by the admin backfill), and kept in
// the control database's directory; it never changes, so each isolate keeps the ones it read.

/** Isolates look up the list that takes new agents again after this long. */
const OPEN_LIST_TTL_MS = 60_000;
const MAX_PLACES = 20_000;
/** A list fills while its object is asked: a few lists ahead at most before giving up. */
const MAX_LIST_TRIES = 3;

export interface StatusPlace {
  list: number;
  idx: number;
}

let open: { list: number; at: number } | undefined;
const places = new Map<string, StatusPlace>();

export const statusListObject = (env: Env, list: number) => env.STATUS_LIST.getByName(`list:${list}`);

/** The status list member of an attestation or credential: the agent's index and its list's URI. */
export const statusPointer = (origin: string, place: StatusPlace): StatusPointer => ({ idx: place.idx, uri: statusListUri(origin, place.list) });

/**
 * An index for the agent in the list that takes new agents (the next one when it is full), with the
 * agent's facts as of now; null when the lists cannot be reached: the agent is listed later then
 * (its first attestation or credential, or the backfill), and registration goes on.
 */
export async function listAgent(c: Context<AppEnv>, sid: string, facts: AgentFacts): Promise<StatusPlace | null> {
  try {
    let list = open && Date.now() - open.at < OPEN_LIST_TTL_MS ? open.list : await highestStatusList(c.env.DB.withSession("first-primary"));
    for (let tries = 0; tries < MAX_LIST_TRIES; tries++, list++) {
      const out = await statusListObject(c.env, list).assign(sid, facts);
      open = { list, at: Date.now() };
      if (out.ok) return { list, idx: out.idx };
    }
    throw new Error("every list tried is full");
  } catch (err) {
    console.error(
      JSON.stringify({ level: "error", message: "agent not listed; it will be at its first read", sid, error: String(err), request_id: c.get("requestId") }),
    );
    return null;
  }
}

/** What the agent's object says it is now, and where its events stand. */
export async function currentFacts(c: Context<AppEnv>, ref: AgentRef): Promise<AgentFacts> {
  const out = await agentOf(c, ref).statusFacts(ref, c.get("deps").now());
  if (!out.ok) throw refusalError(out.refusal);
  const { status, recommendation, epoch, n } = out.result;
  return { status, recommendation, version: { at: c.get("deps").now(), epoch, n } };
}

/**
 * The agent's place in the status lists, listing it now (as its object says it is) if it has none;
 * null when it has none and the lists cannot be reached.
 */
export async function statusPlaceOf(c: Context<AppEnv>, ref: AgentRef): Promise<StatusPlace | null> {
  const sid = ref.sid;
  const known = places.get(sid);
  if (known) return known;
  const primary = c.env.DB.withSession("first-primary");
  let place = await statusEntryOf(primary, sid);
  if (!place) {
    const listed = await listAgent(c, sid, await currentFacts(c, ref));
    if (!listed) return null;
    // Listed concurrently elsewhere: the place the directory kept is the agent's.
    place = (await setStatusEntry(primary, sid, listed.list, listed.idx)) ? listed : await statusEntryOf(primary, sid);
    if (!place) return null;
  }
  if (places.size >= MAX_PLACES) places.delete(places.keys().next().value!);
  places.set(sid, place);
  return place;
}
