// Replays of an agent's history: the chain of entries folded through the scoring model (version 4)
// from the registration, or from the latest retention snapshot, reporters keyed by their commitment
// (the entries' own names for them); and the snapshot itself, a pure function of the entries it sums
// up. The service and a verifier holding the entries compute the same aggregates and pairs.

import type { Entry, EntryBodies } from "./entries";
import { applyEvent, emptyAgent, type AgentState, type HistoryEvent } from "./model";

/**
 * Who an entry names: the service's operator id, kept beside the entry (null for a verifier); for a
 * retention snapshot or an inheritance, each of its pairs' operators by key.
 */
export type EntryWho = number | null | Record<string, number>;

type Chained = { entry: Entry; who: EntryWho };

/** The snapshot entry of highest number among these (they need not be in order). */
function latestSnapshot(entries: readonly Chained[]): (Entry & { kind: "snapshot" }) | undefined {
  let latest: (Entry & { kind: "snapshot" }) | undefined;
  // A snapshot version 3 took (its `state`) is another model's: the fold starts before it.
  for (const { entry } of entries) if (entry.kind === "snapshot" && "model" in entry && entry.n > (latest?.n ?? 0)) latest = entry;
  return latest;
}

/** A replay: the aggregates and pairs, the owner's key at the end, and each key's operator (where the service named it). */
export interface Replayed {
  state: AgentState;
  owner: string | null;
  operators: Map<string, number>;
}

/**
 * Folds a chain: reports (those withdrawn, now or in `later`, left out), configuration changes,
 * credibility and inheritance entries in order, every report weighed with the owner the chain has at
 * its end (a claim re-weighs the claimer's reports as the owner's). Credibility and inheritance
 * entries an earlier model wrote (version 3's carry its bootstrap latch, and inherited reporters
 * without a credibility level) are left out: their values were another model's.
 */
export function replayOf(entries: readonly Chained[], createdAt: number, later: readonly Chained[] = []): Replayed {
  const operators = new Map<string, number>();
  const name = (key: string, who: EntryWho) => {
    if (typeof who === "number") operators.set(key, who);
  };
  const snapshot = latestSnapshot(entries);
  // The owner at the chain's end: its last registration or claim, else (they left for the archive) the snapshot's.
  let owner: string | null = snapshot?.owner ?? null;
  for (const { entry, who } of [...entries, ...later]) {
    if (entry.kind === "registration" || entry.kind === "claim") {
      owner = entry.owner;
      if (owner !== null) name(owner, who);
    }
  }
  const state = snapshot ? stateOfSnapshot(snapshot) : emptyAgent(createdAt);
  const snapshotWho = entries.find((e) => e.entry === snapshot)?.who;
  if (snapshotWho !== null && typeof snapshotWho === "object") for (const [key, op] of Object.entries(snapshotWho)) operators.set(key, op);
  const through = snapshot?.through ?? 0;
  const withdrawn = new Set([...entries, ...later].flatMap(({ entry }) => (entry.kind === "withdrawal" ? [entry.of] : [])));
  for (const { entry, who } of entries) {
    if (entry.n <= through) continue;
    if (who !== null && typeof who === "object") for (const [key, op] of Object.entries(who)) operators.set(key, op);
    const event = eventOf(entry, withdrawn);
    if (!event) continue;
    if (event.kind === "report") name(event.reporter, who);
    applyEvent(state, event, owner);
  }
  return { state, owner, operators };
}

function eventOf(entry: Entry, withdrawn: ReadonlySet<number>): HistoryEvent | null {
  const at = Date.parse(entry.at);
  switch (entry.kind) {
    case "report":
      return withdrawn.has(entry.n)
        ? null
        : { kind: "report", reporter: entry.reporter, at, outcome: entry.outcome, signals: entry.signals, receipt: entry.receipt };
    case "config":
      return entry.changes.length > 0 ? { kind: "config", at, changes: entry.changes } : null;
    case "credibility":
      return "bootstrap" in entry
        ? null
        : { kind: "credibility", at, values: entry.values, ...(entry.snapshot === undefined ? {} : { snapshot: entry.snapshot }) };
    case "inheritance":
      return Object.values(entry.reporters).some((r) => !("level" in r))
        ? null
        : { kind: "inheritance", at, reporters: entry.reporters, caution: entry.caution };
    default:
      return null;
  }
}

function stateOfSnapshot(body: EntryBodies["snapshot"]): AgentState {
  return {
    model: structuredClone(body.model),
    pairs: new Map(Object.entries(body.pairs).map(([reporter, p]) => [reporter, { ...structuredClone(p), reporter }])),
  };
}

/**
 * The retention snapshot of a chain cut after entry `through`, at `cut`: the fold of the entries up
 * to `through` (from the latest earlier snapshot), with the withdrawals and the owner the whole chain
 * has when it is taken. `chain`: the entries before the snapshot entry, from at least the latest
 * earlier snapshot on. A pure function of the chain: a verifier holding it computes the same body.
 */
export function snapshotOf(chain: readonly Chained[], createdAt: number, cut: number, through: number): EntryBodies["snapshot"] {
  const covered = chain.filter((e) => e.entry.n <= through || (e.entry.kind === "snapshot" && e.entry.n === latestSnapshot(chain)?.n));
  const later = chain.filter((e) => !covered.includes(e));
  const { state, owner } = replayOf(covered, createdAt, later);
  const pairs: EntryBodies["snapshot"]["pairs"] = {};
  for (const key of [...state.pairs.keys()].sort()) {
    const { reporter: _key, ...pair } = state.pairs.get(key)!;
    pairs[key] = pair;
  }
  return { through, cut, model: state.model, pairs, owner };
}
