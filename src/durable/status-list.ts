import { DurableObject } from "cloudflare:workers";
import {
  compressList,
  decoyValue,
  DECOYS_PER_LIST,
  isNewer,
  LIST_CAPACITY,
  LIST_FILL,
  packStatuses,
  randomBelow,
  RESTAMP_EVERY_MS,
  statusValue,
  type AgentFacts,
  type Version,
} from "../domain/status-list";
import { statusListRebuildMs, type Env } from "../env";

/** A fact about a listed agent: its status or its recommendation, as of `version`. */
export interface StatusFact {
  sid: string;
  idx: number;
  kind: "status" | "recommendation";
  value: string;
  version: Version;
}

export type Assignment = { ok: true; idx: number } | { ok: false; full: true };

/** The list's latest build: its `lst`, when it was built (and from how many changes), when stamped. */
interface Build {
  lst: string;
  builtAt: number;
  changes: number;
  issuedAt: number;
}

interface EntryRow extends Record<string, SqlStorageValue> {
  idx: number;
  sid: string | null;
  value: number;
  status: string | null;
  status_at: number | null;
  status_epoch: string | null;
  status_n: number | null;
  rec: string | null;
  rec_at: number | null;
  rec_epoch: string | null;
  rec_n: number | null;
}

const versionOf = (at: number | null, epoch: string | null, n: number | null): Version | null => (at === null ? null : { at, epoch, n: n ?? 0 });

/**
 * One object per status list (named `list:<n>`): the 2-bit values of the agents listed in it, kept
 * current from their events (src/queues/status-feed.ts), and the list built from them at most once a
 * minute. An entry is a row: an agent's (with its status and recommendation and when each was true,
 * so an older fact never overwrites a newer one) or a decoy's (no agent; a fixed non-zero value).
 * Only non-zero entries are read to build the list.
 */
