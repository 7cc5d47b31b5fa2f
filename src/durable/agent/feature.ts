// What a feature module of the agent's object owns (its tables) and does at the kernel's moments.

import type { AgentRecord, AgentRef } from "../../domain/agent";

/** A feature's part in the object's storage and life: its tables, and what it does at the kernel's moments. */
export interface Feature {
  /** CREATE ... IF NOT EXISTS statements of the tables it owns. */
  readonly schema: readonly string[];
  /** Brings older storage of its tables up to date (after the statements ran). */
  upgrade?(): void;
  /** Forgets what it keeps for a time (every hour with a change, and at each alarm). */
  forgetExpired?(now: number): void;
  /** Drops what it holds in memory (a transaction failed, or the object was rebuilt). */
  forget?(): void;
  /**
   * What it restores of its own when the object rebuilds from the shard: the storage writes join
   * the rebuild's transaction.
   */
  restore?(ref: AgentRef): Promise<() => void>;
  /** Its work at an alarm (it commits through the host). */
  alarm?(record: AgentRecord, now: number): void | Promise<void>;
  /** The next time it needs the alarm, if any. */
  deadline?(): number | null;
}
