import { statusEntriesOf } from "../db/directory";
import type { AgentEvent } from "../domain/events";
import { eventVersion } from "../domain/status-list";
import type { StatusFact } from "../durable/status-list";
import type { Env } from "../env";

// The status lists follow agents' events: score.changed carries every change of recommendation,
// agent.status_changed every change of status. Each fact goes to the object of the agent's list
// with its version, so a repeated or late event never overwrites a newer value.

/** The fact an event tells about a listed agent, or null when it tells none. */
function factOf(event: AgentEvent): Omit<StatusFact, "idx"> | null {
  const version = eventVersion(event);
  if (!version) return null;
  if (event.type === "score.changed" && typeof event.data.recommendation === "string") {
    return { sid: event.sid, kind: "recommendation", value: event.data.recommendation, version };
  }
  if (event.type === "agent.status_changed" && typeof event.data.status === "string") {
    return { sid: event.sid, kind: "status", value: event.data.status, version };
  }
  return null;
}

/**
 * Hands the facts of these events to their lists' objects. An agent not listed yet is skipped: it is
 * listed with what its row says then, which includes every change announced before.
 */
export async function feedStatusLists(events: AgentEvent[], env: Env): Promise<void> {
  const facts = events.map(factOf).filter((f) => f !== null);
  if (facts.length === 0) return;
  const places = await statusEntriesOf(env.DB.withSession("first-primary"), [...new Set(facts.map((f) => f.sid))]);
  const byList = new Map<number, StatusFact[]>();
  for (const fact of facts) {
    const place = places.get(fact.sid);
    if (!place) continue;
    byList.set(place.list, [...(byList.get(place.list) ?? []), { ...fact, idx: place.idx }]);
  }
  await Promise.all([...byList].map(([list, listed]) => env.STATUS_LIST.getByName(`list:${list}`).apply(listed)));
}
