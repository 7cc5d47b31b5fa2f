// The health signal of the trust-log dead-letter queue, kept in the control database
// (`model_settings`, key `log_dead_letters`): how many messages its consumer has put back on the
// trust-log queue, and when it last did. /health reads it.

export const LOG_DEAD_LETTERS_KEY = "log_dead_letters";

export interface LogDeadLetters {
  requeued: number;
  last_at: string | null;
}

/** Counts `count` more messages put back at `at` (ISO), in one statement. */
export const countRequeued = (db: D1Database, count: number, at: string) =>
  db
    .prepare(
      `INSERT INTO model_settings (key, value, updated_at) VALUES (?1, json_object('requeued', ?2, 'last_at', ?3), ?3)
       ON CONFLICT (key) DO UPDATE SET value = json_object('requeued', coalesce(json_extract(model_settings.value, '$.requeued'), 0) + ?2, 'last_at', ?3), updated_at = ?3`,
    )
    .bind(LOG_DEAD_LETTERS_KEY, count, at)
    .run();

/** The signal as stored (nothing re-enqueued yet: zero). */
export function parseDeadLetters(value: string | null | undefined): LogDeadLetters {
  if (!value) return { requeued: 0, last_at: null };
  const parsed = JSON.parse(value) as Partial<LogDeadLetters>;
  return { requeued: Number(parsed.requeued ?? 0), last_at: parsed.last_at ?? null };
}
