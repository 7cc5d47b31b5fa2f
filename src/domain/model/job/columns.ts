// The cross-agent job's input: pair aggregates as columns (typed arrays), so that ten million pairs
// fit in a few hundred megabytes in Node or in a Worker. Operators (reporters and owners alike) and
// agents are dense indices; the caller maps its ids to them.

/** Pairs of one shard (or of the whole service), grouped by agent: one element per (agent, reporter) pair. */
export interface PairColumns {
  length: number;
  agent: Int32Array;
  reporter: Int32Array;
  /** The pair's stability vote (0..1000), −1 when it has none. */
  vote: Int16Array;
  /** The pair's first report (ms): the order of the first voters on an agent. */
  firstAt: Float64Array;
  /** The UTC day of the pair's first receipted report, −1 when it has none. */
  receiptDay: Int32Array;
}

export interface JobInput {
  /** Operators are 0..operators−1. */
  operators: number;
  /** Agent index → its owner's operator index (−1: unclaimed). */
  owners: Int32Array;
  /** The anchors (operator indices): the admins' list. */
  anchors: readonly number[];
  /** One element per shard; every agent's pairs are on one shard, contiguous. */
  shards: readonly PairColumns[];
  /** The previous snapshot's credibility levels per operator (c × 20), or null at genesis. */
  previous: Uint8Array | null;
  /** The UTC day of the run. */
  day: number;
}

export function emptyColumns(capacity: number): PairColumns {
  return {
    length: 0,
    agent: new Int32Array(capacity),
    reporter: new Int32Array(capacity),
    vote: new Int16Array(capacity),
    firstAt: new Float64Array(capacity),
    receiptDay: new Int32Array(capacity),
  };
}

/** Appends one pair (the columns grow by doubling). */
export function pushPair(c: PairColumns, agent: number, reporter: number, vote: number, firstAt: number, receiptDay: number): PairColumns {
  let out = c;
  if (c.length === c.agent.length) {
    const grown = emptyColumns(Math.max(16, c.agent.length * 2));
    grown.agent.set(c.agent);
    grown.reporter.set(c.reporter);
    grown.vote.set(c.vote);
    grown.firstAt.set(c.firstAt);
    grown.receiptDay.set(c.receiptDay);
    grown.length = c.length;
    out = grown;
  }
  const i = out.length++;
  out.agent[i] = agent;
  out.reporter[i] = reporter;
  out.vote[i] = vote;
  out.firstAt[i] = firstAt;
  out.receiptDay[i] = receiptDay;
  return out;
}

/** The start of each agent's run of pairs (agents contiguous), and the run's end. */
export function agentRuns(c: PairColumns): { starts: number[] } {
  const starts: number[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < c.length; i++) {
    if (i > 0 && c.agent[i] === c.agent[i - 1]) continue;
    if (seen.has(c.agent[i])) throw new Error(`agent ${c.agent[i]}'s pairs are not contiguous`);
    seen.add(c.agent[i]);
    starts.push(i);
  }
  starts.push(c.length);
  return { starts };
}
