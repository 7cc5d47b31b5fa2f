import { deleteDeliveriesBefore } from "../db/webhooks";
import { DELIVERIES_KEPT_DAYS } from "../domain/events";
import type { Env } from "../env";

// The daily Cron Trigger (wrangler.toml [triggers]): webhook delivery records past their use are
// deleted, so the control database does not grow with every event ever sent.

/** Rows deleted per statement, and statements per run: a backlog is worked off over a few days. */
export const PRUNE_PAGE = 1_000;
export const PRUNE_PAGES = 50;

/** Deletes delivery records older than DELIVERIES_KEPT_DAYS at `now`; how many went. */
export async function pruneDeliveries(env: Env, now: number): Promise<number> {
  const before = new Date(now - DELIVERIES_KEPT_DAYS * 86_400_000).toISOString();
  let deleted = 0;
  for (let page = 0; page < PRUNE_PAGES; page++) {
    const gone = await deleteDeliveriesBefore(env.DB, before, PRUNE_PAGE);
    deleted += gone;
    if (gone < PRUNE_PAGE) break;
  }
  console.log(JSON.stringify({ level: "info", message: "webhook deliveries pruned", deleted, before }));
  return deleted;
}
