// R6 whitewashing at registration: agents with the new agent's configuration fingerprint that are in
// caution or suspended (by their rows, on every shard, through the fingerprint index). One of the same
// owner passes its negative evidence on (its object decides, on its own state, whether it is a source
// and what carries); one of another owner only marks the new agent SIMILAR_TO_CAUTIONED.

import type { Context } from "hono";
import type { Inherited } from "../durable/agent";
import { shardDatabases } from "../env";
import { locate, agentOf } from "./agents";
import type { AppEnv } from "./context";

/** Candidates read per shard: a fleet of identical agents is many rows, but few are in caution. */
const CANDIDATES = 20;

export interface Whitewash {
  inheritance: Inherited | null;
  similarToCautioned: boolean;
}

export async function whitewashOf(c: Context<AppEnv>, fingerprint: string, operatorId: number | null, now: number): Promise<Whitewash> {
  const sessions = c.get("sessions");
  const found = await Promise.all(
    shardDatabases(c.env).map((_, n) =>
      sessions
        .shard(n)
        .prepare(
          "SELECT sid, operator_id AS operatorId FROM agents WHERE fingerprint = ? AND (recommendation = 'caution' OR status = 'suspended') ORDER BY updated_at DESC LIMIT ?",
        )
        .bind(fingerprint, CANDIDATES)
        .all<{ sid: string; operatorId: number | null }>(),
    ),
  );
  const rows = found.flatMap((r) => r.results);
  const similarToCautioned = rows.some((r) => r.operatorId !== operatorId);
  let inheritance: Inherited | null = null;
  if (operatorId !== null) {
    for (const row of rows.filter((r) => r.operatorId === operatorId)) {
      const ref = await locate(c, row.sid);
      const out = await agentOf(c, ref).inheritance(ref, now);
      if (out.ok && out.result) {
        inheritance = out.result;
        break;
      }
    }
  }
  return { inheritance, similarToCautioned };
}
