// The service with two more routes, for the credibility job's benchmark (scripts/bench-credibility.ts).
// Never deployed: `wrangler dev test/credibility-bench-worker.ts` only.
//   POST /__bench/rollups {size, today, from, to}: writes the synthetic world's rollup rows of reporters
//     from..to (bench/credibility-world.ts) to the shards, by the agent's hash; answers {rows}.
//   GET /__bench/r2[?reset=1]: the operations on MODEL_BUCKET since the last reset, by R2 class.
// Every request runs with MODEL_BUCKET wrapped to count its operations.
import service from "../src/index";
import { upsertRollup, storedRollup } from "../src/db/rollups";
import { fnv1a } from "../src/domain/identifiers";
import { shardDatabases, type Env } from "../src/env";
import { rowsOfReporter, type WorldSize } from "../bench/credibility-world";

export { Agent, LogSequencer, RateLimiter, StatusList } from "../src/index";

const ops = { classA: 0, classB: 0, deletes: 0, bytesWritten: 0 };

function counted(bucket: R2Bucket): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (prop === "put" || prop === "list") ops.classA++;
        if (prop === "put" && typeof args[1] === "string") ops.bytesWritten += args[1].length;
        if (prop === "get" || prop === "head") ops.classB++;
        if (prop === "delete") ops.deletes++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__bench/r2") {
      const reading = { ...ops };
      if (url.searchParams.get("reset") === "1") Object.assign(ops, { classA: 0, classB: 0, deletes: 0, bytesWritten: 0 });
      return Response.json(reading);
    }
    if (url.pathname === "/__bench/rollups" && request.method === "POST") {
      const { size, today, from, to } = (await request.json()) as { size: WorldSize; today: number; from: number; to: number };
      const shards = shardDatabases(env);
      const byShard = shards.map(() => [] as D1PreparedStatement[]);
      let rows = 0;
      for (let r = from; r <= to; r++) {
        for (const row of rowsOfReporter(size, r, today)) {
          const n = fnv1a(row.agent) % shards.length;
          byShard[n].push(upsertRollup(shards[n], storedRollup(row)));
          rows++;
        }
      }
      for (const [n, statements] of byShard.entries()) {
        for (let i = 0; i < statements.length; i += 500) await shards[n].batch(statements.slice(i, i + 500));
      }
      return Response.json({ rows });
    }
    return service.fetch(request, { ...env, MODEL_BUCKET: counted(env.MODEL_BUCKET) }, ctx);
  },
  queue: service.queue,
  scheduled: service.scheduled,
} satisfies ExportedHandler<Env>;
