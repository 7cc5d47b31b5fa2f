// `npm run bench [-- options]`: a local load test of the service next to two baseline Workers
// (bench/baseline: a bare one, and a fuller one that also authenticates from a cached key and sends
// one queue message per write), all under `wrangler dev` (workerd + local D1 + local Durable
// Objects + local queues) on 127.0.0.1, each with its own throw-away state (--persist-to a temp
// dir, its own dev registry).
//
//   1. starts the service and the baseline Worker and seeds the service through its API: an owner
//      and a verified reporter (custom huge rate limits: tier limits count per operator), 100
//      agents, 5 transactions each;
//   2. measures with autocannon (throughput, p50/p99 latency), each next to its baseline(s):
//        GET /score/{sid}              vs one D1 point read by primary key
//        GET /badge/{sid}.svg, cached  vs a plain Hono route with a constant SVG
//        POST /transactions, 1 agent   vs a Durable Object + D1 batch (INSERT + UPDATE), 1 object,
//                                      and vs the fuller baseline (the same behind a cached key,
//                                      with one queue message per write)
//        POST /transactions, 100 agts  vs the same two across 100 objects
//        POST /transactions/batch      (100 reports on 100 agents) vs those reports sent one by one
//      and the single-D1 write ceiling (the same D1 batch straight from the Worker, no object);
//      and, from /proc, the CPU each Worker's processes use a request during its own slices, in all
//      and in the busiest process (with its share of a core: near 1, that process bounds the rate);
//   3. a hot-path breakdown: the service's requests cut short at each stage (no key, unknown key,
//      bad body after auth and the rate limiter), interleaved with the full requests; the
//      differences show what each stage costs;
//   4. copies the service's state, adds 100x the agents and history to the copy (one SQL file per
//      database: directory entries on the control database, rows and history on their shards),
//      runs the small and the large service side by side (once both are idle) and compares GET
//      /score latency over as many agents read in each, and beside it over all the large set's;
//   5. counts the work of a report on a service started with D1_METER=true, through its HTTP API
//      and the meter only (never the objects' internals, so it holds whatever the objects do): per
//      phase (single reports over 100 agents and over one, with metadata, batches of 100 over 100
//      and over 10 agents, GET /score) D1 rows per database and table, the objects' SQLite rows and
//      bytes, object calls and alarms, queue messages per queue, commits and reports per commit,
//      history entries by kind, and after the phase's answers what no request did; a quiet window
//      with no request (alarms and their commits per agent and day); the transparency log's own
//      work per leaf. Each phase is priced at list prices and set beside the design's floor (the
//      least its write path costs at the phase's measured reports per commit and bytes), with
//      measured/floor (scripts/bench-cost.mjs); the log is priced apart, per million leaves;
//   6. prints a table and writes bench/results/<timestamp>.json.
//
// The machine is shared and small, so a service and its baselines are measured in alternating
// slices (4 rounds each) rather than one after the other: a burst of background load hits all.
// It ends by itself (hard deadline below), kills every process it started on exit and on error, and
// only talks to 127.0.0.1. docs/performance.md explains the numbers.
//
// Options: --duration <s> per measurement (8), --warmup <s> (1), --connections <n> (10),
// --only <score,badge,txOne,txMany,batch,ceiling,breakdown,large,counts,log,credibility>
// (log: the transparency log's capacity and cost, scripts/bench-log.mjs; credibility: the
// cross-agent job's computation, scripts/bench-credibility.ts; each only when named), --no-breakdown, --profile (attach
// V8's sampling profiler to the service through wrangler's inspector port and print where each
// request's CPU time goes; it slows the service, so a profiled run's ratios are not comparable),
// --worker-logs <dir> (each Worker's whole output into a file there).
import autocannon from "autocannon";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { databaseNames, migrateLocally } from "./d1.mjs";
import { secretVarArgs } from "./local-secrets.mjs";
import { costLines, costPerMillion, floorPerReport, logCostPerMillionLeaves, OBJECT_CALL_MS, PRICES, readFloor } from "./bench-cost.mjs";
import { entriesAdded, objectStorage, shardHistory } from "./bench-state.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const baselineDir = join(root, "bench", "baseline");
const resultsDir = join(root, "bench", "results");
const bin = join(root, "node_modules", ".bin");
const wrangler = join(bin, process.platform === "win32" ? "wrangler.cmd" : "wrangler");

// --- options ------------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const DURATION = Number(option("duration", 8)); // seconds of measured load per measurement
const WARMUP = Number(option("warmup", 1)); // seconds of unrecorded load before each
const CONNECTIONS = Number(option("connections", 10));
const ROUNDS = 4; // alternating slices per measurement
const BREAKDOWN = !argv.includes("--no-breakdown");
const PROFILE = argv.includes("--profile");
const ONLY = option("only", null)?.split(",") ?? null;
const WORKER_LOGS = option("worker-logs", null); // a directory: each Worker's whole output goes there
const want = (key) => !ONLY || ONLY.includes(key);
const AGENTS = 100;
const TX_PER_AGENT = 5;
const SCALE = 100; // the large data set: 100x the agents and their history
const DEADLINE_MS = 1_800_000; // the whole run, start to finish, stays under 30 minutes (about 17 on a quiet machine)
// The counts phase's waits. After each phase's last answer, SETTLE_S: longer than the alarm every
// commit sets behind its outbox (within 60 s), so a phase's figures hold its own agents' alarms
// (an object life that ended before its alarm sends its last batch again) and not the phase
// before's. Then a quiet window of IDLE_S with no request at all (the objects' own alarms and
// commits, per agent and day).
const SETTLE_S = 65;
const IDLE_S = 75;
const HOST = "127.0.0.1";
/** The fuller baseline's API key (bench/baseline/migrations/0001_keys.sql stores its SHA-256). */
const BASELINE_KEY = "bench-baseline-key";

// Targets (docs/performance.md#the-floor-and-the-targets). One agent against the bare baseline is shown without one:
// its target is against the fuller baseline.
const TARGETS = {
  batch: { min: 5, text: "≥ 5x single reports" },
  score: { min: 0.8, text: "≥ 0.8x D1 read" },
  badge: { min: 0.9, text: "≥ 0.9x bare route" },
  txOne: null,
  txOneFull: { min: 1.0, text: "≥ 1.0x fuller" },
  txMany: { min: 0.6, text: "≥ 0.6x bare" },
  txManyFull: { min: 0.8, text: "≥ 0.8x fuller" },
  large: { max: 1.2, text: "≤ 1.2x small (p50)" },
};
/** The counts' targets: measured cost within 10% of the floor; rows and dollars per report. */
const COST_TARGETS = {
  floorRatio: 1.1,
  d1Rows: { single: 3, batch10Agents: 1.5 },
  dollars: { single: 4.5, batch10Agents: 2.5 },
};

// --- child processes ----------------------------------------------------------------------------
const tempDirs = [];
const children = new Set();
/** Each Worker's URL and the wrangler process it runs under: a measurement's CPU is its process tree's. */
const servedBy = new Map();
const started = Date.now();
const startLoad = loadavg();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
const log = (...args) => console.error(`[bench ${elapsed()}]`, ...args);

// Its own dev registry, so these Workers never replace a developer's running `wrangler dev` in it.
const registry = mkdtempSync(join(tmpdir(), "bench-registry-"));
tempDirs.push(registry);
const childEnv = {
  ...process.env,
  // wrangler and the Node 22 shim from node_modules/.bin, whatever `node` runs this script.
  PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_REGISTRY_PATH: registry,
  CI: "true",
  NO_COLOR: "1",
};

