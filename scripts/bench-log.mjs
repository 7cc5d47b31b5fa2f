// `npm run bench -- --only log` (or `node scripts/bench-log.mjs [--leaves N] [--agents N]`): the
// transparency log's capacity and cost, measured on one sequencer under `wrangler dev` (workerd,
// local R2 and Durable Objects), fed directly (test/log-worker.ts), without the agents' side.
//
//   1. ceiling: N leaves of A agents appended in calls of 500 (4 at a time) as fast as the object
//      takes them, until the published checkpoint holds them all: leaves per second one sequencer
//      accepts and integrates, with its R2 writes; R2 writes per batch; bytes per leaf in R2 (tiles
//      and bundles); rows written per leaf in the object's storage;
//   2. trickle: single leaves, a few per second: R2 writes per batch when batches are small;
//   3. cost per million leaves at list prices (docs/performance.md, November 2026), and how many
//      logs 10,000 and 100,000 reports a second need.
// Prints a table and writes bench/results/log-<timestamp>.json. Talks only to 127.0.0.1.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startService } from "../test/wrangler-dev.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** List prices (Cloudflare, as read November 2026). */
export const PRICES = {
  r2ClassA: 4.5 / 1e6,
  r2StorageGbMonth: 0.015,
  doRequest: 0.15 / 1e6,
  doRowWritten: 1.0 / 1e6,
  queueOperation: 0.4 / 1e6,
  queueOpsPerMessage: 3,
};
/** A log is sized to run at half its measured ceiling, and at half an object's soft limit of requests. */
const HEADROOM = 0.5;
const OBJECT_REQUESTS_PER_SECOND = 1000;
const QUEUE_MESSAGES_PER_SECOND = 5000;
/**
 * Requests a log's object takes per leaf: an append per queue batch (up to 100 messages) and, at
 * most, one status call from the agent's object per leaf (it asks on its alarm what was acknowledged).
 */
const REQUESTS_PER_LEAF = 1 / 100 + 1;
const SECONDS_PER_MONTH = 30 * 86_400;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function pool(items, concurrency, work) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

export async function benchLog({ leaves = 20_000, agents = 2_000, log = (...a) => console.error("[bench log]", ...a) } = {}) {
  log(`starting the service (test/log-worker.ts) under wrangler dev`);
  const service = await startService("bench-log", { script: "test/log-worker.ts" });
  const base = `${service.url}/__test/log/0`;
  const stats = async (r2 = false) => (await fetch(`${base}/stats${r2 ? "?r2=1" : ""}`)).json();
  const append = async (entries) => {
    const res = await fetch(`${base}/append`, { method: "POST", body: JSON.stringify({ entries }) });
    const body = await res.json();
    if (!res.ok || body.refused.length > 0) throw new Error(`append: ${res.status} ${JSON.stringify(body.refused?.slice(0, 3))}`);
  };
  const untilPublished = async (size, limitMs) => {
    const until = Date.now() + limitMs;
    for (;;) {
      const s = await stats();
      if (s.published >= size) return s;
      if (Date.now() > until) throw new Error(`the log did not publish ${size} leaves in time: ${JSON.stringify(s)}`);
      await sleep(50);
    }
  };
  try {
    // Agents' seqs advance in order; each entry is new.
    const sids = Array.from({ length: agents }, (_, i) => `SID-0x${(0x5000_0000 + i).toString(16).padStart(16, "0")}`);
    const seqs = new Map();
    const entry = (i) => {
      const sid = sids[i % agents];
      const seq = (seqs.get(sid) ?? 0) + 1;
      seqs.set(sid, seq);
      return { sid, seq, entry_hash: randomBytes(32).toString("hex"), score_commit: randomBytes(32).toString("hex") };
    };
    const all = Array.from({ length: leaves }, (_, i) => entry(i));
    const calls = [];
    for (let i = 0; i < all.length; i += 500) calls.push(all.slice(i, i + 500));

    log(`ceiling: ${leaves} leaves of ${agents} agents, calls of 500, 4 at a time`);
    const t0 = performance.now();
    await pool(calls, 4, append);
    const accepted = performance.now();
    const ceilingStats = await untilPublished(leaves, 300_000);
    const published = performance.now();
    const withR2 = await stats(true);

    log("trickle: 40 single leaves, 8 a second");
    const before = await stats();
    for (let i = 0; i < 40; i++) {
      await append([entry(leaves + i)]);
      await sleep(125);
    }
    const trickle = await untilPublished(leaves + 40, 30_000);

    const seconds = (published - t0) / 1000;
    const ceiling = leaves / seconds;
    const writesPerBatch = ceilingStats.r2_writes / ceilingStats.batches;
    const trickleBatches = trickle.batches - before.batches;
    const trickleWritesPerBatch = (trickle.r2_writes - before.r2_writes) / trickleBatches;
    const bytesPerLeaf = withR2.r2.bytes / withR2.published;
    const rowsPerLeaf = ceilingStats.rows_written_since_start / leaves;

    // Cost per million leaves under load: R2 writes as measured, one append (DO request) per queue
    // batch of up to 100 messages, rows as measured, one queue message per leaf (the worst case: an
    // agent's outbox flush usually carries one), and a year of R2 storage.
    const perMillion = {
      r2_writes: (ceilingStats.r2_writes / leaves) * 1e6 * PRICES.r2ClassA,
      r2_storage_per_month: ((bytesPerLeaf * 1e6) / 1e9) * PRICES.r2StorageGbMonth,
      do_requests: 1e6 * REQUESTS_PER_LEAF * PRICES.doRequest,
      do_rows_written: rowsPerLeaf * 1e6 * PRICES.doRowWritten,
      queue: 1e6 * PRICES.queueOpsPerMessage * PRICES.queueOperation,
    };
    const total = perMillion.r2_writes + perMillion.do_requests + perMillion.do_rows_written + perMillion.queue;
    // A log that never rests: one batch a second, each with the trickle's writes.
    const idleFloorPerMonth = SECONDS_PER_MONTH * trickleWritesPerBatch * PRICES.r2ClassA + SECONDS_PER_MONTH * PRICES.doRequest;
    const sizing = (rate) => {
      const byThroughput = Math.ceil(rate / (ceiling * HEADROOM));
      const byRequests = Math.ceil((rate * REQUESTS_PER_LEAF) / (OBJECT_REQUESTS_PER_SECOND * HEADROOM));
      // One message per leaf at most (an agent's outbox flush), 5,000 messages a second per queue.
      const queues = Math.ceil(rate / (QUEUE_MESSAGES_PER_SECOND * HEADROOM));
      return { logs: Math.max(byThroughput, byRequests), logs_by_throughput: byThroughput, logs_by_requests: byRequests, queues };
    };

    const result = {
      machine: { cpus: cpus().length, load_average_1m_at_end: +loadavg()[0].toFixed(2) },
      leaves,
      agents,
      append_seconds: (accepted - t0) / 1000,
      publish_seconds: seconds,
      ceiling_leaves_per_second: Math.round(ceiling),
      batches: ceilingStats.batches,
      leaves_per_batch: Math.round(leaves / ceilingStats.batches),
      r2_writes_per_batch: +writesPerBatch.toFixed(2),
      r2_writes_per_1000_leaves: +((ceilingStats.r2_writes / leaves) * 1000).toFixed(2),
      trickle_batches: trickleBatches,
      trickle_r2_writes_per_batch: +trickleWritesPerBatch.toFixed(2),
      r2_objects: withR2.r2.objects,
      r2_bytes_per_leaf: +bytesPerLeaf.toFixed(1),
      object_storage_bytes: withR2.storage_bytes,
      object_rows_written_per_leaf: +rowsPerLeaf.toFixed(3),
      cost_per_million_leaves_usd: Object.fromEntries(Object.entries(perMillion).map(([k, v]) => [k, +v.toFixed(4)])),
      cost_per_million_leaves_total_usd: +total.toFixed(3),
      busy_log_floor_per_month_usd: +idleFloorPerMonth.toFixed(2),
      sizing_10k_reports_per_second: sizing(10_000),
      sizing_100k_reports_per_second: sizing(100_000),
    };
    return result;
  } finally {
    await service.stop();
  }
}

