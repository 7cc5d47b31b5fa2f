// The sequencer's own storage: only what integration needs. `leaves` holds the accepted leaves from
// the start of the rightmost entry bundle on (the bundle is rebuilt from them until it is full and
// published); `edge` the rightmost tile of each level; `agents` a few numbers per agent (see
// domain/log/acceptance.ts); the key-value store the counters and the last checkpoint.

import type { AgentLog, OpenLeaf } from "../../domain/log/acceptance";
import { packHashes, unpackHashes, type Edge } from "../../domain/log/integrate";

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS leaves (idx INTEGER PRIMARY KEY, leaf TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS edge (level INTEGER PRIMARY KEY, hashes BLOB NOT NULL)",
  `CREATE TABLE IF NOT EXISTS agents (agent TEXT PRIMARY KEY, acked INTEGER NOT NULL, acked_hash TEXT, open TEXT NOT NULL,
     seq INTEGER, idx INTEGER) WITHOUT ROWID`,
];

/** A batch in flight: the tree size it integrates to, fixed before anything is written to R2. */
export interface SequencerCounters {
  /** Leaves accepted: the next leaf's index. */
  accepted: number;
  /** The size of the tree whose tiles, bundles and checkpoint are in R2. */
  published: number;
  /** The size the batch in flight integrates to, or null. */
  batch: number | null;
}

export class SequencerStore {
  constructor(private readonly storage: DurableObjectStorage) {}

  migrate(): void {
    for (const statement of SCHEMA) this.storage.sql.exec(statement);
  }

  transaction<T>(work: () => T): T {
    return this.storage.transactionSync(work);
  }

  counters(): SequencerCounters {
    const kv = this.storage.kv;
    return { accepted: kv.get<number>("accepted") ?? 0, published: kv.get<number>("published") ?? 0, batch: kv.get<number>("batch") ?? null };
  }

  /** The signed checkpoint of the published tree, or null before the first. */
  checkpoint(): string | null {
    return this.storage.kv.get<string>("checkpoint") ?? null;
  }

  agent(tag: string): AgentLog | null {
    const row = this.storage.sql.exec<{ acked: number; acked_hash: string | null; open: string; seq: number | null; idx: number | null }>(
      "SELECT acked, acked_hash, open, seq, idx FROM agents WHERE agent = ?",
      tag,
    ).toArray()[0];
    if (!row) return null;
    return { acked: row.acked, ackedHash: row.acked_hash, open: JSON.parse(row.open) as OpenLeaf[], seq: row.seq, index: row.idx };
  }

  putAgent(tag: string, agent: AgentLog): void {
    this.storage.sql.exec(
      "INSERT OR REPLACE INTO agents (agent, acked, acked_hash, open, seq, idx) VALUES (?, ?, ?, ?, ?, ?)",
      tag,
      agent.acked,
      agent.ackedHash,
      JSON.stringify(agent.open),
      agent.seq,
      agent.index,
    );
  }

  /** Stores newly accepted leaves (index → canonical JSON) and the count of accepted leaves. */
  addLeaves(leaves: [index: number, json: string][], accepted: number): void {
    for (const [index, json] of leaves) this.storage.sql.exec("INSERT INTO leaves (idx, leaf) VALUES (?, ?)", index, json);
    this.storage.kv.put("accepted", accepted);
  }

  leaves(from: number, to: number): string[] {
    return this.storage.sql.exec<{ leaf: string }>("SELECT leaf FROM leaves WHERE idx >= ? AND idx < ? ORDER BY idx", from, to).toArray().map((r) => r.leaf);
  }

  edge(size: number): Edge {
    const partials: Uint8Array[][] = [];
    for (const row of this.storage.sql.exec<{ level: number; hashes: ArrayBuffer }>("SELECT level, hashes FROM edge ORDER BY level")) {
      partials[row.level] = unpackHashes(new Uint8Array(row.hashes));
    }
    for (let level = 0; level < partials.length; level++) partials[level] ??= [];
    return { size, partials };
  }

  startBatch(size: number): void {
    this.storage.kv.put("batch", size);
  }

  /** The batch is in R2: the tree of `edge.size` leaves is published; leaves of full bundles are dropped. */
  finishBatch(edge: Edge, checkpoint: string, keepFrom: number): void {
    this.storage.sql.exec("DELETE FROM edge");
    edge.partials.forEach((hashes, level) => this.storage.sql.exec("INSERT INTO edge (level, hashes) VALUES (?, ?)", level, packHashes(hashes)));
    this.storage.sql.exec("DELETE FROM leaves WHERE idx < ?", keepFrom);
    this.storage.kv.put("published", edge.size);
    this.storage.kv.put("checkpoint", checkpoint);
    this.storage.kv.delete("batch");
  }
}
