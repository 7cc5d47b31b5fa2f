// An agent's last day, as its object needs it before a batch: each keyed change's answer (replayed
// to a repeat of its Idempotency-Key for 24 hours) and each spent receipt id (single use per agent).
// Both live in the entry rows that recorded them (`idem`, `answer`, `jti`, `at`); the
// object reads the last day's when it wakes and keeps them in step with its batches, so no lookup
// waits for the shard and one duplicate never aborts its neighbours' batch. Past MAX_HELD records
// (a very busy agent) the rest is looked up on the shard, within the window's entry numbers.

import type { Loaded } from "./agent-record";
import { unpackText, type StoredText } from "./entry-text";
import { IDEMPOTENCY_TTL_MS, idemOf, type Idempotency } from "../domain/idempotency";

/**
 * How long both are kept: a key for 24 hours, and a receipt id as long as a receipt could still be
 * accepted (issued at most 24 hours before its report, a minute's clock skew each way).
 */
export const DEDUPE_WINDOW_MS = IDEMPOTENCY_TTL_MS + 5 * 60_000;
/** Records held in memory at most (about 1 KB each with its answer). */
export const MAX_HELD = 20_000;
const PAGE = 500;

interface Keyed {
  requestHash: string;
  result: unknown;
  at: number;
}

type Row = { n: number; at: number; idem: string | null; answer: StoredText | null; jti: string | null };

export class RecentWindow {
  private keys = new Map<string, Keyed>();
  private jtis = new Map<string, number>();
  /** Whether every record of the window is held (else the shard is asked from `floor` on). */
  private complete = true;
  private floor = 0;
  private d1: D1DatabaseSession | null = null;
  private sid = "";

  forget(): void {
    this.keys = new Map();
    this.jtis = new Map();
    this.complete = true;
    this.floor = 0;
    this.d1 = null;
  }

  /**
   * Reads the window's records, newest first, page by page (rows read are a thousandth of the price
   * of rows written); an agent not registered yet has none. The window's first entry number is found
   * first, in one statement, so the pages read only keyed or receipted entries and their count does
   * not grow with the agent's other reports (a Worker invocation may run 1,000 queries).
   */
  async load(d1: D1DatabaseSession, sid: string, loaded: Loaded | null, now: number): Promise<void> {
    this.forget();
    this.d1 = d1;
    this.sid = sid;
    if (!loaded) return;
    // The window reaches back from now, or from the last entry when that is earlier (a clock behind
    // the one that stamped it): never fewer records than a caller's own time asks for.
    const newest = await d1.prepare("SELECT at FROM entries WHERE sid = ? AND n <= ? ORDER BY n DESC LIMIT 1").bind(sid, loaded.record.seq).first<number>("at");
    if (newest === null) return;
    const since = Math.min(now, newest) - DEDUPE_WINDOW_MS;
    // Newest first, the scan stops at the first entry outside the window.
    const outside = await d1
      .prepare("SELECT n FROM entries WHERE sid = ? AND n <= ? AND at <= ? ORDER BY n DESC LIMIT 1")
      .bind(sid, loaded.record.seq, since)
      .first<number>("n");
    this.floor = (outside ?? 0) + 1;
    let below = loaded.record.seq + 1;
    for (;;) {
      const { results } = await d1
        .prepare(
          "SELECT n, at, idem, answer, jti FROM entries WHERE sid = ? AND n >= ? AND n < ? AND (idem IS NOT NULL OR jti IS NOT NULL) ORDER BY n DESC LIMIT ?",
        )
        .bind(sid, this.floor, below, PAGE)
        .all<Row>();
      for (const r of results) {
        if (this.keys.size + this.jtis.size >= MAX_HELD) {
          // The rest of the window is looked up on the shard, from the window's first entry on.
          this.complete = false;
          return;
        }
        this.hold(r);
      }
      if (results.length < PAGE) return;
      below = results[results.length - 1].n;
    }
  }

  private hold(r: Row): void {
    // Newest first: an older record of a key reused after its window never hides the newer one.
    if (r.idem !== null && r.answer !== null && !this.keys.has(r.idem)) {
      const { h, r: result } = JSON.parse(unpackText(r.answer)) as { h: string; r: unknown };
      this.keys.set(r.idem, { requestHash: h, result, at: r.at });
    }
    if (r.jti !== null && !this.jtis.has(r.jti)) this.jtis.set(r.jti, r.at);
  }

  /** The answer recorded under the caller's key within 24 hours of `now`, or null. */
  async find(operatorId: number, idempotency: Idempotency, now: number): Promise<{ requestHash: string; result: unknown } | null> {
    const id = idemOf(operatorId, idempotency.key);
    const held = this.keys.get(id) ?? (this.complete ? undefined : await this.lookup("idem", id));
    return held && held.at > now - IDEMPOTENCY_TTL_MS ? { requestHash: held.requestHash, result: held.result } : null;
  }

  /** Whether a receipt id was spent within the window. */
  async spent(jti: string, now: number): Promise<boolean> {
    const at = this.jtis.get(jti) ?? (this.complete ? undefined : (await this.lookup("jti", jti))?.at);
    return at !== undefined && at > now - DEDUPE_WINDOW_MS;
  }

  private async lookup(column: "idem" | "jti", value: string): Promise<Keyed | undefined> {
    const r = await this.d1!.prepare(`SELECT n, at, idem, answer, jti FROM entries WHERE sid = ? AND n >= ? AND ${column} = ? ORDER BY n DESC LIMIT 1`)
      .bind(this.sid, this.floor, value)
      .first<Row>();
    if (!r) return undefined;
    if (column === "jti") return { requestHash: "", result: null, at: r.at };
    const { h, r: result } = JSON.parse(unpackText(r.answer!)) as { h: string; r: unknown };
    return { requestHash: h, result, at: r.at };
  }

  /** What a committed batch recorded joins the index: each keyed change's answer, each receipt id it spent. */
  committed(sid: string, recorded: readonly { at: number; keyed?: { operatorId: number; idempotency: Idempotency; result: unknown }; jti?: string }[]): void {
    if (this.d1 === null) return;
    this.sid = sid;
    for (const { at, keyed, jti } of recorded) {
      if (keyed) this.keys.set(idemOf(keyed.operatorId, keyed.idempotency.key), { requestHash: keyed.idempotency.requestHash, result: keyed.result, at });
      if (jti) this.jtis.set(jti, at);
    }
    if (this.complete && this.keys.size + this.jtis.size > MAX_HELD) this.prune(Math.max(...[...this.keys.values()].map((k) => k.at)) - DEDUPE_WINDOW_MS);
  }

  private prune(since: number): void {
    for (const [k, v] of this.keys) if (v.at <= since) this.keys.delete(k);
    for (const [k, at] of this.jtis) if (at <= since) this.jtis.delete(k);
    if (this.keys.size + this.jtis.size > MAX_HELD) this.complete = false;
  }
}
