// Replays a signed temporal network through version 4's pure functions and the job's pure
// computation, as the service runs them: every user is an operator owning one agent; each rating
// is a receipted report by an unverified, non-anchor operator (rating ≥ 1 success, 0 partial,
// ≤ −1 failure; signals (rating + 10) × 50 on the four signal dimensions); the job runs at each
// UTC midnight over the ratings before it and once at the end; an agent takes up the snapshot in
// force (a `credibility` entry) at its next change, at its alarm (the next moment its score can
// change by time alone) and at the end.

import {
  applyCredibility,
  applyReport,
  credibilityUpdate,
  emptyModel,
  job,
  nextChangeAt,
  operatorContribution,
  operatorScore,
  scoreOf,
  dayOf,
  DAY_MS,
  type AgentModel,
  type CredibilitySource,
  type Outcome,
  type PairState,
  type Recommendation,
} from "../../src/domain/model/index";
import type { Rating } from "./parse";

/** Each agent's next alarm, earliest first (a binary heap; a later setting replaces an earlier one). */
class Alarms {
  private heap: { at: number; agent: number }[] = [];
  private due = new Map<number, number>();
  set(agent: number, at: number): void {
    if (this.due.get(agent) === at) return;
    this.due.set(agent, at);
    this.heap.push({ at, agent });
    for (let i = this.heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (this.less(this.heap[parent], this.heap[i])) break;
      [this.heap[parent], this.heap[i]] = [this.heap[i], this.heap[parent]];
      i = parent;
    }
  }
  peek(): { at: number; agent: number } | undefined {
    while (this.heap.length > 0 && this.due.get(this.heap[0].agent) !== this.heap[0].at) this.remove();
    return this.heap[0];
  }
  pop(): void {
    const top = this.peek();
    if (top) {
      this.due.delete(top.agent);
      this.remove();
    }
  }
  private less(x: { at: number; agent: number }, y: { at: number; agent: number }) {
    return x.at < y.at || (x.at === y.at && x.agent < y.agent);
  }
  private remove(): void {
    const last = this.heap.pop()!;
    if (this.heap.length === 0) return;
    this.heap[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.heap.length && this.less(this.heap[l], this.heap[m])) m = l;
      if (r < this.heap.length && this.less(this.heap[r], this.heap[m])) m = r;
      if (m === i) return;
      [this.heap[m], this.heap[i]] = [this.heap[i], this.heap[m]];
      i = m;
    }
  }
}

export interface Face {
  composite: number;
  s: number;
  recommendation: Recommendation;
}

export interface ReplayResult {
  /** Every user (sorted by id) with its face at the end. */
  users: { id: number; face: Face }[];
  /** Per rating applied (in the order of the file's lines): its line and the ratee's face just before it. */
  before: Map<number, Face>;
  jobRuns: number;
  /** The last snapshot's figures. */
  snapshot: { trusted: number; withCredibility: number; edges: number };
}

export const outcomeOf = (rating: number): Outcome => (rating >= 1 ? "success" : rating === 0 ? "partial" : "failure");
export const signalOf = (rating: number) => (rating + 10) * 50;

interface Agent {
  model: AgentModel;
  pairs: Map<string, PairState>;
}

const NEUTRAL: Face = { composite: 500, s: 500, recommendation: "review" };

