// Replays of an agent's history: the chain of entries folded through the scoring model, from the
// registration or from the latest retention snapshot, with each operator numbered as the agent
// numbers it; and the snapshot itself, a pure function of the entries it sums up.

import type { Entry, EntryBodies } from "./entries";
import { MODEL, rekeyState, withoutReporter, type AgentState } from "./model";
import { replayEvidence, type HistoryItem, type HistorySnapshot } from "./scoring";

/**
 * The evidence that replaying the history gives, with `ownerId` as the owner (after a claim: the new
 * one, which re-weights the claimer's earlier reports), and the report times within the damping
 * window of `now`, per reporter, for the next report's k. `start`: the retention snapshot the
 * history goes on from (its report times count too).
 */
export function replayHistory(history: HistoryItem[], ownerId: number | null, createdAt: number, now: number, version: 2 | 3 = 3, start?: HistorySnapshot) {
  const recent = new Map<number, number[]>();
  const add = (reporter: number, at: number) => {
    if (at > now - MODEL.dampingWindowMs) recent.set(reporter, [...(recent.get(reporter) ?? []), at]);
  };
  for (const [reporter, times] of start?.recent ?? []) for (const at of times) add(reporter, at);
  for (const h of history) if (h.kind === "report") add(h.reporter, h.at);
  return { evidence: replayEvidence(version, history, ownerId, createdAt, start), recent };
}

/**
 * Who an entry names, as a replay keys operators: an operator id (the service) or a commitment (a
 * verifier); for a retention snapshot, the service's operator ids with their numbers on the agent
 * (null: a verifier, which goes by the snapshot's commitments).
 */
export type EntryWho = string | number | null | Record<string, number>;

type Chained = { entry: Entry; who: EntryWho };
type SnapshotChained = { entry: Entry & { kind: "snapshot" }; who: EntryWho };

/** The snapshot entry of highest number among these (they need not be in order). */
function latestSnapshot(entries: readonly Chained[]): SnapshotChained | undefined {
  let latest: SnapshotChained | undefined;
  for (const e of entries) if (e.entry.kind === "snapshot" && e.entry.n > (latest?.entry.n ?? 0)) latest = e as SnapshotChained;
  return latest;
}

/**
 * What the model replays of a chain of entries: its reports (those withdrawn later left out) and
 * configuration changes in order, with each operator it names numbered in order of first mention
 * (`who` names the operator of an entry: the service passes operator ids, a verifier commitments),
 * and the owner's number at the end of the chain. From the latest retention snapshot on, when the
 * entries hold one. `later`: entries after these whose claims and withdrawals count, not their
 * other contents (a snapshot sums up the chain up to its cut as it stood when it was taken).
 */
export function historyOfEntries(entries: readonly Chained[], later: readonly Chained[] = []): {
  items: HistoryItem[];
  locals: Map<string, number>;
  owner: number | null;
  /** The numbers by commitment of every operator the entries name. */
  commitments: Map<string, number>;
  /** The latest retention snapshot, where the fold starts (the entries it covers are left out). */
  start?: HistorySnapshot;
} {
  const locals = new Map<string, number>();
  // Credibility and inheritance entries name reporters by commitment only, possibly before their
  // first report: such a reporter is numbered there (new ones in commitment order, as the object
  // numbers them) and its later entries find the number by their commitment.
  const byCommitment = new Map<string, number>();
  let count = 0;
  const number = (who: string | number, commitment: string | null) => {
    const key = String(who);
    let local = locals.get(key) ?? (commitment === null ? undefined : byCommitment.get(commitment));
    if (local === undefined) local = ++count;
    locals.set(key, local);
    if (commitment !== null) byCommitment.set(commitment, local);
    return local;
  };
  const named = (commitment: string) => {
    let local = byCommitment.get(commitment);
    if (local === undefined) byCommitment.set(commitment, (local = ++count));
    return local;
  };
  const byLocal = <T>(values: Record<string, T>): Record<string, T> => {
    const out: Record<string, T> = {};
    for (const commitment of Object.keys(values).sort()) out[String(named(commitment))] = values[commitment];
    return out;
  };
  let owner: number | null = null;
  const snapshot = latestSnapshot(entries);
  let start: HistorySnapshot | undefined;
  if (snapshot) {
    // The numbering goes on from the snapshot's, the fold from its state.
    const body = snapshot.entry;
    for (const [commitment, local] of Object.entries(body.locals)) {
      byCommitment.set(commitment, local);
      count = Math.max(count, local);
    }
    const who = snapshot.who;
    for (const [key, local] of Object.entries(who !== null && typeof who === "object" ? who : body.locals)) locals.set(key, local);
    const localOf = (commitment: string) => {
      const local = byCommitment.get(commitment);
      if (local === undefined) throw new Error(`snapshot ${body.n} names a reporter it does not number`);
      return local;
    };
    owner = body.owner === null ? null : localOf(body.owner);
    start = {
      state: rekeyState(body.state, (commitment) => String(localOf(commitment))),
      recent: new Map(Object.entries(body.recent).map(([commitment, times]) => [localOf(commitment), times])),
      owner,
    };
  }
  const through = snapshot?.entry.through ?? 0;
  const withdrawn = new Set([...entries, ...later].flatMap(({ entry }) => (entry.kind === "withdrawal" ? [entry.of] : [])));
  const items: HistoryItem[] = [];
  // Whether the owner changed after the snapshot entry was appended (the snapshot was folded with the owner then).
  let claimedAfter = false;
  const ownerFrom = (entry: Entry & { kind: "registration" | "claim" }, who: string | number | null) => {
    owner = who === null ? null : number(who, entry.owner);
    if (snapshot && entry.n > snapshot.entry.n) claimedAfter = true;
  };
  for (const { entry, who: named } of entries) {
    if (entry.n <= through || entry.kind === "snapshot") continue;
    const who = named as string | number | null;
    const at = Date.parse(entry.at);
    if (entry.kind === "registration" || entry.kind === "claim") {
      ownerFrom(entry, who);
    } else if (entry.kind === "report") {
      const reporter = number(who!, entry.reporter);
      if (withdrawn.has(entry.n)) continue;
      items.push({ kind: "report", id: entry.n, reporter, at, outcome: entry.outcome, signals: entry.signals, base: entry.base, evidenceFactor: entry.evidence, penalty: entry.penalty });
    } else if (entry.kind === "config" && entry.changes.length > 0) {
      items.push({ kind: "config", at, changes: entry.changes });
    } else if (entry.kind === "credibility") {
      items.push({ kind: "credibility", at, values: byLocal(entry.values), bootstrap: entry.bootstrap ?? false, ...(entry.snapshot === undefined ? {} : { snapshot: entry.snapshot }) });
    } else if (entry.kind === "inheritance") {
      items.push({ kind: "inheritance", input: { at, reporters: byLocal(entry.reporters), caution: entry.caution } });
    } else if (entry.kind === "model" && entry.version === 3) {
      items.push({ kind: "switch", at });
    }
  }
  for (const { entry, who } of later) if (entry.kind === "registration" || entry.kind === "claim") ownerFrom(entry, who as string | number | null);
  // A claim after the snapshot was taken: the new owner's evidence from before the cut was weighed
  // as another reporter's, and its reports are no longer there to weigh as the owner's: it is dropped.
  if (start && claimedAfter && owner !== null && owner !== start.owner) start = { ...start, state: withoutReporter(start.state, String(owner)) };
  return { items, locals, owner, commitments: byCommitment, start };
}

