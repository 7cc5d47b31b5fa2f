// The scoring model's deployment-wide settings in the control database (table model_settings): the
// anchors, the operators the admins name as the genesis of trust (the credibility job seeds its
// PageRank from them). Being verified does not make an operator an anchor. With none named, nothing
// can be clear: the admin CLI and /health say so.

import type { Env } from "../env";

/** The anchors: the operator ids on the admins' list. */
export async function readAnchors(env: Pick<Env, "DB">): Promise<number[]> {
  const row = await env.DB.prepare("SELECT value FROM model_settings WHERE key = 'anchors'").first<{ value: string }>();
  return row ? (JSON.parse(row.value) as number[]) : [];
}

export async function setAnchors(env: Pick<Env, "DB">, anchors: readonly number[], now: number): Promise<number[]> {
  const sorted = [...new Set(anchors)].sort((a, b) => a - b);
  await env.DB.prepare(
    "INSERT INTO model_settings (key, value, updated_at) VALUES ('anchors', ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
  )
    .bind(JSON.stringify(sorted), new Date(now).toISOString())
    .run();
  return sorted;
}
