// The service with one more route, for the tests and the benchmark that feed a log without the
// agents' side (test/node/log-go.test.ts, scripts/bench-log.mjs): POST /__test/log/{n}/append with
// {entries: [{sid, seq, entry_hash, score_commit}]} names each agent with LOG_KEY, hands the leaves
// to log n's sequencer and answers {accepted, refused, leaves}. Never deployed: `wrangler dev
// test/log-worker.ts` only.
import service from "../src/index";
import { agentTag, leafBytes, logKey, type Leaf } from "../src/domain/log/leaf";
import { sequencerName } from "../src/durable/log-sequencer";
import type { Env } from "../src/env";

export { Agent, LogSequencer, RateLimiter } from "../src/index";

const APPEND = /^\/__test\/log\/(0|[1-9][0-9]*)\/append$/;

export default {
  ...service,
  async fetch(request, env, ctx) {
    const route = APPEND.exec(new URL(request.url).pathname);
    if (!route || request.method !== "POST") return service.fetch(request, env, ctx);
    const key = await logKey(env.LOG_KEY);
    if (!key) return new Response("LOG_KEY is not set", { status: 503 });
    const { entries } = (await request.json()) as { entries: { sid: string; seq: number; entry_hash: string; score_commit: string }[] };
    const leaves = await Promise.all(
      entries.map(async ({ sid, seq, entry_hash, score_commit }) => ({ sid, leaf: { agent: await agentTag(key, sid), seq, entry_hash, score_commit } satisfies Leaf })),
    );
    const result = await env.LOG_SEQUENCER.getByName(sequencerName(Number(route[1]))).append(leaves);
    return Response.json({ ...result, leaves: leaves.map(({ leaf }) => new TextDecoder().decode(leafBytes(leaf))) });
  },
} satisfies ExportedHandler<Env>;
