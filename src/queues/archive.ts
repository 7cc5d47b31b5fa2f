import type { AgentRef } from "../domain/agent";
import { historyWindowDays } from "../db/history-archive";
import type { Env } from "../env";

// The retention window's daily pass (the Cron Trigger, and POST /admin/history/archive): agents old
// enough to have history past the window are visited in directory order, each object moving its
// own old entries to the archive. The pass is bounded; where it stopped is kept in the control
// database (`model_settings`, key `history_archive`), so the next one goes on from there and a pass
// killed halfway repeats at most the agent it was on (whose object resumes from what its shard still holds).

const DAY_MS = 86_400_000;
/**
 * An agent's old entries move a period at a time: once its oldest is this much older than the
 * window's start, every entry before the start goes (one snapshot and about one page a period).
 */
export const ARCHIVE_PERIOD_DAYS = 30;
/** Agents one pass visits at most, and pages one agent moves per visit. */
export const AGENTS_PER_PASS = 500;
export const PAGES_PER_AGENT = 20;
/** Where the pass stopped: the directory number of the last agent it finished (0: the pass is complete). */
const CURSOR_KEY = "history_archive";

export interface ArchivePass {
  cutoff: string;
  agents: number;
  entries: number;
  pages: number;
  bytes: number;
  failed: number;
  /** True when the pass reached the directory's end (the next starts over). */
  complete: boolean;
}

type DirectoryRow = { num: number; sid: string; shard: number; log: number };

async function passCursor(db: D1DatabaseSession): Promise<number> {
  const cursor = await db.prepare("SELECT value FROM model_settings WHERE key = ?").bind(CURSOR_KEY).first<{ value: string }>();
  return cursor ? (JSON.parse(cursor.value) as { after: number }).after : 0;
}

/** The pass under way, if one is: the 15-minute cron carries the day's pass on through a large directory (the daily cron starts it). */
export async function continueArchivePass(env: Env, now: number): Promise<ArchivePass | null> {
  return (await passCursor(env.DB.withSession("first-primary"))) === 0 ? null : archivePass(env, now);
}

/** One bounded pass, from where the last stopped. */
export async function archivePass(env: Env, now: number, limit = AGENTS_PER_PASS): Promise<ArchivePass> {
  const cutoff = now - historyWindowDays(env) * DAY_MS;
  const dueBefore = cutoff - ARCHIVE_PERIOD_DAYS * DAY_MS;
  const db = env.DB.withSession("first-primary");
  const after = await passCursor(db);
  // Only agents registered a period before the cutoff can hold entries due to move.
  const { results } = await db
    .prepare("SELECT num, sid, shard, log FROM agent_directory WHERE num > ? AND created_at < ? ORDER BY num LIMIT ?")
    .bind(after, new Date(dueBefore).toISOString(), limit)
    .all<DirectoryRow>();
  const pass: ArchivePass = { cutoff: new Date(cutoff).toISOString(), agents: 0, entries: 0, pages: 0, bytes: 0, failed: 0, complete: results.length < limit };
  let reached = after;
  for (const row of results) {
    const ref: AgentRef = { sid: row.sid, num: row.num, shard: row.shard, log: row.log };
    let done = true;
    try {
      const moved = await env.AGENT.getByName(row.sid).archiveHistory(ref, { cutoff, dueBefore, now, maxPages: PAGES_PER_AGENT });
      if (moved.ok) {
        pass.agents++;
        pass.entries += moved.result.moved;
        pass.pages += moved.result.pages;
        pass.bytes += moved.result.bytes;
        done = moved.result.done;
      } else if (moved.refusal !== "not_found") throw new Error(moved.refusal);
    } catch (err) {
      // Its object resumes from what the shard holds: the next full pass visits it again.
      pass.failed++;
      console.error(JSON.stringify({ level: "error", message: "history archive: an agent's move failed", sid: row.sid, error: String(err) }));
    }
    if (!done) {
      // Its page budget ran out: the next pass starts with it.
      pass.complete = false;
      break;
    }
    reached = row.num;
  }
  const next = pass.complete ? 0 : reached;
  await db
    .prepare("INSERT INTO model_settings (key, value, updated_at) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO UPDATE SET value = ?2, updated_at = ?3")
    .bind(CURSOR_KEY, JSON.stringify({ after: next }), new Date(now).toISOString())
    .run();
  console.log(JSON.stringify({ level: "info", message: "history archive pass", ...pass }));
  return pass;
}

/**
 * How far the pass under way is, for a caller showing progress: the agents old enough to have
 * history to move (`total`) and those of them the pass has visited (`done`; all of them once a pass
 * completed, as the cursor is then 0).
 */
export async function archiveProgress(env: Env, now: number): Promise<{ done: number; total: number }> {
  const dueBefore = new Date(now - historyWindowDays(env) * DAY_MS - ARCHIVE_PERIOD_DAYS * DAY_MS).toISOString();
  const db = env.DB.withSession("first-primary");
  const after = await passCursor(db);
  const row = await db
    .prepare("SELECT count(*) AS total, count(CASE WHEN num <= ? THEN 1 END) AS done FROM agent_directory WHERE created_at < ?")
    .bind(after, dueBefore)
    .first<{ total: number; done: number }>();
  const total = row?.total ?? 0;
  return { done: after === 0 ? total : (row?.done ?? 0), total };
}
