// The sequencer's own storage: only what integration needs. `leaves` holds the accepted leaves from
// the start of the rightmost entry bundle on (the bundle is rebuilt from them until it is full and
// published), one row per append (rows written are what an object's storage is billed by);
// `edge` the rightmost tile of each level; `agents` a few numbers per agent (see
// domain/log/acceptance.ts); the key-value store the counters, the last checkpoint and the log's origin.

import type { AgentLog, OpenLeaf } from "../../domain/log/acceptance";
import { packHashes, unpackHashes, type Edge } from "../../domain/log/integrate";
import { levelCount } from "../../domain/log/tiles";

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS leaves (first INTEGER PRIMARY KEY, count INTEGER NOT NULL, leaves TEXT NOT NULL)",
  // widths: the partial versions of the level's current tile already in R2, deleted once it is full.
  "CREATE TABLE IF NOT EXISTS edge (level INTEGER PRIMARY KEY, hashes BLOB NOT NULL, widths TEXT NOT NULL)",
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
  /** Rows written since the object started (SQL rows and key-value puts): what storage is billed by. */
  rowsWritten = 0;

  constructor(private readonly storage: DurableObjectStorage) {}

  private write(query: string, ...bindings: SqlStorageValue[]): void {
    const cursor = this.storage.sql.exec(query, ...bindings);
    cursor.toArray();
    this.rowsWritten += cursor.rowsWritten;
  }

  private put(key: string, value: unknown): void {
    this.storage.kv.put(key, value);
    this.rowsWritten++;
  }

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

  /**
   * The log's origin, fixed when the log is created (`created()` names it then) and kept for good;
   * a log from before origins were stored keeps the one its checkpoints carry.
   */
  origin(created: () => string): string {
    const stored = this.storage.kv.get<string>("origin");
    if (stored) return stored;
    const checkpoint = this.checkpoint();
    const origin = checkpoint ? checkpoint.slice(0, checkpoint.indexOf("\n")) : created();
    this.put("origin", origin);
    return origin;
  }

  /** The signed checkpoint of the published tree, or null before the first. */
  checkpoint(): string | null {
    return this.storage.kv.get<string>("checkpoint") ?? null;
  }

  agent(tag: string): AgentLog | null {
    const row = this.storage.sql
      .exec<{ acked: number; acked_hash: string | null; open: string; seq: number | null; idx: number | null }>(
        "SELECT acked, acked_hash, open, seq, idx FROM agents WHERE agent = ?",
        tag,
      )
      .toArray()[0];
    if (!row) return null;
    return { acked: row.acked, ackedHash: row.acked_hash, open: JSON.parse(row.open) as OpenLeaf[], seq: row.seq, index: row.idx };
  }

  putAgent(tag: string, agent: AgentLog): void {
    this.write(
      `INSERT INTO agents (agent, acked, acked_hash, open, seq, idx) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (agent) DO UPDATE SET
         acked = excluded.acked, acked_hash = excluded.acked_hash, open = excluded.open, seq = excluded.seq, idx = excluded.idx`,
      tag,
      agent.acked,
      agent.ackedHash,
      JSON.stringify(agent.open),
      agent.seq,
      agent.index,
    );
  }

  /** Stores newly accepted leaves (their canonical JSON), the first at index `first`, and the count of accepted leaves. */
  addLeaves(first: number, leaves: string[]): void {
    this.write("INSERT INTO leaves (first, count, leaves) VALUES (?, ?, ?)", first, leaves.length, JSON.stringify(leaves));
    this.put("accepted", first + leaves.length);
  }

  /** The leaves of indices from ≤ i < to, in order. */
  leaves(from: number, to: number): string[] {
    const rows = this.storage.sql.exec<{ first: number; leaves: string }>(
      "SELECT first, leaves FROM leaves WHERE first < ? AND first + count > ? ORDER BY first",
      to,
      from,
    );
    const out: string[] = [];
    for (const row of rows) {
      const chunk = JSON.parse(row.leaves) as string[];
      out.push(...chunk.slice(Math.max(0, from - row.first), to - row.first));
    }
    return out;
  }

  /** The tree of `size` leaves by its right edge, and the partial widths of each level's current tile in R2. */
  edge(size: number): { edge: Edge; widths: number[][] } {
    const partials: Uint8Array[][] = [];
    const widths: number[][] = [];
    for (const row of this.storage.sql.exec<{ level: number; hashes: ArrayBuffer; widths: string }>("SELECT level, hashes, widths FROM edge ORDER BY level")) {
      partials[row.level] = unpackHashes(new Uint8Array(row.hashes));
      widths[row.level] = JSON.parse(row.widths) as number[];
    }
    for (let level = 0; level < partials.length; level++) {
      partials[level] ??= [];
      widths[level] ??= [];
    }
    return { edge: { size, partials }, widths };
  }

  startBatch(size: number): void {
    this.put("batch", size);
  }

  /** Batches published and R2 objects written since the log began. */
  totals(): { batches: number; r2Writes: number } {
    return { batches: this.storage.kv.get<number>("batches") ?? 0, r2Writes: this.storage.kv.get<number>("r2_writes") ?? 0 };
  }

  /**
   * The batch is in R2 (`writes` objects): the tree of `edge.size` leaves (grown from `before`) is
   * published; the leaves of full bundles are dropped. Only the edge's levels that grew are written.
   */
  finishBatch(before: Edge, edge: Edge, widths: number[][], checkpoint: string, keepFrom: number, writes: number): void {
    const totals = this.totals();
    this.put("batches", totals.batches + 1);
    this.put("r2_writes", totals.r2Writes + writes);
    edge.partials.forEach((hashes, level) => {
      if (levelCount(level, edge.size) === levelCount(level, before.size)) return;
      this.write(
        "INSERT INTO edge (level, hashes, widths) VALUES (?, ?, ?) ON CONFLICT (level) DO UPDATE SET hashes = excluded.hashes, widths = excluded.widths",
        level,
        packHashes(hashes).buffer,
        JSON.stringify(widths[level] ?? []),
      );
    });
    this.write("DELETE FROM edge WHERE level >= ?", edge.partials.length);
    this.write("DELETE FROM leaves WHERE first + count <= ?", keepFrom);
    this.put("published", edge.size);
    this.put("checkpoint", checkpoint);
    this.storage.kv.delete("batch");
    this.rowsWritten++;
  }
}