function run(args, cwd, timeoutMs = 120_000) {
  const out = spawnSync(wrangler, args, { cwd, env: childEnv, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) {
    throw new Error(`wrangler ${args.join(" ")} failed (${out.status ?? out.signal}):\n${out.stderr}\n${out.stdout}`.slice(0, 4000));
  }
  return out.stdout;
}

/**
 * Bundles a Worker once (`wrangler deploy --dry-run --outdir`), so the run measures one snapshot of
 * the code: `wrangler dev` on the sources would rebuild and restart the Worker whenever someone
 * saves a file, in the middle of a measurement.
 */
function build(name, cwd) {
  const outdir = mkdtempSync(join(tmpdir(), `bench-build-${name}-`));
  tempDirs.push(outdir);
  run(["deploy", "--dry-run", "--outdir", outdir, "-c", join(cwd, "wrangler.toml")], cwd);
  return join(outdir, "index.js");
}

/** `wrangler dev` in its own process group (it starts workerd children), so one kill ends them all. */
function startWorker(name, cwd, script, port, persistTo, extra = []) {
  const args = ["dev", script, "-c", join(cwd, "wrangler.toml"), "--no-bundle", "--ip", HOST, "--port", String(port), "--persist-to", persistTo, "--log-level", "warn", ...extra];
  const child = spawn(wrangler, args, { cwd, env: childEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  servedBy.set(`http://${HOST}:${port}`, child);
  const output = [];
  const keep = (chunk) => {
    if (WORKER_LOGS) writeFileSync(join(WORKER_LOGS, `${name.replace(/[^a-z0-9]+/gi, "-")}-${port}.log`), String(chunk), { flag: "a" });
    output.push(String(chunk));
    if (output.length > 200) output.shift();
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  child.exited = new Promise((resolve) => child.on("exit", resolve));
  child.output = () => output.join("");
  child.label = name;
  children.add(child);
  child.exited.then((code) => {
    // A Worker that dies mid-run would otherwise show up only as 0 req/s: say so, with its last words.
    if (children.has(child) && !child.stopping) log(`${name} exited unexpectedly (code ${code}):\n${child.output().slice(-3000)}`);
    children.delete(child);
  });
  return child;
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

async function stopWorker(child) {
  if (!children.has(child)) return;
  child.stopping = true;
  killGroup(child, "SIGTERM");
  const gone = await Promise.race([child.exited.then(() => true), sleep(5000).then(() => false)]);
  if (!gone) killGroup(child, "SIGKILL");
  await Promise.race([child.exited, sleep(2000)]);
  killGroup(child, "SIGKILL"); // workerd children that outlived wrangler, if any
}

function cleanupSync() {
  for (const child of children) killGroup(child, "SIGKILL");
  children.clear();
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
process.on("exit", cleanupSync);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    cleanupSync();
    process.exit(130);
  });
}
const deadline = setTimeout(() => {
  log(`deadline of ${DEADLINE_MS / 1000}s reached: stopping`);
  cleanupSync();
  process.exit(2);
}, DEADLINE_MS);
deadline.unref();

// --- helpers ------------------------------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** CPU seconds used so far by each process of a child's tree, by pid (Linux /proc; null elsewhere). */
function cpuByProcess(rootPid) {
  let entries;
  try {
    entries = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const stats = new Map();
  for (const pid of entries) {
    try {
      // The fields after the command's closing parenthesis: state, ppid, ..., utime (14), stime (15).
      const text = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(pid), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // gone meanwhile
    }
  }
  const tree = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, s] of stats) {
      if (tree.has(pid) || !tree.has(s.ppid)) continue;
      tree.add(pid);
      grew = true;
    }
  }
  return new Map([...tree].filter((pid) => stats.has(pid)).map((pid) => [pid, stats.get(pid).ticks / 100]));
}

/** CPU seconds used so far by a child and its descendants (null where /proc is not). */
function cpuSeconds(rootPid) {
  const byProcess = cpuByProcess(rootPid);
  return byProcess && [...byProcess.values()].reduce((a, s) => a + s, 0);
}

/** The CPU seconds each process of a tree used between two readings, busiest first. */
function cpuUsed(before, after) {
  if (!before || !after) return null;
  return [...after].map(([pid, s]) => s - (before.get(pid) ?? 0)).sort((a, b) => b - a);
}

/**
 * The CPU the Worker's processes (wrangler; workerd: the Worker, its objects, local D1 and queues;
 * wrangler's proxy) used during a measurement's slices, per request served, in all and in the
 * busiest process, with that process's share of a core. Work a slice leaves queued runs partly in
 * the next (another Worker's) slice and is not counted; /proc's clock ticks are 10 ms.
 */
function cpuPerRequest(slices, served, seconds) {
  if (served === 0 || slices.some((p) => !p.cpu)) return { cpuMsPerRequest: null, busiestCpuMsPerRequest: null, busiestCoreShare: null };
  let all = 0;
  let busiest = 0;
  for (const { cpu } of slices) {
    for (const s of cpu) all += s;
    busiest += cpu[0] ?? 0;
  }
  return { cpuMsPerRequest: round2((1000 * all) / served), busiestCpuMsPerRequest: round2((1000 * busiest) / served), busiestCoreShare: round2(busiest / seconds) };
}

/** Waits (at most 30 s) until a started Worker is idle: under 5% of a core over a second. */
async function waitIdle(child) {
  const until = Date.now() + 30_000;
  let before = cpuSeconds(child.pid);
  if (before === null) return sleep(5000);
  while (Date.now() < until) {
    await sleep(1000);
    const now = cpuSeconds(child.pid);
    if (now - before < 0.05) return;
    before = now;
  }
  log(`${child.label} still busy after 30 s; measuring anyway`);
}

async function waitReady(child, base, path) {
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    if (!children.has(child)) throw new Error(`${child.label} exited during start-up:\n${child.output()}`);
    try {
      const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${child.label} did not become ready:\n${child.output()}`);
}

// Made once per run: every start of the service serves the same state, whose chains and log leaves
// were made with its REPORTER_KEY and LOG_KEY (new keys at a restart would have its log refuse every
// leaf the agents send again, in a burst each minute).
const serviceSecrets = secretVarArgs("bench");

/** A service instance: wrangler dev of the bundle on free ports. */
async function startService(label, script, persistTo, adminToken, vars = []) {
  const [port, inspector] = await Promise.all([freePort(), freePort()]);
  const args = ["--inspector-port", String(inspector), "--var", `ADMIN_TOKEN:${adminToken}`, "--var", "RETURN_KEYS_IN_RESPONSES:true", ...serviceSecrets, ...vars.flatMap((v) => ["--var", v])];
  const child = startWorker(label, root, script, port, persistTo, args);
  return { child, url: `http://${HOST}:${port}`, inspector };
}

async function api(base, path, { method = "GET", headers = {}, body } = {}) {
  const init = { method, headers: { "cf-connecting-ip": "192.0.2.1", ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["content-type"] = "application/json";
  }
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, json, text };
}

async function expectStatus(promise, status, what) {
  const res = await promise;
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  return res.json;
}

async function pool(items, concurrency, work) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i], i);
      }
    }),
  );
  return out;
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];
const OUTCOMES = ["success", "success", "success", "partial", "failure", "timeout"];
const txBody = (sid) => ({ sid, transactionType: "task_completion", outcome: pick(OUTCOMES), qualitySignal: 600 + Math.floor(Math.random() * 400) });
const round2 = (x) => Math.round(x * 100) / 100;

// --- load generation ----------------------------------------------------------------------------
/**
 * One autocannon slice. `spec.next()` gives each request's path (and body), so requests spread over
 * agents or objects. Every response time is kept, so slices can be merged into one distribution.
 */