/** The model a chain is served by: 3 from its model-switch entry, or when it was created under version 3 (`born`). */
export const chainModel = (entries: readonly { entry: Entry }[], born: 2 | 3): 2 | 3 =>
  born === 3 || entries.some(({ entry }) => (entry.kind === "model" && entry.version === 3) || entry.kind === "snapshot") ? 3 : 2;

/** The replay of a chain of entries under `version`, with each operator's number on the agent. */
export function replayOf(entries: readonly { entry: Entry; who: EntryWho }[], createdAt: number, now: number, version: 2 | 3 = 3) {
  const history = historyOfEntries(entries);
  const replayed = replayHistory(history.items, history.owner, createdAt, now, version, history.start);
  return { ...replayed, locals: Object.fromEntries(history.locals) as Record<string, number> };
}

/**
 * The retention snapshot of a chain cut after entry `through`, at `cut` (entries before it leave for
 * the archive). `chain`: the entries before the snapshot entry, from at least the latest earlier
 * snapshot on. The state is the fold of the entries up to `through`, from the latest earlier
 * snapshot, with the withdrawals and the owner the whole chain has when the snapshot is taken (the
 * live state already left those reports out and weighed that owner's). Reporters are named by
 * commitment, with each commitment's number on the agent, the report times within the damping window
 * before the cut, and the owner. A pure function of the chain: a verifier holding it computes the
 * same body. `operators`: the numbers by the entries' `who` (the service's operator ids), which the
 * service keeps beside the entry.
 */
export function snapshotOf(chain: readonly Chained[], createdAt: number, cut: number, through: number): { body: EntryBodies["snapshot"]; operators: Record<string, number> } {
  const latest = latestSnapshot(chain);
  const covered = chain.filter((e) => e.entry.n <= through || e === latest);
  const later = chain.filter((e) => e.entry.n > through && e !== latest);
  const history = historyOfEntries(covered, later);
  const replayed = replayHistory(history.items, history.owner, createdAt, cut, 3, history.start);
  const commitmentOf = new Map([...history.commitments].map(([commitment, local]) => [String(local), commitment]));
  const commitment = (local: string) => {
    const c = commitmentOf.get(local);
    if (c === undefined) throw new Error(`reporter ${local} has no commitment in the chain`);
    return c;
  };
  const recent: Record<string, number[]> = {};
  for (const [local, times] of [...replayed.recent].sort(([a], [b]) => a - b)) recent[commitment(String(local))] = times;
  return {
    body: {
      through,
      cut,
      state: rekeyState(replayed.evidence as AgentState, commitment),
      locals: Object.fromEntries([...history.commitments].sort(([, a], [, b]) => a - b)),
      recent,
      owner: history.owner === null ? null : commitment(String(history.owner)),
    },
    operators: Object.fromEntries(history.locals),
  };
}
