// The service with two more routes, for the tests and the benchmark that feed a log without the
// agents' side (test/node/log.test.ts, scripts/bench-log.mjs). Never deployed: `wrangler dev
// test/log-worker.ts` only.
//   POST /__test/log/{n}/append {entries: [{sid, seq, entry_hash, score_commit}]}: names each agent
//     with LOG_KEY, hands the leaves to log n's sequencer, answers {accepted, refused, leaves}.
//   GET /__test/log/{n}/stats[?r2=1]: the sequencer's counters, and with r2=1 the log's objects and
//     bytes in R2.
import service from "../src/index";
import { agentTag, leafBytes, logKey, type Leaf } from "../src/domain/log/leaf";
import { sequencerName } from "../src/durable/log-sequencer";
import type { Env } from "../src/env";

export { Agent, LogSequencer, RateLimiter, StatusList } from "../src/index";

const ROUTE = /^\/__test\/log\/(0|[1-9][0-9]*)\/(append|stats)$/;

async function r2Usage(bucket: R2Bucket, n: number) {
  let objects = 0;
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: `log/${n}/`, cursor });
    for (const o of page.objects) {
      objects++;
      bytes += o.size;
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return { objects, bytes };
}

export default {
  ...service,
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    const route = ROUTE.exec(url.pathname);
    if (!route) return service.fetch(request, env, ctx);
    const sequencer = env.LOG_SEQUENCER.getByName(sequencerName(Number(route[1])));
    if (route[2] === "stats") {
      return Response.json({ ...(await sequencer.stats()), ...(url.searchParams.get("r2") ? { r2: await r2Usage(env.LOG_BUCKET, Number(route[1])) } : {}) });
    }
    if (request.method !== "POST") return new Response("POST only", { status: 405 });
    const key = await logKey(env.LOG_KEY);
    if (!key) return new Response("LOG_KEY is not set", { status: 503 });
    const { entries } = (await request.json()) as { entries: { sid: string; seq: number; entry_hash: string; score_commit: string }[] };
    const leaves = await Promise.all(
      entries.map(async ({ sid, seq, entry_hash, score_commit }) => ({ sid, leaf: { agent: await agentTag(key, sid), seq, entry_hash, score_commit } satisfies Leaf })),
    );
    const result = await sequencer.append(leaves);
    return Response.json({ ...result, leaves: leaves.map(({ leaf }) => new TextDecoder().decode(leafBytes(leaf))) });
  },
} satisfies ExportedHandler<Env>;