export function printLog(r) {
  const rows = [
    ["machine", `${r.machine.cpus} cores, load average ${r.machine.load_average_1m_at_end} at the end`],
    ["leaves (agents)", `${r.leaves} (${r.agents})`],
    ["appended in / published in", `${r.append_seconds.toFixed(1)} s / ${r.publish_seconds.toFixed(1)} s`],
    ["ceiling of one sequencer", `${r.ceiling_leaves_per_second} leaves/s (accepted, integrated, written to R2)`],
    ["batches, leaves per batch", `${r.batches}, ${r.leaves_per_batch}`],
    ["R2 writes per batch (ceiling)", `${r.r2_writes_per_batch} (${r.r2_writes_per_1000_leaves} per 1,000 leaves)`],
    ["R2 writes per batch (trickle)", `${r.trickle_r2_writes_per_batch} over ${r.trickle_batches} batches`],
    ["R2 bytes per leaf", `${r.r2_bytes_per_leaf} (${r.r2_objects} objects)`],
    ["object rows written per leaf", `${r.object_rows_written_per_leaf}; object storage ${r.object_storage_bytes} bytes`],
    ["cost per million leaves", `$${r.cost_per_million_leaves_total_usd} (${Object.entries(r.cost_per_million_leaves_usd).map(([k, v]) => `${k} $${v}`).join(", ")})`],
    ["a log busy every second", `$${r.busy_log_floor_per_month_usd} a month at least (one small batch a second)`],
    ...[["10k", r.sizing_10k_reports_per_second], ["100k", r.sizing_100k_reports_per_second]].map(([rate, z]) => [
      `${rate} reports/s`,
      `${z.logs} logs (${z.logs_by_throughput} by throughput, ${z.logs_by_requests} by requests), ${z.queues} trust-log queue(s)`,
    ]),
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log("\nTransparency log (one sequencer)\n" + rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join("\n"));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const result = await benchLog({ leaves: arg("leaves", 20_000), agents: arg("agents", 2_000) });
  printLog(result);
  const dir = join(root, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `log-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nResults: ${file}`);
  process.exit(0);
}
