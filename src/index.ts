import { createApp } from "./app";
import { metering } from "./d1-meter";
import type { Env } from "./env";
import { createQueueHandler } from "./queues";
import { continueReconcilePass, reconcilePass } from "./queues/reconcile";
import { archivePass, continueArchivePass } from "./queues/archive";
import { runCredibility } from "./queues/credibility-run";
import { pruneDeliveries } from "./queues/pruning";

export { Agent } from "./durable/agent";
export { RateLimiter } from "./durable/rate-limiter";
export { StatusList } from "./durable/status-list";
export { LogSequencer } from "./durable/log-sequencer";

const CREDIBILITY_CRON = "*/15 * * * *";
const app = createApp();
const consume = createQueueHandler();

export default {
  fetch: (request, env, ctx) => app.fetch(request, metering(env), ctx),
  queue: (batch, env) => consume(batch, metering(env, "queue:")),
  // wrangler.toml [triggers]: the daily pruning and the start of the history archive's pass; every
  // 15 minutes the credibility job (a no-op once the day's snapshot is out) and the archive's pass
  // under way, if one is.
  scheduled: (controller, env, ctx) => {
    const metered = metering(env, "cron:");
    if (controller.cron === CREDIBILITY_CRON) {
      ctx.waitUntil(runCredibility(metered, controller.scheduledTime).then(() => undefined));
      // At 03:30 the daily cron starts (or goes on with) the pass itself: one runner, not two.
      const at = new Date(controller.scheduledTime);
      if (at.getUTCHours() !== 3 || at.getUTCMinutes() !== 30) {
        ctx.waitUntil(continueArchivePass(metered, controller.scheduledTime).then(() => undefined));
        ctx.waitUntil(continueReconcilePass(metered, controller.scheduledTime).then(() => undefined));
      }
      return;
    }
    ctx.waitUntil(pruneDeliveries(metered, controller.scheduledTime).then(() => undefined));
    ctx.waitUntil(archivePass(metered, controller.scheduledTime).then(() => undefined));
    ctx.waitUntil(reconcilePass(metered, controller.scheduledTime).then(() => undefined));
  },
} satisfies ExportedHandler<Env>;
