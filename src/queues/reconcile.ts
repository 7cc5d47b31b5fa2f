import { readSeqs } from "../db/agents";
import type { AgentRef } from "../domain/agent";
import { logTag } from "../domain/log/tags";
import { sequencerName } from "../domain/log/messages";
import { shardDatabases, type Env } from "../env";

// The log's daily reconciliation (the Cron Trigger, and POST /admin/log/reconcile): each agent's
// last entry number on its shard is compared with how far its log holds the agent's leaves without
// a gap (the sequencer's per-agent mark, never published), and an agent the log lags is told to
// send its entries again from the first the log lacks. Queues deliver what they accepted, and the
// objects resend what they never handed over: this pass catches what neither did (a message a
// consumer dropped after its retries). Bounded and resumable like the archive's pass: the cursor
// is kept in the control database (`model_settings`, key `log_reconcile`).

export const AGENTS_PER_RECONCILE = 500;
const CURSOR_KEY = "log_reconcile";

export interface ReconcilePass {
  /** Agents in the directory. */
  total: number;
  visited: number;
  /** Agents whose log lagged their shard, told to send again. */
  republished: number;
  /** Entries they sent again. */
  entries: number;
  failed: number;
  /** The pass reached the directory's end (the next starts over). */
  complete: boolean;
  /** Where the next pass starts (0: from the first). */
  next: number;
}

type DirectoryRow = { num: number; sid: string; shard: number; log: number };

async function cursorOf(db: D1DatabaseSession): Promise<number> {
  const row = await db.prepare("SELECT value FROM model_settings WHERE key = ?").bind(CURSOR_KEY).first<{ value: string }>();
  return row ? (JSON.parse(row.value) as { after: number }).after : 0;
}

/** One bounded pass, from `after` (default: where the last stopped). */
export async function reconcilePass(env: Env, now: number, limit = AGENTS_PER_RECONCILE, after?: number): Promise<ReconcilePass> {
  const db = env.DB.withSession("first-primary");
  const from = after ?? (await cursorOf(db));
  const [{ results }, total] = await Promise.all([
    db.prepare("SELECT num, sid, shard, log FROM agent_directory WHERE num > ? ORDER BY num LIMIT ?").bind(from, limit).all<DirectoryRow>(),
    db.prepare("SELECT count(*) AS n FROM agent_directory").first<number>("n"),
  ]);
  const pass: ReconcilePass = { total: total ?? 0, visited: results.length, republished: 0, entries: 0, failed: 0, complete: results.length < limit, next: 0 };
  // Each shard's last entry numbers, one read per shard; each log's marks, one call per log.
  const heads = new Map<string, number>();
  const shards = shardDatabases(env);
  for (const [shard, rows] of groupBy(results, (r) => r.shard)) {
    const d1 = shards[shard]?.withSession("first-primary");
    if (!d1) continue;
    // A page holds up to AGENTS_PER_RECONCILE agents of one shard: readSeqs binds them as one array.
    for (const f of await readSeqs(
      d1,
      rows.map((r) => r.sid),
    ))
      heads.set(f.sid, f.seq);
  }
  const lagging: { ref: AgentRef; from: number }[] = [];
  for (const [log, rows] of groupBy(results, (r) => r.log)) {
    const tags = await Promise.all(rows.map((r) => logTag(env, r.sid)));
    const marks = await env.LOG_SEQUENCER.getByName(sequencerName(log)).marks(tags);
    rows.forEach((r, i) => {
      const head = heads.get(r.sid) ?? 0;
      if (marks[i] < head) lagging.push({ ref: { sid: r.sid, num: r.num, shard: r.shard, log: r.log }, from: marks[i] + 1 });
    });
  }
  for (const { ref, from: first } of lagging) {
    try {
      const out = await env.AGENT.getByName(ref.sid).republish(ref, first);
      if (!out.ok) throw new Error(out.refusal);
      pass.republished++;
      pass.entries += out.result.sent;
    } catch (err) {
      pass.failed++;
      console.error(JSON.stringify({ level: "error", message: "log reconciliation: an agent's resend failed", sid: ref.sid, error: String(err) }));
    }
  }
  pass.next = pass.complete ? 0 : results[results.length - 1].num;
  if (after === undefined) {
    await db
      .prepare("INSERT INTO model_settings (key, value, updated_at) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO UPDATE SET value = ?2, updated_at = ?3")
      .bind(CURSOR_KEY, JSON.stringify({ after: pass.next }), new Date(now).toISOString())
      .run();
  }
  if (pass.republished > 0 || pass.failed > 0) console.log(JSON.stringify({ level: "info", message: "log reconciliation pass", ...pass }));
  return pass;
}

/** The pass under way, if one is (the 15-minute cron carries the day's pass on through a large directory). */
export async function continueReconcilePass(env: Env, now: number): Promise<ReconcilePass | null> {
  return (await cursorOf(env.DB.withSession("first-primary"))) === 0 ? null : reconcilePass(env, now);
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}