export class StatusList extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private build: Build | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    void ctx.blockConcurrencyWhile(async () => {
      this.sql.exec(`CREATE TABLE IF NOT EXISTS entries (
        idx INTEGER PRIMARY KEY, sid TEXT, value INTEGER NOT NULL,
        status TEXT, status_at INTEGER, status_epoch TEXT, status_n INTEGER,
        rec TEXT, rec_at INTEGER, rec_epoch TEXT, rec_n INTEGER)`);
      this.sql.exec("CREATE UNIQUE INDEX IF NOT EXISTS entries_sid ON entries (sid) WHERE sid IS NOT NULL");
      this.sql.exec("CREATE INDEX IF NOT EXISTS entries_set ON entries (idx) WHERE value != 0");
      this.sql.exec("CREATE TABLE IF NOT EXISTS facts (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    });
  }

  /**
   * The agent's index in this list: the one it has, or a new one drawn at random among the free
   * entries (never a decoy's); `full` once the list holds LIST_FILL agents. The facts given (its
   * status and recommendation now) are kept unless the entry knows newer ones.
   */
  assign(sid: string, facts: AgentFacts): Assignment {
    return this.ctx.storage.transactionSync((): Assignment => {
      this.seedDecoys();
      let idx = this.sql.exec<{ idx: number }>("SELECT idx FROM entries WHERE sid = ?", sid).toArray()[0]?.idx;
      if (idx === undefined) {
        const agents = Number(this.fact("agents") ?? "0");
        if (agents >= LIST_FILL) return { ok: false, full: true };
        do idx = randomBelow(LIST_CAPACITY);
        while (this.sql.exec("SELECT 1 FROM entries WHERE idx = ?", idx).toArray().length > 0);
        this.sql.exec("INSERT INTO entries (idx, sid, value) VALUES (?, ?, 0)", idx, sid);
        this.setFact("agents", String(agents + 1));
      }
      const { version } = facts;
      this.learn([
        { sid, idx, kind: "status", value: facts.status, version },
        { sid, idx, kind: "recommendation", value: facts.recommendation, version },
      ]);
      return { ok: true, idx };
    });
  }

  /** Facts from agents' events, in any order and any number of times: how many changed an entry. */
  apply(facts: StatusFact[]): number {
    return this.ctx.storage.transactionSync(() => this.learn(facts));
  }

  /**
   * The list to serve: `lst` and the time to stamp on it, or null for a list nobody was ever listed
   * in. Rebuilt when an entry changed, at most once a minute (STATUS_LIST_REBUILD_S); stamped again
   * when its stamp is RESTAMP_EVERY_MS old. `now` is the caller's clock; a clock behind the build's is trusted too
   * (clocks differ a little between the service's machines).
   */
  async snapshot(now: number): Promise<{ lst: string; issuedAt: number } | null> {
    if (this.fact("decoys") === null) return null;
    this.build ??= JSON.parse(this.fact("build") ?? "null") as Build | null;
    const changes = Number(this.fact("changes") ?? "0");
    let build = this.build;
    const due = (since: number, every: number) => now - since >= every || now < since;
    if (!build || (changes > build.changes && due(build.builtAt, statusListRebuildMs(this.env)))) {
      const set = this.sql.exec<{ idx: number; value: number }>("SELECT idx, value FROM entries WHERE value != 0");
      const lst = await compressList(
        packStatuses(
          LIST_CAPACITY,
          (function* () {
            for (const row of set) yield [row.idx, row.value] as const;
          })(),
        ),
      );
      build = { lst, builtAt: now, changes, issuedAt: now };
    } else if (due(build.issuedAt, RESTAMP_EVERY_MS)) {
      build = { ...build, issuedAt: now };
    } else {
      return { lst: build.lst, issuedAt: build.issuedAt };
    }
    this.build = build;
    this.setFact("build", JSON.stringify(build));
    return { lst: build.lst, issuedAt: build.issuedAt };
  }

  /** Applies the facts newer than what each entry knows; counts changes of a value. */
  private learn(facts: StatusFact[]): number {
    let changed = 0;
    for (const fact of facts) {
      const row = this.sql.exec<EntryRow>("SELECT * FROM entries WHERE idx = ?", fact.idx).toArray()[0];
      // An index another agent holds (or a decoy's) is never touched.
      if (!row || row.sid !== fact.sid) continue;
      const isStatus = fact.kind === "status";
      const current = isStatus ? versionOf(row.status_at, row.status_epoch, row.status_n) : versionOf(row.rec_at, row.rec_epoch, row.rec_n);
      if (!isNewer(fact.version, current)) continue;
      const status = isStatus ? fact.value : row.status;
      const rec = isStatus ? row.rec : fact.value;
      const value = statusValue(status, rec);
      const { at, epoch, n } = fact.version;
      if (isStatus)
        this.sql.exec(
          "UPDATE entries SET status = ?, status_at = ?, status_epoch = ?, status_n = ?, value = ? WHERE idx = ?",
          status,
          at,
          epoch,
          n,
          value,
          fact.idx,
        );
      else this.sql.exec("UPDATE entries SET rec = ?, rec_at = ?, rec_epoch = ?, rec_n = ?, value = ? WHERE idx = ?", rec, at, epoch, n, value, fact.idx);
      if (value !== row.value) changed++;
    }
    if (changed > 0) this.setFact("changes", String(Number(this.fact("changes") ?? "0") + changed));
    return changed;
  }

  /** Once per list, before its first agent: DECOYS_PER_LIST entries with a fixed non-zero value. */
  private seedDecoys() {
    if (this.fact("decoys") !== null) return;
    let placed = 0;
    while (placed < DECOYS_PER_LIST) {
      const idx = randomBelow(LIST_CAPACITY);
      placed += this.sql.exec("INSERT OR IGNORE INTO entries (idx, sid, value) VALUES (?, NULL, ?) RETURNING idx", idx, decoyValue()).toArray().length;
    }
    this.setFact("decoys", String(placed));
  }

  private fact(key: string): string | null {
    return this.sql.exec<{ value: string }>("SELECT value FROM facts WHERE key = ?", key).toArray()[0]?.value ?? null;
  }

  private setFact(key: string, value: string) {
    this.sql.exec("INSERT INTO facts (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value);
  }
}