async function slice(entry, seconds, progress) {
  const { url, spec } = entry;
  const method = spec.method ?? "GET";
  const instance = autocannon({
    url,
    connections: spec.connections ?? CONNECTIONS,
    duration: seconds,
    method,
    headers: { "cf-connecting-ip": "192.0.2.10", ...spec.headers, ...(method === "POST" ? { "content-type": "application/json" } : {}) },
    requests: [
      {
        setupRequest: (req) => {
          const { path, body } = spec.next();
          return { ...req, path, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
        },
      },
    ],
  });
  const times = [];
  instance.on("response", (_client, _status, _bytes, time) => times.push(time));
  let second = 0;
  instance.on("tick", ({ counter }) => {
    second += 1;
    if (progress && second <= seconds) progress(second, counter);
  });
  const result = await instance;
  // Served: 2xx, or for a stage cut short on purpose, its expected status.
  const total = result["2xx"] + result.non2xx;
  const ok = spec.expect ? (result.statusCodeStats?.[spec.expect]?.count ?? 0) : result["2xx"];
  return { seconds: result.duration, total, ok, errors: result.errors, timeouts: result.timeouts, codes: result.statusCodeStats, times };
}

function percentile(sorted, q) {
  if (sorted.length === 0) return null;
  return round2(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
}

/**
 * Measures several entries ({key, label, url, spec, profile}) in alternating slices: a warm-up of
 * each, then ROUNDS rounds in which each runs for seconds/ROUNDS. Returns key -> summary.
 */
async function measureSet(entries, { seconds = DURATION, profiler = null } = {}) {
  const sliceSeconds = Math.max(1, Math.round(seconds / ROUNDS));
  for (const entry of entries) if (WARMUP > 0) await slice(entry, WARMUP, null);
  const parts = new Map(entries.map((e) => [e.key, []]));
  const profiles = new Map();
  const tty = process.stderr.isTTY;
  for (let round = 1; round <= ROUNDS; round++) {
    for (const entry of entries) {
      const progress = (s, rate) => {
        const line = `  ${entry.label.padEnd(46)} round ${round}/${ROUNDS}  ${s}/${sliceSeconds}s  ${String(rate).padStart(6)} req/s`;
        if (tty) process.stderr.write(`\r${line}\x1b[K`);
        else if (s === sliceSeconds) process.stderr.write(`${line}\n`);
      };
      const profiled = profiler && !profiler.failed && entry.profile;
      const guarded = async (step) => {
        try {
          return await step();
        } catch (err) {
          log(`profiling stopped: ${err.message}`);
          profiler.failed = true;
          return undefined;
        }
      };
      if (profiled) await guarded(() => profiler.start());
      const pid = servedBy.get(entry.url)?.pid;
      const cpuBefore = pid === undefined ? null : cpuByProcess(pid);
      const part = await slice(entry, sliceSeconds, progress);
      part.cpu = pid === undefined ? null : cpuUsed(cpuBefore, cpuByProcess(pid));
      if (profiled && !profiler.failed) {
        const acc = await guarded(() => profiler.stop(entry.label, profiles.get(entry.key)));
        if (acc) profiles.set(entry.key, acc);
      }
      parts.get(entry.key).push(part);
    }
  }
  if (tty) process.stderr.write("\r\x1b[K");

  const out = {};
  for (const entry of entries) {
    const list = parts.get(entry.key);
    const sum = (f) => list.reduce((a, p) => a + f(p), 0);
    const secondsTotal = sum((p) => p.seconds);
    const ok = sum((p) => p.ok);
    const total = sum((p) => p.total);
    const times = list.flatMap((p) => p.times).sort((a, b) => a - b);
    const codes = {};
    for (const p of list) for (const [code, { count }] of Object.entries(p.codes ?? {})) codes[code] = (codes[code] ?? 0) + count;
    const r = {
      label: entry.label,
      rps: round2(ok / secondsTotal),
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
      mean: round2(times.reduce((a, t) => a + t, 0) / Math.max(1, times.length)),
      requests: total,
      ok,
      unexpected: total - ok,
      errors: sum((p) => p.errors),
      timeouts: sum((p) => p.timeouts),
      statusCodes: codes,
      seconds: secondsTotal,
      roundsRps: list.map((p) => round2(p.ok / p.seconds)),
      ...cpuPerRequest(list, ok, secondsTotal),
    };
    const profile = profiles.get(entry.key);
    if (profile) r.profile = profile.summary(total);
    const bad = r.unexpected + r.errors + r.timeouts;
    const flag = bad > 0 ? `  !! ${bad} not as expected (${JSON.stringify(codes)})` : "";
    const cpu =
      r.cpuMsPerRequest === null ? "" : `, CPU a request ${r.cpuMsPerRequest} ms (busiest process ${r.busiestCpuMsPerRequest} ms, ${r.busiestCoreShare} of a core)`;
    log(`${entry.label}: ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${cpu} (rounds ${r.roundsRps.join(", ")})${flag}`);
    out[entry.key] = r;
  }
  return out;
}

// --- the run ------------------------------------------------------------------------------------
async function main() {
  mkdirSync(resultsDir, { recursive: true });
  // The transparency log's section runs on its own (scripts/bench-log.mjs): `--only log`.
  if (ONLY?.includes("log")) {
    const { benchLog, printLog } = await import("./bench-log.mjs");
    const result = await benchLog({ log });
    printLog(result);
    const file = join(resultsDir, `log-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`\nResults: ${file}`);
    if (ONLY.length === 1) return;
  }
  // The credibility job's section (TypeScript, so under tsx, with the GC exposed for its heap
  // figures): the cross-agent job's computation at 100,000 operators and 10 million pairs.
  for (const [name, script] of [["credibility", "bench-credibility.ts"]]) {
    if (!ONLY?.includes(name)) continue;
    const run = spawnSync(process.execPath, ["--expose-gc", "--max-old-space-size=8192", "--import", "tsx", join(root, "scripts", script)], { cwd: root, stdio: "inherit" });
    if (run.status !== 0) throw new Error(`the ${name} benchmark failed`);
  }
  if (ONLY?.every((o) => o === "credibility" || o === "log")) return;
  const svcState = mkdtempSync(join(tmpdir(), "bench-service-"));
  const baseState = mkdtempSync(join(tmpdir(), "bench-baseline-"));
  tempDirs.push(svcState, baseState);
  const adminToken = `bench-${randomBytes(16).toString("hex")}`;
  const wranglerVersion = run(["--version"], root).trim();
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout?.trim() || null;
  const dirty = spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: root, encoding: "utf8" }).stdout?.trim().length > 0;

  log("bundling both Workers; applying D1 migrations to temp state dirs");
  const svcScript = build("service", root);
  const baseScript = build("baseline", baselineDir);
  migrateLocally(wrangler, root, childEnv, ["--persist-to", svcState]);
  migrateLocally(wrangler, baselineDir, childEnv, ["--persist-to", baseState]);

  const service = await startService("service", svcScript, svcState, adminToken);
  const [basePort, baseInspector] = await Promise.all([freePort(), freePort()]);
  const baseline = startWorker("baseline", baselineDir, baseScript, basePort, baseState, ["--inspector-port", String(baseInspector)]);
  const base = `http://${HOST}:${basePort}`;
  log(`starting the service on ${service.url} and the baseline on ${base}`);
  await Promise.all([waitReady(service.child, service.url, "/score/SID-0x0000000000000000"), waitReady(baseline, base, "/plain")]);
  let profiler = PROFILE ? await attachProfiler(service.inspector, svcScript) : null;
  const svc = service.url;

  // Seed: an owner and an independent (verified) reporter, both with custom huge limits.
  log(`seeding ${AGENTS} agents x ${TX_PER_AGENT} transactions`);
  const admin = { authorization: `Bearer ${adminToken}` };
  const operator = async (n, verified) => {
    const email = `bench-${n}-${randomBytes(4).toString("hex")}@example.com`;
    await expectStatus(api(svc, "/apply", { method: "POST", body: { name: `Bench ${n}`, email }, headers: { "cf-connecting-ip": `192.0.2.${100 + n}` } }), 201, "apply");
    const list = await expectStatus(api(svc, "/admin/applications?status=pending", { headers: admin }), 200, "list applications");
    const application = list.applications.find((a) => a.email === email);
    const approved = await expectStatus(api(svc, `/admin/applications/${application.id}/approve`, { method: "POST", headers: admin }), 200, "approve");
    await expectStatus(
      api(svc, `/admin/operators/${approved.operator.id}`, {
        method: "POST",
        headers: admin,
        body: { rate_limit_per_minute: 1_000_000, rate_limit_per_day: 100_000_000, verified },
      }),
      200,
      "custom limits",
    );
    return { id: approved.operator.id, auth: { authorization: `Bearer ${approved.api_key}` } };
  };
  const owner = await operator(1, false);
  const reporter = await operator(2, true);
  // One more agent than measured: the template the large data set copies, never under load, so its
  // history is exactly what seeding gave it.
  const seeded = await pool(Array.from({ length: AGENTS + 1 }, (_, i) => i), CONNECTIONS, async (i) => {
    const body = { name: `Bench agent ${i}`, modelProvider: "anthropic", modelName: "claude-sonnet", tools: ["search"] };
    return (await expectStatus(api(svc, "/register", { method: "POST", headers: owner.auth, body }), 201, "register")).sid;
  });
  await pool(seeded.flatMap((sid) => Array(TX_PER_AGENT).fill(sid)), CONNECTIONS, (sid) =>
    expectStatus(api(svc, "/transactions", { method: "POST", headers: reporter.auth, body: txBody(sid) }), 201, "transaction"),
  );
  const template = seeded.pop();
  const sids = seeded;
  const items = Array.from({ length: AGENTS }, (_, i) => `item-${i}`);
  const randomItem = (route) => () => {
    const item = pick(items);
    return { path: `/${route}/${item}`, body: txBody(item) };
  };

  // Each service measurement next to its baseline.
  const m = {};
  const pair = async (svcKey, svcLabel, svcSpec, baseKey, baseLabel, baseSpec) =>
    Object.assign(
      m,
      await measureSet(
        [
          { key: svcKey, label: `service  ${svcLabel}`, url: svc, spec: svcSpec, profile: true },
          { key: baseKey, label: `baseline ${baseLabel}`, url: base, spec: baseSpec },
        ],
        { profiler },
      ),
    );
  const scoreSpec = (list) => ({ headers: reporter.auth, next: () => ({ path: `/score/${pick(list)}` }) });

  if (want("score")) {
    await pair("score", "GET /score/{sid}", scoreSpec(sids), "read", "D1 point read by primary key", { next: () => ({ path: `/read/${pick(items)}` }) });
  }
  if (want("badge")) {
    // Every badge into the edge cache first (100 misses, under the 120/min per-IP limit).
    const warmed = await pool(sids, CONNECTIONS, (sid) => api(svc, `/badge/${sid}.svg`, { headers: { "cf-connecting-ip": "192.0.2.20" } }));
    const status = warmed.find((r) => r.status !== 200)?.status;
    if (status === undefined) {
      await pair("badge", "GET /badge/{sid}.svg (cached)", { next: () => ({ path: `/badge/${pick(sids)}.svg` }) }, "plain", "plain Hono route", {
        next: () => ({ path: "/plain" }),
      });
    } else {
      log(`skipping the badge: GET /badge/{sid}.svg answered ${status} (is registerBadges(app) in src/app.ts?)`);
    }
  }
  // Writes against both baselines: the bare one (a DO + D1 batch) and the fuller one (the same
  // behind authentication from a cached key, with one queue message per write).
  const fullAuth = { authorization: `Bearer ${BASELINE_KEY}` };
  const writes = (key, label, svcSpec, bare, full) =>
    measureSet(
      [
        { key, label: `service  ${label}`, url: svc, spec: svcSpec, profile: true },
        { key: bare.key, label: `baseline ${bare.label}`, url: base, spec: bare.spec },
        { key: full.key, label: `baseline ${full.label}`, url: base, spec: full.spec },
      ],
      { profiler },
    ).then((r) => Object.assign(m, r));
  if (want("txOne")) {
    const one = sids[0];
    await writes(
      "txOne",
      "POST /transactions (1 agent)",
      { method: "POST", headers: reporter.auth, next: () => ({ path: "/transactions", body: txBody(one) }) },
      { key: "writeOne", label: "DO + D1 batch write (1 object)", spec: { method: "POST", next: () => ({ path: `/write/${items[0]}`, body: txBody(items[0]) }) } },
      { key: "fullOne", label: "fuller: key, DO + D1, message (1 object)", spec: { method: "POST", headers: fullAuth, next: () => ({ path: `/full/write/${items[0]}`, body: txBody(items[0]) }) } },
    );
  }
  if (want("txMany")) {
    await writes(
      "txMany",
      "POST /transactions (100 agents)",
      { method: "POST", headers: reporter.auth, next: () => ({ path: "/transactions", body: txBody(pick(sids)) }) },
      { key: "writeMany", label: "DO + D1 batch write (100 objects)", spec: { method: "POST", next: randomItem("write") } },
      { key: "fullMany", label: "fuller: key, DO + D1, message (100 objects)", spec: { method: "POST", headers: fullAuth, next: randomItem("full/write") } },
    );
  }
  if (want("batch")) {
    // Reports per second: a batch of 100 reports (one on each agent) against the same reports one by one.
    const batchBody = () => ({ transactions: sids.map((sid) => ({ ...txBody(sid), idempotency_key: randomBytes(12).toString("hex") })) });
    Object.assign(
      m,
      await measureSet([
        // Two batches in flight (200 reports, against the singles' 10): a batch takes about a second
        // here, so 10 of them would outlast a round and count as nothing.
        { key: "batch", label: "service  POST /transactions/batch (100 reports)", url: svc, profile: true, spec: { method: "POST", connections: 2, headers: reporter.auth, next: () => ({ path: "/transactions/batch", body: batchBody() }) } },
        { key: "singles", label: "service  POST /transactions (100 agents)", url: svc, profile: true, spec: { method: "POST", headers: reporter.auth, next: () => ({ path: "/transactions", body: txBody(pick(sids)) }) } },
      ], { seconds: Math.max(DURATION, 40), profiler }),
    );
  }
  if (want("ceiling")) {
    Object.assign(
      m,
      await measureSet([{ key: "writeDirect", label: "baseline D1 batch write, no DO (D1 ceiling)", url: base, spec: { method: "POST", next: randomItem("write-direct") } }]),
    );
  }

  // The hot path cut short at each stage, interleaved; differences show what each stage costs.
  if (BREAKDOWN && want("breakdown")) {
    const unknownKey = { authorization: `Bearer sk_svc_${"0".repeat(64)}` };
    const stage = (key, label, spec) => ({ key, label: `service  ${label}`, url: svc, spec, profile: true });
    m.breakdown = await measureSet(
      [
        stage("noKey", "GET /score, no key (401)", { expect: 401, next: () => ({ path: `/score/${pick(sids)}` }) }),
        stage("unknownKey", "GET /score, unknown key (401)", { expect: 401, headers: unknownKey, next: () => ({ path: `/score/${pick(sids)}` }) }),
        stage("score", "GET /score (200)", scoreSpec(sids)),
        stage("txInvalid", "POST /transactions, bad outcome (400)", {
          expect: 400,
          method: "POST",
          headers: reporter.auth,
          next: () => ({ path: "/transactions", body: { ...txBody(pick(sids)), outcome: "unknown" } }),
        }),
        stage("txMany", "POST /transactions, 100 agents (201)", {
          method: "POST",
          headers: reporter.auth,
          next: () => ({ path: "/transactions", body: txBody(pick(sids)) }),
        }),
      ],
      { seconds: Math.max(ROUNDS, DURATION / 2), profiler },
    );
  }
  profiler?.close();
  profiler = null;

  // 100x the agents and their history, added to a copy of the stopped service's state; then the
  // small and the large service run side by side, measured in alternating slices.
  let counts = null;
  await stopWorker(service.child);
  if (want("large")) {
    log(`adding ${SCALE}x agents and history to a copy of the service's state`);
    const largeState = mkdtempSync(join(tmpdir(), "bench-service-large-"));
    tempDirs.push(largeState);
    cpSync(svcState, largeState, { recursive: true });
    counts = seedLarge(largeState, template);
    log(`large: ${counts.agents} agents, ${counts.entries} history entries`);
    const small = await startService("service (small)", svcScript, svcState, adminToken);
    const large = await startService("service (large)", svcScript, largeState, adminToken);
    await Promise.all([waitReady(small.child, small.url, "/score/SID-0x0000000000000000"), waitReady(large.child, large.url, "/score/SID-0x0000000000000000")]);
    // Both restarted on state whose agents' alarms (log checks) are due: measured once that is done.
    await Promise.all([waitIdle(small.child), waitIdle(large.child)]);
    const allSids = [...sids, ...Array.from({ length: AGENTS * SCALE - AGENTS }, (_, i) => largeSid(i + 1))];
    // The target's comparison: as many agents read in each (every SCALE-th of the large set, over its
    // shards), so both services' per-isolate directory caches are as warm and what differs is the
    // data's size. Reads spread over all the large set's agents are shown beside it: in a few seconds
    // nearly every one is an agent's first read in the isolate, which adds a directory query.
    const sample = allSids.filter((_, i) => i % SCALE === 0);
    const r = await measureSet([
      { key: "scoreSmall", label: `service  GET /score/{sid}, ${AGENTS} agents`, url: small.url, spec: scoreSpec(sids) },
      { key: "scoreLarge", label: `service  GET /score/{sid}, ${sample.length} of ${allSids.length}`, url: large.url, spec: scoreSpec(sample) },
      { key: "scoreLargeCold", label: `service  GET /score/{sid}, all ${allSids.length}`, url: large.url, spec: scoreSpec(allSids) },
    ]);
    Object.assign(m, r);
    await Promise.all([stopWorker(small.child), stopWorker(large.child)]);
  }
  await stopWorker(baseline);

  // D1 work per report, from D1's own result meta, on a metered service over the same state.
  let d1 = null;
  if (want("counts")) {
    const metered = await startService("service (D1 meter)", svcScript, svcState, adminToken, ["D1_METER:true"]);
    await waitReady(metered.child, metered.url, "/score/SID-0x0000000000000000");
    d1 = await countWork(metered.url, admin, reporter.auth, owner.auth, sids, svcState);
    await stopWorker(metered.child);
  }

  report(m, counts, d1, { wranglerVersion, commit, dirty });
}

/**
 * The work and cost of a report, measured on a metered service (D1_METER=true) over the bench's
 * state, phase by phase (REPORTS reports each): single reports across the 100 agents and on one
 * agent, with 1 KiB of metadata, new agents, batches of 100 over 100 agents and over 10, GET /score,
 * and a quiet window with no request at all. Each report phase is read twice: when its last answer
 * came (the load: the commits of the requests, the reports per commit) and after its
 * alarms had their time (the settle: commits no request made). Besides the meter (D1's own result
 * meta per database and table, queue messages per queue, object calls, alarms, the objects' SQLite
 * rows, the logs' counters), the state directory is read between phases: the objects' SQLite bytes
 * and the shards' entries by kind (scripts/bench-state.mjs). Each phase's figures are priced and set
 * beside the design's floor from the same phase's reports per commit and bytes (bench-cost.mjs).
 */
async function countWork(url, admin, auth, ownerAuth, sids, persistTo) {
  const REPORTS = 1000;
  const AGENTS_ADDED = 300;
  // Each database's size as last reported, carried over phases that did not touch it.
  const latest = {};
  const meter = async () => {
    const reading = await expectStatus(api(url, "/admin/d1-meter?reset=true", { headers: admin }), 200, "d1 meter");
    for (const [name, c] of Object.entries(reading.databases)) latest[name] = c.sizeAfter ?? latest[name] ?? null;
    return { databases: reading.databases, tables: reading.tables ?? {}, logs: reading.logs ?? {}, sizes: { ...latest } };
  };
  const state = () => ({ objects: objectStorage(persistTo, "Agent"), shards: shardHistory(persistTo), at: Date.now() });
  const send = (pickSid, concurrency, body = txBody, n = REPORTS) =>
    pool(Array.from({ length: n }, (_, i) => i), concurrency, (i) =>
      expectStatus(api(url, "/transactions", { method: "POST", headers: auth, body: body(pickSid(i)) }), 201, "transaction"),
    );
  // What a phase left waiting (acknowledgements, sends) goes out at its objects' alarms.
  const settle = () => sleep(SETTLE_S * 1000);
  /** A phase: its load read when the last answer came, then its settle; the state before and after. */
  const phase = async (load, { settles = true } = {}) => {
    const before = state();
    const t0 = Date.now();
    await load();
    const loadSeconds = (Date.now() - t0) / 1000;
    const loaded = await meter();
    if (settles) await settle();
    const settled = settles ? await meter() : loaded;
    return { loaded, settled, before, after: state(), loadSeconds };
  };
  const batches = (agentsPerBatch) => async () =>
    pool(Array.from({ length: REPORTS / 100 }, (_, b) => b), 2, async (b) => {
      const transactions = Array.from({ length: 100 }, (_, i) => ({ ...txBody(sids[(b * 7 + i) % agentsPerBatch]), idempotency_key: randomBytes(12).toString("hex") }));
      const out = await expectStatus(api(url, "/transactions/batch", { method: "POST", headers: auth, body: { transactions } }), 200, "batch");
      if (out.results.some((r) => r.status !== 201)) throw new Error(`batch: ${JSON.stringify(out.results.find((r) => r.status !== 201))}`);
    });

  const started = state();
  // Warm the isolate's caches (keys, directory) first, three reports on each agent: steady state is what is counted.
  await send((i) => sids[i % sids.length], CONNECTIONS, txBody, 3 * sids.length);
  await settle();
  const warm = await meter();
  const metadata = { note: "x".repeat(1000), order: "A-1", lines: 3 };
  const p = {};
  p.single = await phase(() => send((i) => sids[i % sids.length], CONNECTIONS));
  p.singleOneAgent = await phase(() => send(() => sids[0], 2 * CONNECTIONS));
  p.withMetadata = await phase(() => send((i) => sids[i % sids.length], CONNECTIONS, (sid) => ({ ...txBody(sid), metadata })));
  p.registered = await phase(() =>
    pool(Array.from({ length: AGENTS_ADDED }, (_, i) => i), CONNECTIONS, (i) =>
      expectStatus(api(url, "/register", { method: "POST", headers: ownerAuth, body: { name: `Sized ${i}`, modelProvider: "anthropic", modelName: "claude-sonnet", tools: ["search"] } }), 201, "register"),
    ),
  );
  p.batch100Agents = await phase(batches(100));
  p.batch10Agents = await phase(batches(10));
  // No request at all: what the objects do by themselves (alarms, their commits), per agent and day.
  // It also lets the reports' last alarms pass before the reads, whose figures are their load's.
  const quietFrom = state();
  await sleep(IDLE_S * 1000);
  const quiet = { reading: await meter(), before: quietFrom, after: state() };
  p.score = await phase(
    () => pool(Array.from({ length: REPORTS }, (_, i) => i), CONNECTIONS, (i) => expectStatus(api(url, `/score/${sids[i % sids.length]}`, { headers: auth }), 200, "score")),
    { settles: false },
  );
  const finished = state();

  // --- figures -------------------------------------------------------------------------------------
  const readings = (ph) => [ph.loaded, ph.settled];
  const isD1 = (name) => /(^|:)(DB|SHARD_\d+)$/.test(name);
  const isShard = (name) => /(^|:)SHARD_\d+$/.test(name);
  /** Sum of f over every database entry whose name passes test, over the readings. */
  const sumDb = (list, test, f) => list.reduce((a, r) => a + Object.entries(r.databases).filter(([n]) => test(n)).reduce((b, [, c]) => b + f(c), 0), 0);
  /** Sum over tables of shard databases (every scope), table by table. */
  const shardTables = (list) => {
    const out = {};
    for (const r of list)
      for (const [db, byTable] of Object.entries(r.tables))
        if (isShard(db))
          for (const [table, t] of Object.entries(byTable)) {
            const o = (out[table] ??= { batches: 0, statements: 0, rowsWritten: 0, changes: 0 });
            for (const k of Object.keys(o)) o[k] += t[k] ?? 0;
          }
    return out;
  };
  const logTotals = (r) => Object.values(r.logs).filter(Boolean).reduce((a, l) => ({ accepted: a.accepted + l.accepted, r2Writes: a.r2Writes + l.r2_writes }), { accepted: 0, r2Writes: 0 });
  // A sequencer counts the rows it wrote since its object started: one that restarted between two
  // readings counts from zero again, so its rows are at least those since the restart.
  const logRowsBetween = (from, to) =>
    Object.entries(to.logs)
      .filter(([, l]) => l)
      .reduce((sum, [name, l]) => {
        const before = from.logs[name]?.rows_written_since_start ?? 0;
        const after = l.rows_written_since_start;
        return sum + (after >= before ? after - before : after);
      }, 0);
  const bytesGrown = (from, to, names) => names.reduce((a, name) => a + ((to.sizes[name] ?? 0) - (from.sizes[name] ?? 0)), 0);
  const shardNames = () => Object.keys(latest).filter((name) => /^SHARD_\d+$/.test(name));
  // The sizes before a phase: the previous phase's last reading (or the warm-up's).
  const order = ["single", "singleOneAgent", "withMetadata", "registered", "batch100Agents", "batch10Agents", "score"];
  const previous = (key) => {
    if (key === "score") return quiet.reading;
    const i = order.indexOf(key);
    return i > 0 ? p[order[i - 1]].settled : warm;
  };

  /**
   * One phase's figures per report (n reports or reads): measured, and beside it the floor.
   * `requests` and `agentsPerRequest` describe the workload.
   */
  const figures = (key, n, { requests, agentsPerRequest, agents, read = false }) => {
    const ph = p[key];
    // A read's figures are its load's alone (it has no settle).
    const all = read ? [ph.loaded] : readings(ph);
    const per = (x) => round2(x / n);
    const calls = (re) => sumDb(all, (name) => re.test(name), (c) => c.statements);
    const tables = shardTables(all);
    // A commit of reports writes history entries: the shard batches that added entries.
    const entries = tables.entries ?? { batches: 0, rowsWritten: 0, changes: 0 };
    const commits = entries.batches;
    const from = previous(key);
    const d1Bytes = Math.round(bytesGrown(from, ph.settled, shardNames()) / n);
    const objectBytes = Math.round((ph.after.objects.bytes - ph.before.objects.bytes) / n);
    const added = entriesAdded(ph.before.shards, ph.after.shards);
    const logFrom = logTotals(from);
    const logTo = logTotals(ph.settled);
    const leaves = logTo.accepted - logFrom.accepted;
    const queue = (re) => sumDb(all, (name) => re.test(name), (c) => c.statements);
    const measured = {
      workerRequests: round2(requests / n),
      // Calls from the Worker and between objects; the agents' alarms too (billed like requests),
      // but not a read's (they are the earlier reports').
      objectCalls: per(calls(/(^|:)do:(AGENT|RATE_LIMITER|STATUS_LIST)$/) + (read ? 0 : calls(/(^|:)do:AGENT alarm$/))),
      agentCalls: per(calls(/(^|:)do:AGENT$/)),
      limiterCalls: per(calls(/(^|:)do:RATE_LIMITER$/)),
      alarms: per(calls(/(^|:)do:AGENT alarm$/)),
      d1RowsWritten: per(sumDb(all, isD1, (c) => c.rowsWritten)),
      d1RowsRead: per(sumDb(all, isD1, (c) => c.rowsRead)),
      shardRowsWritten: per(sumDb(all, isShard, (c) => c.rowsWritten)),
      controlRowsWritten: per(sumDb(all, (name) => /(^|:)DB$/.test(name), (c) => c.rowsWritten)),
      shardRowsByTable: Object.fromEntries(Object.entries(tables).map(([t, c]) => [t, per(c.rowsWritten)])),
      shardBatches: per(sumDb(all, isShard, (c) => c.batches)),
      // Commits no request made: shard batches after the phase's last answer, outside the queues' consumers and the cron.
      backgroundCommits: per(sumDb([ph.settled], (name) => /^SHARD_\d+$/.test(name), (c) => c.batches)),
      commits: per(commits),
      reportsPerCommit: commits > 0 ? round2(n / commits) : null,
      entriesAdded: added,
      objectRowsWritten: per(sumDb(all, (name) => name === "do:AGENT storage", (c) => c.rowsWritten)),
      objectBytes,
      objectsWithStorage: ph.after.objects.objects,
      queueMessages: per(queue(/(^|:)queue:(EVENTS|LOG_QUEUE|DELIVERIES)$/)),
      queueMessagesByQueue: {
        log: per(queue(/(^|:)queue:LOG_QUEUE$/)),
        events: per(queue(/(^|:)queue:EVENTS$/)),
        deliveries: per(queue(/(^|:)queue:DELIVERIES$/)),
      },
      d1Bytes,
      leaves,
      sequencerCalls: calls(/(^|:)do:LOG_SEQUENCER$/),
      logRowsWritten: logRowsBetween(from, ph.settled),
      logR2Writes: logTo.r2Writes - logFrom.r2Writes,
      loadSeconds: round2(ph.loadSeconds),
    };
    measured.queueOperations = round2(measured.queueMessages * PRICES.queueOperationsPerMessage);
    // The meter sees the shards only through the bindings it wraps: entries the shards gained that
    // it did not see mean a writer it does not wrap (an object not given metering(env)).
    const onDisk = Object.values(added).reduce((a, v) => a + v, 0);
    if (!read && onDisk > 0 && entries.changes < 0.9 * onDisk) {
      measured.warning = `the shards gained ${onDisk} entries, the meter saw ${entries.changes} written: a writer outside the meter (is the agent's object given metering(env)?)`;
    }
    measured.cost = costPerMillion(measured);
    // The design's cost targets are per report without the log: its messages are the log's, priced with it below.
    measured.costWithoutLog = costPerMillion({ ...measured, queueMessages: measured.queueMessages - measured.queueMessagesByQueue.log });
    if (read) return { measured, floor: readFloor() };
    // The entry and its index rows, as measured (rows written over the rows themselves); 1 before any.
    const entryRows = entries.changes > 0 ? round2(entries.rowsWritten / entries.changes) : 1;
    // Reports per commit as measured, within what the design allows: a commit is one agent's (so a
    // batch over k agents is at least k commits, whatever its D1 batches) and carries a report at least.
    const fewestCommits = requests < n ? requests * agentsPerRequest : agents;
    const reportsPerCommit = Math.max(1, n / Math.max(commits, fewestCommits));
    const floor = floorPerReport({ workerRequests: measured.workerRequests, objectCalls: round2((requests * agentsPerRequest) / n), entryRows, reportsPerCommit, d1Bytes });
    floor.entryRows = entryRows;
    floor.reportsPerCommit = round2(reportsPerCommit);
    return { measured, floor };
  };

  const phases = {
    single: figures("single", REPORTS, { requests: REPORTS, agentsPerRequest: 1, agents: sids.length }),
    singleOneAgent: figures("singleOneAgent", REPORTS, { requests: REPORTS, agentsPerRequest: 1, agents: 1 }),
    withMetadata: figures("withMetadata", REPORTS, { requests: REPORTS, agentsPerRequest: 1, agents: sids.length }),
    batch100Agents: figures("batch100Agents", REPORTS, { requests: REPORTS / 100, agentsPerRequest: 100, agents: 100 }),
    batch10Agents: figures("batch10Agents", REPORTS, { requests: REPORTS / 100, agentsPerRequest: 10, agents: 10 }),
    score: figures("score", REPORTS, { requests: REPORTS, agentsPerRequest: 0, agents: 0, read: true }),
  };
  for (const f of Object.values(phases)) {
    const ratio = (a, b) => (b > 0 ? round2(a / b) : null);
    f.ratio = {
      d1RowsWritten: ratio(f.measured.d1RowsWritten, f.floor.d1RowsWritten),
      objectCalls: ratio(f.measured.objectCalls, f.floor.objectCalls),
      queueMessages: ratio(f.measured.queueMessages, f.floor.queueMessages),
      cost: ratio(f.measured.cost.total, f.floor.cost.total),
    };
  }

  // The log apart: per leaf over the report phases that sent leaves.
  const reportPhases = ["single", "singleOneAgent", "withMetadata", "batch100Agents", "batch10Agents"].map((k) => phases[k].measured);
  const leaves = reportPhases.reduce((a, f) => a + (f.leaves ?? 0), 0);
  const perLeaf = (f) => (leaves > 0 ? reportPhases.reduce((a, x) => a + (f(x) ?? 0), 0) / leaves : 0);
  const logFigures = {
    leaves,
    reports: REPORTS * reportPhases.length,
    sequencerCallsPerLeaf: round2(perLeaf((x) => x.sequencerCalls)),
    rowsPerLeaf: round2(perLeaf((x) => x.logRowsWritten)),
    r2WritesPerLeaf: Math.round(perLeaf((x) => x.logR2Writes) * 10_000) / 10_000,
    logQueueMessagesPerLeaf: round2(perLeaf((x) => x.queueMessagesByQueue.log * REPORTS)),
  };
  logFigures.cost = logCostPerMillionLeaves(logFigures);

  // Quiet window: per agent and day, over every agent on the shards.
  const agents = quiet.after.shards.agents;
  const perAgentDay = (x) => (agents > 0 ? round2((x / agents) * (86_400 / IDLE_S)) : null);
  const q = quiet.reading;
  const quietFigures = {
    seconds: IDLE_S,
    agents,
    alarms: sumDb([q], (name) => /(^|:)do:AGENT alarm$/.test(name), (c) => c.statements),
    commits: sumDb([q], (name) => /^SHARD_\d+$/.test(name), (c) => c.batches),
    shardRowsWritten: sumDb([q], (name) => /^SHARD_\d+$/.test(name), (c) => c.rowsWritten),
    objectRowsWritten: sumDb([q], (name) => name === "do:AGENT storage", (c) => c.rowsWritten),
    entriesAdded: entriesAdded(quiet.before.shards, quiet.after.shards),
  };
  quietFigures.alarmsPerAgentPerDay = perAgentDay(quietFigures.alarms);
  quietFigures.commitsPerAgentPerDay = perAgentDay(quietFigures.commits);
  // Credibility entries: every one the counts phase saw, per agent and day of the phase's length.
  const countedSeconds = (finished.at - started.at) / 1000;
  const credibility = entriesAdded(started.shards, finished.shards).credibility ?? 0;

  return {
    reports: REPORTS,
    settleSeconds: SETTLE_S,
    prices: PRICES,
    phases,
    log: logFigures,
    quiet: quietFigures,
    credibility: { entries: credibility, seconds: Math.round(countedSeconds), agents, perAgentPerDay: agents > 0 ? round2((credibility / agents) * (86_400 / countedSeconds)) : null },
    storage: {
      shardBytesPerReport: phases.single.measured.d1Bytes,
      shardBytesPerReportWith1KiBMetadata: phases.withMetadata.measured.d1Bytes,
      shardBytesPerAgent: Math.round(bytesGrown(previous("registered"), p.registered.settled, shardNames()) / AGENTS_ADDED),
      objectBytesPerAgent: Math.round((p.registered.after.objects.bytes - p.registered.before.objects.bytes) / AGENTS_ADDED),
      objects: finished.objects,
      sizes: { ...latest },
    },
    raw: Object.fromEntries(Object.entries(p).map(([k, ph]) => [k, { loaded: ph.loaded, settled: ph.settled }])),
  };
}

const largeSid = (i) => `SID-0xbe${i.toString(16).padStart(14, "0")}`;

/**
 * One SQL file per database: each generated agent copies the template agent's row and history under
 * a new SID, directory number and ids, spread over the shards like registration spreads them, and
 * enters the control database's directory.
 */
function seedLarge(persistTo, templateSid) {
  const [control, ...shards] = databaseNames(root);
  const d1 = (database, extra) => JSON.parse(run(["d1", "execute", database, "--local", "--persist-to", persistTo, "--json", ...extra], root));
  const query = (database, sql) => d1(database, ["--command", sql])[0].results;
  const [entry] = query(control, `SELECT shard FROM agent_directory WHERE sid = '${templateSid}'`);
  const home = shards[entry.shard];
  // The agent's tables that exist on this schema (pairs with the shard as the record; config_history before it).
  const present = new Set(query(home, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => r.name));
  const tables = Object.fromEntries(["agents", "entries", "pairs", "config_history"].filter((t) => present.has(t)).map((t) => [t, "sid"]));
  const n = AGENTS * SCALE - AGENTS;
  const FIRST = 1_000_000; // directory numbers of the generated agents
  const literal = (v) => (v === null ? "NULL" : typeof v === "number" ? String(v) : typeof v === "object" ? `X'${v.hex}'` : `'${String(v).replace(/'/g, "''")}'`);

  const perShard = shards.map(() => []);
  for (const table of Object.keys(tables)) {
    // A column may hold BLOBs (an entry's text: src/db/entry-text.ts), which the CLI prints
    // ambiguously: those are copied as hex. Which ones, asked first (in parts: D1 caps a result's columns).
    const columns = query(home, `PRAGMA table_info(${table})`).map((c) => c.name);
    const blobs = new Set();
    for (let i = 0; i < columns.length; i += 90) {
      const part = columns.slice(i, i + 90);
      for (const r of query(home, `SELECT ${part.map((c, j) => `typeof(${c}) AS t${j}`).join(", ")} FROM ${table} WHERE sid = '${templateSid}'`)) {
        part.forEach((c, j) => r[`t${j}`] === "blob" && blobs.add(c));
      }
    }
    const packed = [...blobs];
    const extra = packed.map((c) => `, hex(${c}) AS ${c}_hex, typeof(${c}) AS ${c}_type`).join("");
    const rows = query(home, `SELECT *${extra} FROM ${table} WHERE sid = '${templateSid}'`);
    if (rows.length === 0) continue;
    for (const r of rows) for (const c of packed) if (r[`${c}_type`] === "blob") r[c] = { hex: r[`${c}_hex`] };
    const helpers = new Set(packed.flatMap((c) => [`${c}_hex`, `${c}_type`]));
    const cols = Object.keys(rows[0]).filter((c) => c !== "id" && !helpers.has(c));
    const template = `t(${cols.join(", ")}) AS (VALUES ${rows.map((r) => `(${cols.map((c) => literal(r[c])).join(", ")})`).join(", ")})`;
    const value = (c) => {
      if (c === "sid") return "'SID-0xbe' || printf('%014x', n.i)";
      if (table === "agents" && c === "name") return "'Bench agent ' || n.i";
      if (table === "agents" && c === "dir_num") return `${FIRST} + n.i`;
      return `t.${c}`;
    };
    shards.forEach((_, s) => {
      perShard[s].push(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n}), ${template}
INSERT INTO ${table} (${cols.join(", ")}) SELECT ${cols.map(value).join(", ")} FROM n, t WHERE n.i % ${shards.length} = ${s};`,
      );
    });
  }
  const directory = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})
INSERT INTO agent_directory (num, sid, shard, operator_id, created_at)
SELECT ${FIRST} + n.i, 'SID-0xbe' || printf('%014x', n.i), n.i % ${shards.length}, d.operator_id, d.created_at FROM n, (SELECT * FROM agent_directory WHERE sid = '${templateSid}') d;`;
  const files = [[control, directory], ...shards.map((name, i) => [name, perShard[i].join("\n")])];
  for (const [database, sql] of files) {
    const file = join(persistTo, `bench-large-${database}.sql`);
    writeFileSync(file, `${sql}\n`);
    d1(database, ["--file", file, "--yes"]);
  }
  const counted = { agents: 0, entries: 0 };
  for (const shard of shards) {
    const [c] = query(shard, "SELECT (SELECT count(*) FROM agents) AS agents, (SELECT count(*) FROM entries) AS entries");
    for (const k of Object.keys(counted)) counted[k] += c[k];
  }
  return counted;
}

// --- profiler (--profile) -----------------------------------------------------------------------
/**
 * V8's sampling profiler on the service's isolate, through wrangler's inspector proxy. Samples are
 * summed per package (node_modules/<pkg>) or source file (src/...), using the section comments
 * esbuild leaves in wrangler's bundle, and reported as CPU time per request.
 */
async function attachProfiler(inspectorPort, bundle) {
  // The inspector proxy may come up a moment after the Worker answers.
  let ws;
  for (let attempt = 1; ; attempt++) {
    ws = new WebSocket(`ws://${HOST}:${inspectorPort}/ws`, { headers: { Origin: "http://localhost" } });
    const opened = await new Promise((resolve) => {
      ws.addEventListener("open", () => resolve(true));
      ws.addEventListener("error", () => resolve(false));
    });
    if (opened) break;
    if (attempt === 20) throw new Error("cannot attach the profiler to the inspector port");
    await sleep(500);
  }
  let nextId = 0;
  const pending = new Map();
  ws.addEventListener("message", (e) => {
    const msg = JSON.parse(String(e.data));
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  // Bounded: if the inspector stops answering, the run goes on without the profile.
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the inspector did not answer ${method}`));
      }, 15_000);
      pending.set(id, (msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 });
  const outDir = mkdtempSync(join(tmpdir(), "bench-profiles-"));
  log(`profiling the service; .cpuprofile files (open them in Chrome DevTools) go to ${outDir}`);

  let moduleOf = null;
  const moduleMap = () => {
    // esbuild's section comments in the bundle name the module of each line.
    const sections = [];
    readFileSync(bundle, "utf8")
      .split("\n")
      .forEach((line, i) => {
        const match = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(line);
        if (match) sections.push([i, match[1]]);
      });
    return (line) => {
      let lo = 0;
      let hi = sections.length - 1;
      let found = "index.js";
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (sections[mid][0] <= line) {
          found = sections[mid][1];
          lo = mid + 1;
        } else hi = mid - 1;
      }
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(found);
      return pkg ? pkg[1] : found;
    };
  };

  return {
    start: () => send("Profiler.start"),
    /** Stops the profiler and adds its samples to `acc` (one accumulator per measurement). */
    async stop(label, acc = { byModule: new Map(), busyMs: 0, first: true }) {
      const { result } = await send("Profiler.stop");
      const profile = result.profile;
      if (acc.first) {
        writeFileSync(join(outDir, `${label.trim().replace(/[^a-z0-9]+/gi, "-")}.cpuprofile`), JSON.stringify(profile));
        acc.first = false;
      }
      moduleOf ??= moduleMap();
      const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
      const msPerSample = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length) / 1000;
      for (const id of profile.samples) {
        const frame = nodes.get(id);
        if (frame.functionName === "(idle)") continue;
        const where = !frame.url
          ? frame.functionName.startsWith("(")
            ? frame.functionName
            : "(runtime: fetch, RPC, cache, crypto, ...)"
          : frame.url.endsWith("index.js")
            ? moduleOf(frame.lineNumber)
            : frame.url;
        acc.byModule.set(where, (acc.byModule.get(where) ?? 0) + msPerSample);
        acc.busyMs += msPerSample;
      }
      acc.summary = (requests) => {
        const perRequest = (ms) => Math.round((ms * 1000) / Math.max(1, requests));
        const top = [...acc.byModule].sort((a, b) => b[1] - a[1]).slice(0, 10);
        return {
          cpuMicrosPerRequest: perRequest(acc.busyMs),
          topMicrosPerRequest: Object.fromEntries(top.map(([k, v]) => [k, perRequest(v)])),
          lines: [
            `CPU profile, ${label.trim()}: ${perRequest(acc.busyMs)} µs of isolate CPU per request`,
            ...top.map(([k, v]) => `  ${String(perRequest(v)).padStart(6)} µs  ${k}`),
          ],
        };
      };
      return acc;
    },
    failed: false,
    close: () => ws.close(),
  };
}

// --- report -------------------------------------------------------------------------------------
const PHASES = [
  ["single", "single, 100 agents"],
  ["singleOneAgent", "single, 1 agent"],
  ["withMetadata", "single, 1 KiB metadata"],
  ["batch100Agents", "batches of 100, 100 agents"],
  ["batch10Agents", "batches of 100, 10 agents"],
  ["score", "GET /score (per read)"],
];

/** The counts phase's lines: each figure beside its floor, the rows and bytes, the log apart, the quiet window. */
function workLines(w) {
  const num = (x, width) => String(x ?? "-").padStart(width);
  const x = (r) => (r === null || r === undefined ? "-" : `${r.toFixed(2)}x`);
  const usd = (v) => `$${v.toFixed(2)}`;
  const lines = [
    "",
    `Per report, measured beside the design's floor (metered service, ${w.reports} reports a phase; floor from the phase's measured reports per commit and shard bytes; list prices ${PRICES.date})`,
    `  ${"phase".padEnd(28)}${num("D1 rows", 8)}${num("floor", 7)}${num("ratio", 7)} |${num("obj calls", 10)}${num("floor", 7)} |${num("queue ops", 10)}${num("floor", 7)} |${num("$/M", 8)}${num("floor", 8)}${num("ratio", 7)} |${num("reports/commit", 15)}`,
    `  ${"".padEnd(28)}${"".padEnd(22)} |${"".padEnd(17)} |${"".padEnd(17)} |${"".padEnd(23)} |${num("meas. / floor", 15)}`,
  ];
  for (const [key, label] of PHASES) {
    const f = w.phases[key];
    const { measured: me, floor: fl, ratio: r } = f;
    lines.push(
      `  ${label.padEnd(28)}${num(me.d1RowsWritten, 8)}${num(round2(fl.d1RowsWritten), 7)}${num(x(r.d1RowsWritten), 7)} |${num(me.objectCalls, 10)}${num(round2(fl.objectCalls), 7)} |` +
        `${num(me.queueOperations, 10)}${num(round2(fl.queueMessages * PRICES.queueOperationsPerMessage), 7)} |${num(usd(me.cost.total), 8)}${num(usd(fl.cost.total), 8)}${num(x(r.cost), 7)} |${num(key === "score" ? "-" : `${me.reportsPerCommit ?? "-"} / ${fl.reportsPerCommit}`, 15)}`,
    );
  }
  lines.push(
    "",
    "Rows and bytes per report (D1 and the agents' objects), queue messages, what no request did",
    `  ${"phase".padEnd(28)}${num("shard rows by table", 44)}${num("control", 8)}${num("obj rows", 9)}${num("shard B", 8)}${num("obj B", 7)}${num("alarms", 7)}${num("bg commits", 11)}  queue msgs log/events/deliv.  entries added`,
  );
  for (const [key, label] of PHASES) {
    const me = w.phases[key].measured;
    const tables = Object.entries(me.shardRowsByTable).filter(([, v]) => v > 0).map(([t, v]) => `${t} ${v}`).join(", ") || "-";
    const q = me.queueMessagesByQueue;
    const added = Object.entries(me.entriesAdded).map(([k, v]) => `${k} ${v}`).join(", ") || "-";
    lines.push(
      `  ${label.padEnd(28)}${num(tables, 44)}${num(me.controlRowsWritten, 8)}${num(me.objectRowsWritten, 9)}${num(me.d1Bytes, 8)}${num(me.objectBytes, 7)}${num(me.alarms, 7)}${num(me.backgroundCommits, 11)}  ${`${q.log}/${q.events}/${q.deliveries}`.padEnd(29)}  ${added}`,
    );
  }
  lines.push("", "Cost per million, measured | floor:");
  for (const [key, label] of PHASES) {
    const f = w.phases[key];
    lines.push(costLines(`${label}, measured`, f.measured.cost), costLines(`${label}, floor`, f.floor.cost));
  }
  for (const [key, label] of PHASES) if (w.phases[key].measured.warning) lines.push(`  !! ${label}: ${w.phases[key].measured.warning}`);
  const s = w.phases.single;
  const b10 = w.phases.batch10Agents;
  const b100 = w.phases.batch100Agents;
  const within = (f) => f.ratio.cost !== null && f.ratio.cost <= COST_TARGETS.floorRatio;
  const yes = (ok) => (ok ? "yes" : "NO");
  lines.push(
    "",
    `Targets: measured $ within 10% of the floor: ${PHASES.slice(0, 5).map(([key, label]) => `${label} ${x(w.phases[key].ratio.cost)} ${yes(within(w.phases[key]))}`).join("; ")}`,
    `  D1 rows ≤ ${COST_TARGETS.d1Rows.single} per single report (100 agents): ${s.measured.d1RowsWritten} ${yes(s.measured.d1RowsWritten <= COST_TARGETS.d1Rows.single)}; ` +
      `≤ ${COST_TARGETS.d1Rows.batch10Agents} in batches of 100 over 10 agents: ${b10.measured.d1RowsWritten} ${yes(b10.measured.d1RowsWritten <= COST_TARGETS.d1Rows.batch10Agents)}`,
    `  $ per million reports without the log (its queue messages priced with it below) ≤ $${COST_TARGETS.dollars.single} single over 100 agents: ${usd(s.measured.costWithoutLog.total)} ${yes(s.measured.costWithoutLog.total <= COST_TARGETS.dollars.single)}; ` +
      `≤ $${COST_TARGETS.dollars.batch10Agents} in batches of 100 over 10 agents: ${usd(b10.measured.costWithoutLog.total)} ${yes(b10.measured.costWithoutLog.total <= COST_TARGETS.dollars.batch10Agents)} ` +
      `(over 100 agents ${usd(b100.measured.costWithoutLog.total)}; with the log's messages ${usd(s.measured.cost.total)}, ${usd(b10.measured.cost.total)} and ${usd(b100.measured.cost.total)})`,
  );
  const l = w.log;
  lines.push(
    "",
    `Transparency log, apart (${l.leaves} leaves accepted over ${l.reports} reports): per leaf ${l.sequencerCallsPerLeaf} sequencer calls, ${l.rowsPerLeaf} rows written in it, ` +
      `${l.r2WritesPerLeaf} R2 writes, ${l.logQueueMessagesPerLeaf} trust-log messages (also in the reports' queue operations above)`,
    costLines("the log per million leaves", l.cost),
  );
  const q = w.quiet;
  const c = w.credibility;
  lines.push(
    `Quiet window (${q.seconds} s, no request, ${q.agents} agents on the shards): ${q.alarms} alarms, ${q.commits} shard commits, ${q.shardRowsWritten} shard rows, ${q.objectRowsWritten} object rows; ` +
      `per agent per day ${q.alarmsPerAgentPerDay} alarms, ${q.commitsPerAgentPerDay} alarm commits (extrapolated from ${q.seconds} s)`,
    `Credibility entries: ${c.entries} over the ${c.seconds} s of the counts phase (${c.perAgentPerDay} per agent per day; none without a credibility snapshot, which the bench does not make)`,
    `Storage: shard ${w.storage.shardBytesPerReport} B per report (${w.storage.shardBytesPerReportWith1KiBMetadata} B with 1 KiB of metadata), ${w.storage.shardBytesPerAgent} B per new agent; ` +
      `agents' objects: ${w.storage.objects.objects} with storage, ${w.storage.objects.bytes} B in all, ${w.storage.objectBytesPerAgent} B per new agent`,
    `  each report phase's settle was ${w.settleSeconds} s after its last answer; object duration priced at ${OBJECT_CALL_MS} ms a call`,
  );
  return lines;
}

function report(m, counts, d1, { wranglerVersion, commit, dirty }) {
  const ratio = (a, b) => (a && b && b.rps > 0 ? round2(a.rps / b.rps) : null);
  const latencyRatio = (a, b, key) => (a && b && b[key] > 0 ? round2(a[key] / b[key]) : null);
  const comparisons = [
    { key: "score", what: "GET /score/{sid}", service: m.score, baseline: m.read, baselineWhat: "D1 point read", ratio: ratio(m.score, m.read) },
    { key: "badge", what: "GET /badge/{sid}.svg (cached)", service: m.badge, baseline: m.plain, baselineWhat: "bare Hono route", ratio: ratio(m.badge, m.plain) },
    { key: "txOne", what: "POST /transactions, 1 agent", service: m.txOne, baseline: m.writeOne, baselineWhat: "DO+D1 write, 1 object", ratio: ratio(m.txOne, m.writeOne) },
    { key: "txOneFull", what: "POST /transactions, 1 agent", service: m.txOne, baseline: m.fullOne, baselineWhat: "fuller, 1 object", ratio: ratio(m.txOne, m.fullOne) },
    { key: "txMany", what: "POST /transactions, 100 agents", service: m.txMany, baseline: m.writeMany, baselineWhat: "DO+D1 write, 100 objects", ratio: ratio(m.txMany, m.writeMany) },
    { key: "txManyFull", what: "POST /transactions, 100 agents", service: m.txMany, baseline: m.fullMany, baselineWhat: "fuller, 100 objects", ratio: ratio(m.txMany, m.fullMany) },
    {
      key: "large",
      what: `GET /score, ${counts?.agents ?? AGENTS * SCALE} agents`,
      service: m.scoreLarge,
      baseline: m.scoreSmall,
      baselineWhat: `same, ${AGENTS} agents`,
      ratio: latencyRatio(m.scoreLarge, m.scoreSmall, "p50"),
      p99Ratio: latencyRatio(m.scoreLarge, m.scoreSmall, "p99"),
    },
  ];
  if (m.batch && m.singles) {
    // Reports per second: each batch carries 100.
    const perReport = (ms) => ms && round2(ms / 100);
    const batchReports = {
      ...m.batch,
      rps: round2(m.batch.rps * 100),
      cpuMsPerRequest: perReport(m.batch.cpuMsPerRequest),
      busiestCpuMsPerRequest: perReport(m.batch.busiestCpuMsPerRequest),
    };
    comparisons.unshift({ key: "batch", what: "reports/s in batches of 100", service: batchReports, baseline: m.singles, baselineWhat: "single reports, 100 agents", ratio: ratio(batchReports, m.singles) });
  }
  for (const c of comparisons) {
    const t = TARGETS[c.key];
    c.target = t?.text ?? "(shown)";
    c.met = c.ratio === null || !t ? null : t.min !== undefined ? c.ratio >= t.min : c.ratio <= t.max;
  }

  const num = (x, w) => String(x ?? "").padStart(w);
  const cell = (r) => (r ? `${num(r.rps, 8)} ${num(r.p50, 7)} ${num(r.p99, 7)}` : `${num("n/a", 8)} ${num("", 7)} ${num("", 7)}`);
  const lines = [
    "",
    `${"".padEnd(32)} ${"service".padEnd(24)} | ${"baseline".padEnd(50)} |`,
    `${"measurement".padEnd(32)} ${num("req/s", 8)} ${num("p50 ms", 7)} ${num("p99 ms", 7)} | ${"".padEnd(26)}${num("req/s", 8)} ${num("p50 ms", 7)} ${num("p99 ms", 7)} | ratio  target               met`,
  ];
  for (const c of comparisons) {
    const ratioText = c.ratio === null ? "n/a" : `${c.ratio.toFixed(2)}x`;
    const met = c.met === null ? "-" : c.met ? "yes" : "NO";
    lines.push(`${c.what.padEnd(32)} ${cell(c.service)} | ${c.baselineWhat.padEnd(26)}${cell(c.baseline)} | ${ratioText.padEnd(6)} ${c.target.padEnd(21)}${met}`);
  }
  const cpuRows = comparisons.filter((c) => c.key !== "large" && c.service?.cpuMsPerRequest && c.baseline?.cpuMsPerRequest);
  if (cpuRows.length > 0) {
    lines.push(
      "",
      "CPU a request (a report, for batches), in ms: each Worker's processes during its own slices, in all and in the busiest one; ratios baseline over service",
      `${"".padEnd(32)} ${num("all", 6)} ${num("busiest", 13)} | ${"".padEnd(26)} ${num("all", 6)} ${num("busiest", 13)} | ${num("all", 5)} ${num("busiest", 8)}`,
    );
    const cpuCell = (r) => {
      const share = r.busiestCoreShare === null ? "" : ` (${r.busiestCoreShare.toFixed(2)})`;
      return `${num(r.cpuMsPerRequest.toFixed(2), 6)} ${num(`${r.busiestCpuMsPerRequest.toFixed(2)}${share}`, 13)}`;
    };
    const over = (b, s, w) => num(`${(b / s).toFixed(2)}x`, w);
    for (const { what, service: s, baseline: b, baselineWhat } of cpuRows) {
      lines.push(
        `${what.padEnd(32)} ${cpuCell(s)} | ${baselineWhat.padEnd(26)} ${cpuCell(b)} | ` +
          `${over(b.cpuMsPerRequest, s.cpuMsPerRequest, 5)} ${over(b.busiestCpuMsPerRequest, s.busiestCpuMsPerRequest, 8)}`,
      );
    }
    lines.push("  (in parentheses: the busiest process's share of a core over the slices; near 1, it bounds the rate)");
  }
  lines.push("");
  if (m.writeDirect) {
    lines.push(`D1 write ceiling (INSERT + UPDATE batch straight from the Worker, 100 rows): ${m.writeDirect.rps} req/s, p50 ${m.writeDirect.p50} ms, p99 ${m.writeDirect.p99} ms`);
  }
  const large = comparisons.find((c) => c.key === "large");
  if (m.scoreLarge) lines.push(`GET /score latency, large over small (${AGENTS} agents read in each): p50 ${large.ratio}x, p99 ${large.p99Ratio}x`);
  if (m.scoreLargeCold && m.scoreSmall) {
    lines.push(
      `GET /score over all ${counts?.agents ?? AGENTS * SCALE} agents (nearly every read an agent's first in the isolate: a directory query more): ` +
        `${m.scoreLargeCold.rps} req/s, p50 ${m.scoreLargeCold.p50} ms (${latencyRatio(m.scoreLargeCold, m.scoreSmall, "p50")}x small), p99 ${m.scoreLargeCold.p99} ms`,
    );
  }
  if (d1) lines.push(...workLines(d1));
  lines.push(
    "Ratios: req/s of the service over req/s of its baseline; for the large data set, p50 latency large over small. " +
      "The fuller baseline: the bare write behind authentication from a cached key, with one queue message per write.",
  );

  if (m.breakdown) {
    const b = m.breakdown;
    const ms = (r) => (r && r.rps > 0 ? 1000 / r.rps : null);
    const row = (what, r, prev, note) => {
      const cost = ms(r) !== null && prev && ms(prev) !== null ? `+${(ms(r) - ms(prev)).toFixed(2)}` : "";
      return `  ${what.padEnd(40)} ${num(r?.rps ?? "n/a", 8)} ${num(ms(r)?.toFixed(2), 7)} ${num(cost, 7)}  ${note}`;
    };
    lines.push(
      "",
      `Hot-path breakdown (service, interleaved; ms/req = 1000 / req/s, the server's time per request at ${CONNECTIONS} connections)`,
      `  ${"stage".padEnd(40)} ${num("req/s", 8)} ${num("ms/req", 7)} ${num("+ms", 7)}  what the step adds`,
      row("GET /score, no key (401)", b.noKey, null, "app, middleware, routing, error rendering"),
      row("GET /score, unknown key (401)", b.unknownKey, b.noKey, "key lookup: sha256 + API key read (D1)"),
      row("GET /score (200)", b.score, b.unknownKey, "valid key: rate-limit object; agent read (D1), scoring, JSON"),
      row("POST /transactions, bad outcome (400)", b.txInvalid, b.unknownKey, "valid key: rate-limit object; body read, zod"),
      row("POST /transactions, 100 agents (201)", b.txMany, b.txInvalid, "scorer object: scoring, its D1 batch, badge purge"),
    );
  }
  for (const r of [m.score, m.badge, m.txOne, m.txMany, m.batch, m.singles, ...Object.values(m.breakdown ?? {})]) {
    if (r?.profile) lines.push("", ...r.profile.lines);
  }
  if (PROFILE) lines.push("", "PROFILED RUN: the profiler slows the service, so its ratios are not comparable with the targets.");
  lines.push(
    "",
    `${CONNECTIONS} connections; ${DURATION}s per measurement in ${ROUNDS} alternating rounds after ${WARMUP}s warm-up; ` +
      `${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load ${startLoad.map((x) => x.toFixed(2)).join(" ")}; ` +
      `Node ${process.version}, wrangler ${wranglerVersion}; commit ${commit ?? "?"}${dirty ? " + uncommitted changes" : ""}`,
  );
  console.log(lines.join("\n"));

  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = join(resultsDir, `${stamp}.json`);
  const out = {
    startedAt: new Date(started).toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    commit,
    uncommittedChanges: dirty,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, wrangler: wranglerVersion, platform: process.platform },
    loadAverage: { start: startLoad, end: loadavg() },
    settings: { profiled: PROFILE, connections: CONNECTIONS, durationSeconds: DURATION, rounds: ROUNDS, warmupSeconds: WARMUP, agents: AGENTS, transactionsPerAgent: TX_PER_AGENT, scale: SCALE },
    largeDataset: counts,
    work: d1,
    measurements: m,
    comparisons: comparisons.map(({ service, baseline, ...c }) => ({ ...c, service: service?.label ?? null, baseline: baseline?.label ?? null })),
  };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\nResults: ${file}`);
}

main()
  .then(() => {
    cleanupSync();
    process.exit(0);
  })
  .catch((err) => {
    console.error(`\n[bench ${elapsed()}] failed:`, err?.stack ?? err);
    cleanupSync();
    process.exit(1);
  });
