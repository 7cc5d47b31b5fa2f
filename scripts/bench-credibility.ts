// `npm run bench -- --only credibility` (or `node --expose-gc --import tsx scripts/bench-credibility.ts
// [--operators N] [--pairs N] [--shards N]`): version 4's cross-agent job computation
// (src/domain/model/job: computeCredibility) on a synthetic service of --operators operators
// (default 100,000) and --pairs (agent, reporter) pairs (default 10,000,000) over --shards shards
// (default 16), measured on this machine: the time of each part of a run and the memory it holds.
// Two runs: the first from a steady previous snapshot, the second from the first's. Prints a table
// and writes bench/results/credibility-v4-<timestamp>.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DAY_MS, job } from "../src/domain/model/index";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { operators: { type: "string", default: "100000" }, pairs: { type: "string", default: "10000000" }, shards: { type: "string", default: "16" } }, strict: false });
const OPERATORS = Number(values.operators);
const PAIRS = Number(values.pairs);
const SHARDS = Number(values.shards);
const MB = 1024 * 1024;
const TODAY = 20_500;

const gc = () => (globalThis as { gc?: () => void }).gc?.();
/** The JavaScript heap and the typed arrays' buffers (what the run holds). */
const held = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** A small, fast, seeded generator (mulberry32). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A synthetic service: each operator owns agents (2 on average, 1 in 10 operators owns none), each
 * agent has pairs from reporters drawn with a heavy tail (a few operators report on many agents);
 * 90% of votes positive, 70% of pairs receipted, first reports over the last year. Agents are
 * spread over the shards by index.
 */
function economy(): { owners: Int32Array; shards: job.PairColumns[]; anchors: number[] } {
  const r = random(42);
  const agentsCount = Math.round(OPERATORS * 2);
  const owners = new Int32Array(agentsCount);
  for (let a = 0; a < agentsCount; a++) owners[a] = Math.floor(r() * OPERATORS * 0.9);
  const perAgent = PAIRS / agentsCount;
  const perShard = Math.ceil(PAIRS / SHARDS) + agentsCount;
  const shards = Array.from({ length: SHARDS }, () => job.emptyColumns(perShard));
  let total = 0;
  for (let a = 0; a < agentsCount && total < PAIRS; a++) {
    const c = shards[a % SHARDS];
    const n = Math.max(1, Math.round(perAgent * (0.5 + r())));
    for (let k = 0; k < n && total < PAIRS; k++) {
      // Reporters: a heavy tail (squared uniform) over the operators.
      const u = r();
      const reporter = Math.floor(u * u * OPERATORS);
      const i = c.length++;
      c.agent[i] = a;
      c.reporter[i] = reporter;
      c.vote[i] = r() < 0.9 ? 1000 - Math.floor(r() * 300) : Math.floor(r() * 300);
      const day = TODAY - Math.floor(r() * 365);
      c.firstAt[i] = day * DAY_MS + Math.floor(r() * DAY_MS);
      c.receiptDay[i] = r() < 0.7 ? day : -1;
      total++;
    }
  }
  // Each shard's columns at their length (as a shard's read would fill them).
  const trimmed = shards.map((c) => ({ length: c.length, agent: c.agent.slice(0, c.length), reporter: c.reporter.slice(0, c.length), vote: c.vote.slice(0, c.length), firstAt: c.firstAt.slice(0, c.length), receiptDay: c.receiptDay.slice(0, c.length) }));
  return { owners, shards: trimmed, anchors: Array.from({ length: 10 }, (_, i) => i * 97) };
}