export function replayNetwork(
  ratings: readonly Rating[],
  options: { anchor: number; users?: Iterable<number>; /** Sees each user's agent at the end (diagnostics). */ inspect?: (id: number, model: AgentModel | null, at: number) => void },
): ReplayResult {
  const ordered = [...ratings].sort((a, b) => a.time - b.time || a.line - b.line);
  const ids = new Set<number>(options.users ?? []);
  for (const r of ordered) {
    ids.add(r.source);
    ids.add(r.target);
  }
  ids.add(options.anchor);
  const sortedIds = [...ids].sort((a, b) => a - b);
  const index = new Map(sortedIds.map((id, i) => [id, i]));
  const n = sortedIds.length;
  // Agent i is owned by operator i; reporter keys are the operators' indices.
  const owners = Int32Array.from({ length: n }, (_, i) => i);
  const agents: (Agent | null)[] = new Array(n).fill(null);
  const anchorIndex = index.get(options.anchor)!;

  let levels: Uint8Array | null = null;
  let snapshotName: string | null = null;
  let runs = 0;
  let last: job.CredibilitySnapshot | null = null;
  // The job's view of the pairs, kept as the ratings arrive (what the job would read from the shards).
  const pairIds = new Map<string, number>();
  const pairsOf: number[][] = Array.from({ length: n }, () => []);
  let pairReporter = new Int32Array(1024);
  let pairVote = new Int16Array(1024);
  let pairFirstAt = new Float64Array(1024);
  let pairReceiptDay = new Int32Array(1024);
  let pairCount = 0;
  let columns: job.PairColumns | null = null;
  const notePair = (a: number, p: PairState) => {
    const key = `${a}|${p.reporter}`;
    let id = pairIds.get(key);
    if (id === undefined) {
      id = pairCount++;
      pairIds.set(key, id);
      pairsOf[a].push(id);
      if (id === pairReporter.length) {
        const grow = <T extends Int32Array | Int16Array | Float64Array>(x: T, make: (k: number) => T) => {
          const y = make(x.length * 2);
          y.set(x);
          return y;
        };
        pairReporter = grow(pairReporter, (k) => new Int32Array(k));
        pairVote = grow(pairVote, (k) => new Int16Array(k));
        pairFirstAt = grow(pairFirstAt, (k) => new Float64Array(k));
        pairReceiptDay = grow(pairReceiptDay, (k) => new Int32Array(k));
      }
      pairReporter[id] = Number(p.reporter);
    }
    pairVote[id] = p.votes.stability ?? -1;
    pairFirstAt[id] = p.firstAt;
    pairReceiptDay[id] = p.firstReceiptAt === null ? -1 : dayOf(p.firstReceiptAt);
    columns = null;
  };
  const runJob = (day: number) => {
    if (!columns) {
      const c = job.emptyColumns(pairCount);
      let i = 0;
      for (let a = 0; a < n; a++) {
        for (const id of pairsOf[a]) {
          c.agent[i] = a;
          c.reporter[i] = pairReporter[id];
          c.vote[i] = pairVote[id];
          c.firstAt[i] = pairFirstAt[id];
          c.receiptDay[i] = pairReceiptDay[id];
          i++;
        }
      }
      c.length = i;
      columns = c;
    }
    last = job.computeCredibility({ operators: n, owners, anchors: [anchorIndex], shards: [columns], previous: levels, day });
    levels = last.levels;
    snapshotName = `day-${day}`;
    runs++;
  };
  const source = (): CredibilitySource => {
    const current = levels;
    return { credibility: (key) => (current ? current[Number(key)] / 20 : 0), snapshot: snapshotName };
  };
  /** The agent takes up the snapshot in force at `at` (and `reporter`'s value before its first report). */
  const takeUp = (a: number, at: number, reporter?: string): Agent => {
    const agent = agents[a] ?? (agents[a] = { model: emptyModel(at), pairs: new Map() });
    const entry = credibilityUpdate(agent.pairs, source(), String(a), at, reporter);
    if (entry) {
      const r = applyCredibility(agent.model, agent.pairs, entry);
      agent.model = r.model;
      for (const p of r.pairs) agent.pairs.set(p.reporter, p);
    }
    return agent;
  };
  const faceOf = (a: number, at: number): Face => {
    const agent = agents[a];
    if (!agent) return NEUTRAL;
    const operator = operatorScore([operatorContribution(agent.model, at)]);
    const v = scoreOf(agent.model, { now: at, owned: true, identityLevel: 0, operatorScore: operator });
    return { composite: v.composite, s: v.s, recommendation: v.recommendation };
  };

  // Each agent's alarm, at the next moment its score can change by time alone (a window expiring, a
  // tenure ending): the object takes the snapshot in force up then, as the service's does.
  const alarms = new Alarms();
  const schedule = (a: number, at: number) => {
    const next = nextChangeAt(agents[a]!.model, at);
    if (next !== null) alarms.set(a, next);
  };
  /** The jobs at each UTC midnight and the alarms, in time order, up to `until` (exclusive). */
  let jobDay: number | null = null;
  const advance = (until: number) => {
    for (;;) {
      const midnight = jobDay === null ? Infinity : (jobDay + 1) * DAY_MS;
      const alarm = alarms.peek();
      const next = Math.min(midnight, alarm?.at ?? Infinity);
      if (!(next < until) && !(midnight <= until && midnight === next)) return;
      if (alarm && alarm.at < midnight) {
        alarms.pop();
        takeUp(alarm.agent, alarm.at);
        schedule(alarm.agent, alarm.at);
      } else {
        jobDay!++;
        runJob(jobDay!);
      }
    }
  };

  const before = new Map<number, Face>();
  for (const r of ordered) {
    const at = r.time * 1000;
    // The job at each UTC midnight after the first rating, up to this rating's day.
    if (jobDay === null) jobDay = dayOf(at);
    advance(at);
    const a = index.get(r.target)!;
    const reporter = String(index.get(r.source)!);
    const agent = takeUp(a, at, reporter);
    before.set(r.line, faceOf(a, at));
    const signal = signalOf(r.rating);
    const applied = applyReport(
      agent.model,
      agent.pairs.get(reporter) ?? null,
      { reporter, at, outcome: outcomeOf(r.rating), signals: { reliability: signal, quality: signal, financial: signal, security: signal }, receipt: true },
      String(a),
    );
    agent.model = applied.model;
    agent.pairs.set(reporter, applied.pair);
    notePair(a, applied.pair);
    schedule(a, at);
  }
  const end = ordered.length > 0 ? ordered[ordered.length - 1].time * 1000 : 0;
  if (ordered.length > 0) {
    advance(end);
    runJob(dayOf(end));
  }
  const users = sortedIds.map((id, a) => {
    if (!agents[a]) {
      options.inspect?.(id, null, end);
      return { id, face: NEUTRAL };
    }
    takeUp(a, end);
    options.inspect?.(id, agents[a]!.model, end);
    return { id, face: faceOf(a, end) };
  });
  const snap = last as job.CredibilitySnapshot | null;
  return {
    users,
    before,
    jobRuns: runs,
    snapshot: snap
      ? { trusted: snap.stats.trusted, withCredibility: snap.levels.reduce((x, l) => x + (l > 0 ? 1 : 0), 0), edges: snap.stats.edges }
      : { trusted: 0, withCredibility: 0, edges: 0 },
  };
}

export { DAY_MS };