function measure() {
  const base = held();
  const t0 = performance.now();
  const { owners, shards, anchors } = economy();
  const generateMs = performance.now() - t0;
  const pairs = shards.reduce((s, c) => s + c.length, 0);
  // The columns' own bytes (22 a pair) and the owners' (4 an agent).
  const input = shards.reduce((s, c) => s + c.agent.byteLength + c.reporter.byteLength + c.vote.byteLength + c.firstAt.byteLength + c.receiptDay.byteLength, 0) + owners.byteLength;
  // A steady previous snapshot: most reporters hold some credibility.
  const r = random(7);
  const steady = Uint8Array.from({ length: OPERATORS }, () => (r() < 0.7 ? 20 : Math.floor(r() * 21)));
  const runs: { ms: number; parts: Record<string, number>; peakMb: number; edges: number; trusted: number; withCredibility: number; iterations: { uncapped: number; capped: number } }[] = [];
  let previous: Uint8Array = steady;
  for (let run = 0; run < 2; run++) {
    let peak = 0;
    const sample = () => (peak = Math.max(peak, process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - base));
    const parts: Record<string, number> = {};
    const start = performance.now();
    let t = performance.now();
    const graph = job.ownerGraph({ operators: OPERATORS, owners, shards });
    parts.ownerGraph = performance.now() - t;
    sample();
    t = performance.now();
    const trust = job.trustedOwners(graph, { operators: OPERATORS, anchors, previous });
    parts.pageRank = performance.now() - t;
    sample();
    t = performance.now();
    const ab = job.emptyAgeBreadth(OPERATORS);
    for (const s of shards) {
      const part = job.emptyAgeBreadth(OPERATORS);
      job.shardAgeBreadth(s, owners, trust.trusted, part);
      job.mergeAgeBreadth(ab, part, OPERATORS);
    }
    parts.ageBreadth = performance.now() - t;
    t = performance.now();
    for (let pass = 0; pass < 2; pass++) {
      const facts = job.emptyPassFacts(OPERATORS);
      for (const s of shards) {
        const part = job.emptyPassFacts(OPERATORS);
        job.shardPass(s, owners, previous, part);
        job.mergePassFacts(facts, part, OPERATORS);
      }
    }
    parts.twoPasses = performance.now() - t;
    sample();
    // The whole run as the service calls it (the parts above are the same work, timed apart).
    t = performance.now();
    const snapshot = job.computeCredibility({ operators: OPERATORS, owners, anchors, shards, previous, day: TODAY + run });
    const ms = performance.now() - t;
    sample();
    runs.push({ ms, parts, peakMb: peak / MB, edges: snapshot.stats.edges, trusted: snapshot.stats.trusted, withCredibility: snapshot.levels.reduce((x, l) => x + (l > 0 ? 1 : 0), 0), iterations: snapshot.stats.iterations });
    previous = snapshot.levels;
    void start;
  }
  return { operators: OPERATORS, pairs, shards: SHARDS, generateMs, inputMb: input / MB, maxRssMb: process.resourceUsage().maxRSS / 1024, runs };
}

export function benchCredibilityV4() {
  const result = measure();
  return { machine: { cpus: cpus().length, model: cpus()[0]?.model, memoryGb: totalmem() / 1024 ** 3, load: loadavg() }, ...result };
}

export function printCredibilityV4(r: ReturnType<typeof benchCredibilityV4>) {
  console.log(`\nVersion 4's job computation: ${r.operators.toLocaleString("en")} operators, ${r.pairs.toLocaleString("en")} pairs over ${r.shards} shards (load ${r.machine.load.map((l) => l.toFixed(2)).join(" ")}, ${r.machine.cpus} cores)`);
  console.log(`  input columns: ${r.inputMb.toFixed(0)} MB (made in ${(r.generateMs / 1000).toFixed(1)} s); the process's peak resident memory over everything: ${r.maxRssMb.toFixed(0)} MB`);
  for (const [i, run] of r.runs.entries()) {
    const p = run.parts;
    console.log(
      `  run ${i + 1}: ${(run.ms / 1000).toFixed(1)} s (owner graph ${(p.ownerGraph / 1000).toFixed(1)} s, ${run.edges.toLocaleString("en")} edges; PageRank ${(p.pageRank / 1000).toFixed(1)} s, ${run.iterations.uncapped} + ${run.iterations.capped} iterations; age and breadth ${(p.ageBreadth / 1000).toFixed(1)} s; two passes ${(p.twoPasses / 1000).toFixed(1)} s); ` +
        `heap and buffers at their highest sample, above the start: ${run.peakMb.toFixed(0)} MB; ${run.trusted.toLocaleString("en")} trusted owners, ${run.withCredibility.toLocaleString("en")} operators with c > 0`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!(globalThis as { gc?: unknown }).gc) console.log("(no --expose-gc: memory figures include garbage; run through npm run bench -- --only credibility)");
  const result = benchCredibilityV4();
  printCredibilityV4(result);
  mkdirSync(join(root, "bench", "results"), { recursive: true });
  const file = join(root, "bench", "results", `credibility-v4-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nResults: ${file}`);
}
