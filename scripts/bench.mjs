// `npm run bench [-- --duration 8 --connections 10]`: a local load test of the service against a
// bare baseline Worker (bench/baseline), both under `wrangler dev` (workerd + local D1 + local
// Durable Objects) on 127.0.0.1, each with its own throw-away state (--persist-to a temp dir).
//
//   1. starts both Workers, seeds the service through its API (an operator with custom limits,
//      100 agents, 5 transactions each);
//   2. measures with autocannon (throughput, p50/p99 latency), each next to its baseline:
//        GET /score/{sid}             vs one D1 point read by primary key
//        GET /badge/{sid}.svg cached  vs a plain Hono route with a constant SVG
//        POST /transactions, 1 agent  vs a Durable Object + D1 batch (INSERT + UPDATE), 1 object
//        POST /transactions, 100 agts vs the same across 100 objects
//      plus the single-D1 write ceiling (the same D1 batch straight from the Worker, no object);
//   3. stops the service, adds 100x the agents and history with one SQL file, restarts it and
//      measures GET /score again (large vs small read latency);
//   4. a hot-path breakdown: the service's requests cut short at each stage (no key, unknown key,
//      invalid body after auth and the rate limiter, unknown agent after the agent read), so the
//      differences show what each stage costs;
//   5. prints a table and writes bench/results/<timestamp>.json.
//
// Options: --duration <s> (8), --warmup <s> (1), --connections <n> (10), --no-breakdown, --profile,
// --only <list> (see ONLY below).
//
// It ends by itself (hard deadline below), kills every process it started on exit and on error,
// and only talks to 127.0.0.1. docs/performance.md explains the numbers.
import autocannon from "autocannon";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const baselineDir = join(root, "bench", "baseline");
const resultsDir = join(root, "bench", "results");
const bin = join(root, "node_modules", ".bin");
const wrangler = join(bin, process.platform === "win32" ? "wrangler.cmd" : "wrangler");

// --- options ------------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : fallback;
};
const DURATION = option("duration", 8); // seconds per measurement
const WARMUP = option("warmup", 1); // seconds of unrecorded load before each measurement
const CONNECTIONS = option("connections", 10);
const flag = (name) => argv.includes(`--${name}`);
// --no-breakdown skips the hot-path breakdown (the service's requests cut short at each stage).
const BREAKDOWN = !flag("no-breakdown");
// --profile attaches V8's sampling profiler (through wrangler's inspector port) to the service during
// its measurements and prints where each request's CPU time goes. It slows the service: ratios from
// a profiled run are not comparable with the targets.
const PROFILE = flag("profile");
// --only score,badge,txOne,txMany,ceiling,breakdown,large runs just those (large implies score).
const ONLY = argv.includes("--only") ? new Set(String(argv[argv.indexOf("--only") + 1] ?? "").split(",")) : null;
const want = (key) => !ONLY || ONLY.has(key) || (key === "score" && ONLY.has("large"));
const AGENTS = 100;
const TX_PER_AGENT = 5;
const SCALE = 100; // the large data set: 100x the agents and their history
const DEADLINE_MS = 290_000; // the whole run, start to finish, stays under 5 minutes
const HOST = "127.0.0.1";

const TARGETS = {
  score: { min: 0.8, text: "≥ 0.8x D1 read" },
  badge: { min: 0.9, text: "≥ 0.9x bare route" },
  txOne: { min: 0.7, text: "≥ 0.7x DO+D1 write" },
  txMany: { min: 0.7, text: "≥ 0.7x DO+D1 write" },
  large: { max: 1.2, text: "≤ 1.2x small" },
};

// --- child processes ----------------------------------------------------------------------------
const tempDirs = [];
const children = new Set();
const started = Date.now();
const startLoad = loadavg();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
const log = (...args) => console.error(`[bench ${elapsed()}]`, ...args);

// Its own dev registry, so these Workers never replace a developer's running `wrangler dev` in it.
const registry = mkdtempSync(join(tmpdir(), "bench-registry-"));
tempDirs.push(registry);
const childEnv = {
  ...process.env,
  // wrangler and its node shim from node_modules/.bin (Node 22), whatever `node` ran this script.
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

/** `wrangler dev` in its own process group (it starts workerd children), so one kill ends them all. */
function startWorker(name, cwd, port, persistTo, extra = []) {
  const args = ["dev", "--ip", HOST, "--port", String(port), "--persist-to", persistTo, "--log-level", "warn", ...extra];
  const child = spawn(wrangler, args, { cwd, env: childEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const output = [];
  const keep = (chunk) => {
    output.push(String(chunk));
    if (output.length > 200) output.shift();
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  child.exited = new Promise((resolve) => child.on("exit", resolve));
  child.output = () => output.join("");
  child.label = name;
  children.add(child);
  child.exited.then(() => children.delete(child));
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

// --- load generation ----------------------------------------------------------------------------
/**
 * One autocannon run. `next()` gives each request's path (and body), so requests spread over the
 * agents or objects. A progress line shows the seconds done and the last second's rate.
 */
async function load(label, base, { method = "GET", headers = {}, next, seconds = DURATION, quiet = false, expect = null }) {
  const instance = autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    method,
    headers: { "cf-connecting-ip": "192.0.2.10", ...headers, ...(method === "POST" ? { "content-type": "application/json" } : {}) },
    requests: [
      {
        setupRequest: (req) => {
          const { path, body } = next();
          return { ...req, path, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
        },
      },
    ],
  });
  let second = 0;
  const tty = process.stderr.isTTY;
  instance.on("tick", ({ counter }) => {
    second += 1;
    if (quiet || second > seconds) return;
    const line = `  ${label.padEnd(44)} ${String(second).padStart(2)}/${seconds}s  ${String(counter).padStart(6)} req/s`;
    if (tty) process.stderr.write(`\r${line}`);
    else if (second % 4 === 0 || second === seconds) process.stderr.write(`${line}\n`);
  });
  const result = await instance;
  if (tty && !quiet) process.stderr.write("\r\x1b[K");
  // Counted as served: 2xx, or for a stage that is cut short on purpose, its expected status.
  const total = result["2xx"] + result.non2xx;
  const ok = expect === null ? result["2xx"] : (result.statusCodeStats?.[expect]?.count ?? 0);
  return {
    label,
    rps: Math.round((ok / result.duration) * 10) / 10,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.average,
    requests: total,
    ok,
    unexpected: total - ok,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodeStats,
    seconds: result.duration,
  };
}

async function measure(label, base, spec, profiler = null) {
  if (WARMUP > 0) await load(`${label} (warm-up)`, base, { ...spec, seconds: WARMUP, quiet: true });
  if (profiler) await profiler.start();
  const r = await load(label, base, spec);
  if (profiler) r.profile = await profiler.stop(r.requests, label);
  const bad = r.unexpected + r.errors + r.timeouts;
  const flag = bad > 0 ? `  !! ${bad} failed (${JSON.stringify(r.statusCodes)})` : "";
  log(`${label}: ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${flag}`);
  return r;
}

// --- the run ------------------------------------------------------------------------------------
async function main() {
  mkdirSync(resultsDir, { recursive: true });
  const svcState = mkdtempSync(join(tmpdir(), "bench-service-"));
  const baseState = mkdtempSync(join(tmpdir(), "bench-baseline-"));
  tempDirs.push(svcState, baseState);
  const adminToken = `bench-${randomBytes(16).toString("hex")}`;
  const wranglerVersion = run(["--version"], root).trim();

  log("applying D1 migrations to temp state dirs");
  run(["d1", "migrations", "apply", "DB", "--local", "--persist-to", svcState], root);
  run(["d1", "migrations", "apply", "DB", "--local", "--persist-to", baseState], baselineDir);

  const [svcPort, svcInspector, basePort, baseInspector] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const svcArgs = (inspector) => ["--inspector-port", String(inspector), "--var", `ADMIN_TOKEN:${adminToken}`];
  let service = startWorker("service", root, svcPort, svcState, svcArgs(svcInspector));
  const baseline = startWorker("baseline", baselineDir, basePort, baseState, ["--inspector-port", String(baseInspector)]);
  let svc = `http://${HOST}:${svcPort}`;
  const base = `http://${HOST}:${basePort}`;
  log(`starting the service on ${svc} and the baseline on ${base}`);
  await Promise.all([waitReady(service, svc, "/score/SID-0x0000000000000000"), waitReady(baseline, base, "/plain")]);
  const profiler = PROFILE ? await attachProfiler(svcInspector) : null;
  const sp = profiler; // service measurements only

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

  // Measurements, each next to its baseline.
  const m = {};
  if (want("score")) {
    m.score = await measure("service  GET /score/{sid} (100 agents)", svc, { headers: reporter.auth, next: () => ({ path: `/score/${pick(sids)}` }) }, sp);
    m.read = await measure("baseline D1 point read by primary key", base, { next: () => ({ path: `/read/${pick(items)}` }) });
  }

  if (want("badge")) {
    // Every badge into the edge cache first (100 misses, under the 120/min per-IP limit).
    const warmed = await pool(sids, CONNECTIONS, (sid) => api(svc, `/badge/${sid}.svg`, { headers: { "cf-connecting-ip": "192.0.2.20" } }));
    const badgeStatus = warmed.find((r) => r.status !== 200)?.status;
    if (badgeStatus === undefined) {
      m.badge = await measure("service  GET /badge/{sid}.svg (cached)", svc, { next: () => ({ path: `/badge/${pick(sids)}.svg` }) }, sp);
    } else {
      log(`skipping the badge measurement: GET /badge/{sid}.svg answered ${badgeStatus} (is registerBadges(app) in src/app.ts?)`);
    }
    m.plain = await measure("baseline plain Hono route", base, { next: () => ({ path: "/plain" }) });
  }

  if (want("txOne")) {
    const one = sids[0];
    m.txOne = await measure("service  POST /transactions (1 agent)", svc, {
      method: "POST",
      headers: reporter.auth,
      next: () => ({ path: "/transactions", body: txBody(one) }),
    }, sp);
    m.writeOne = await measure("baseline DO + D1 batch write (1 object)", base, {
      method: "POST",
      next: () => ({ path: `/write/${items[0]}`, body: txBody(items[0]) }),
    });
  }
  if (want("txMany")) {
    m.txMany = await measure("service  POST /transactions (100 agents)", svc, {
      method: "POST",
      headers: reporter.auth,
      next: () => ({ path: "/transactions", body: txBody(pick(sids)) }),
    }, sp);
    m.writeMany = await measure("baseline DO + D1 batch write (100 objects)", base, {
      method: "POST",
      next: () => {
        const item = pick(items);
        return { path: `/write/${item}`, body: txBody(item) };
      },
    });
  }
  if (want("ceiling")) {
    m.writeDirect = await measure("baseline D1 batch write, no DO (D1 ceiling)", base, {
      method: "POST",
      next: () => {
        const item = pick(items);
        return { path: `/write-direct/${item}`, body: txBody(item) };
      },
    });
  }

  // The hot path cut short at each stage: differences between these show what each stage costs.
  if (BREAKDOWN && want("breakdown")) {
    const stage = (label, spec) => measure(`service  ${label}`, svc, spec, sp);
    const unknownKey = { authorization: `Bearer sk_svc_${"0".repeat(64)}` };
    m.breakdown = {
      noKey: await stage("GET /score, no key (401)", { expect: 401, next: () => ({ path: `/score/${pick(sids)}` }) }),
      unknownKey: await stage("GET /score, unknown key (401)", { expect: 401, headers: unknownKey, next: () => ({ path: `/score/${pick(sids)}` }) }),
      txInvalid: await stage("POST /transactions, bad outcome (400)", {
        expect: 400,
        method: "POST",
        headers: reporter.auth,
        next: () => ({ path: "/transactions", body: { ...txBody(pick(sids)), outcome: "unknown" } }),
      }),
      txUnknownAgent: await stage("POST /transactions, unknown agent (404)", {
        expect: 404,
        method: "POST",
        headers: reporter.auth,
        next: () => ({ path: "/transactions", body: txBody("SID-0x0000000000000001") }),
      }),
    };
  }
  profiler?.close();

  // 100x the agents and their history, written straight into the stopped service's local D1.
  let counts = null;
  if (want("large")) {
    log(`stopping the service; adding ${SCALE}x agents and history`);
    await stopWorker(service);
    counts = seedLarge(svcState, template);
    log(`now ${counts.agents} agents, ${counts.transactions} transactions, ${counts.score_events} score events`);
    const [port2, inspector2] = await Promise.all([freePort(), freePort()]);
    service = startWorker("service (large)", root, port2, svcState, svcArgs(inspector2));
    svc = `http://${HOST}:${port2}`;
    await waitReady(service, svc, "/score/SID-0x0000000000000000");
    const allSids = [...sids, ...Array.from({ length: AGENTS * SCALE - AGENTS }, (_, i) => largeSid(i + 1))];
    m.scoreLarge = await measure(`service  GET /score/{sid} (${allSids.length} agents)`, svc, {
      headers: reporter.auth,
      next: () => ({ path: `/score/${pick(allSids)}` }),
    });
  }
  await Promise.all([stopWorker(service), stopWorker(baseline)]);

  report(m, counts, wranglerVersion);
}

const largeSid = (i) => `SID-0xbe${i.toString(16).padStart(14, "0")}`;

/** One SQL file: each generated agent copies a seeded agent's row and history under a new SID. */
function seedLarge(persistTo, templateSid) {
  const d1 = (extra) => JSON.parse(run(["d1", "execute", "DB", "--local", "--persist-to", persistTo, "--json", ...extra], root));
  const tables = ["agents", "transactions", "score_events", "config_history"];
  const columns = {};
  const [{ results }] = d1([
    "--command",
    `SELECT m.name AS tbl, p.name AS col FROM sqlite_master m, pragma_table_info(m.name) p
       WHERE m.type = 'table' AND m.name IN (${tables.map((t) => `'${t}'`).join(", ")}) ORDER BY m.name, p.cid`,
  ]);
  for (const { tbl, col } of results) (columns[tbl] ??= []).push(col);

  const n = AGENTS * SCALE - AGENTS;
  const newSid = "'SID-0xbe' || printf('%014x', n.i)";
  const statements = tables.map((table) => {
    const cols = columns[table].filter((c) => c !== "id"); // AUTOINCREMENT ids are assigned anew
    const exprs = cols.map((c) => (c === "sid" ? newSid : table === "agents" && c === "name" ? "'Bench agent ' || n.i" : `t.${c}`));
    return `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})
INSERT INTO ${table} (${cols.join(", ")}) SELECT ${exprs.join(", ")} FROM n, (SELECT * FROM ${table} WHERE sid = '${templateSid}') t;`;
  });
  const file = join(persistTo, "bench-large.sql");
  writeFileSync(file, `${statements.join("\n")}\n`);
  d1(["--file", file, "--yes"]);
  const [{ results: counted }] = d1([
    "--command",
    `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(", ")}`,
  ]);
  return counted[0];
}

// --- profiler (--profile) ----------------------------------------------------------------------
/**
 * V8's sampling profiler on the service's isolate, through wrangler's inspector proxy. Each
 * measurement's samples are summed per package (node_modules/<pkg>) or source file (src/...), using
 * the section comments esbuild leaves in wrangler's bundle, and reported as CPU time per request.
 */
async function attachProfiler(inspectorPort) {
  const ws = new WebSocket(`ws://${HOST}:${inspectorPort}/ws`, { headers: { Origin: "http://localhost" } });
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve);
    ws.addEventListener("error", () => reject(new Error("cannot attach the profiler to the inspector port")));
  });
  let nextId = 0;
  const pending = new Map();
  ws.addEventListener("message", (e) => {
    const msg = JSON.parse(String(e.data));
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 });
  const outDir = mkdtempSync(join(tmpdir(), "bench-profiles-"));
  log(`profiling the service; .cpuprofile files (open in Chrome DevTools) go to ${outDir}`);

  const moduleMap = () => {
    // The newest wrangler dev bundle of this project: section comments name each module.
    const dirs = readdirSync(join(root, ".wrangler", "tmp"))
      .filter((d) => d.startsWith("dev-"))
      .map((d) => join(root, ".wrangler", "tmp", d, "index.js"))
      .filter((f) => existsSync(f))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
    const sections = [];
    if (dirs[0]) {
      readFileSync(dirs[0], "utf8")
        .split("\n")
        .forEach((line, i) => {
          const match = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(line);
          if (match) sections.push([i, match[1]]);
        });
    }
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
    async stop(requests, label) {
      const { result } = await send("Profiler.stop");
      const profile = result.profile;
      writeFileSync(join(outDir, `${label.trim().replace(/[^a-z0-9]+/gi, "-")}.cpuprofile`), JSON.stringify(profile));
      const moduleOf = moduleMap();
      const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
      const msPerSample = (profile.endTime - profile.startTime) / profile.samples.length / 1000;
      const byModule = new Map();
      let busy = 0;
      for (const id of profile.samples) {
        const frame = nodes.get(id);
        if (frame.functionName === "(idle)") continue;
        busy += 1;
        const where = !frame.url
          ? frame.functionName.startsWith("(") ? frame.functionName : "(runtime: fetch, RPC, cache, crypto...)"
          : frame.url === "index.js" || frame.url.endsWith("/index.js") ? moduleOf(frame.lineNumber) : frame.url;
        byModule.set(where, (byModule.get(where) ?? 0) + 1);
      }
      const perRequest = (samples) => (samples * msPerSample * 1000) / Math.max(1, requests);
      const top = [...byModule].sort((a, b) => b[1] - a[1]).slice(0, 10);
      const cpu = Object.fromEntries(top.map(([k, v]) => [k, Math.round(perRequest(v))]));
      return {
        busyPercent: Math.round((100 * busy) / profile.samples.length),
        cpuMicrosPerRequest: Math.round(perRequest(busy)),
        topMicrosPerRequest: cpu,
        lines: [
          `CPU profile: ${label.trim()}: isolate busy ${Math.round((100 * busy) / profile.samples.length)}%, ${Math.round(perRequest(busy))} µs/request`,
          ...top.map(([k, v]) => `  ${String(Math.round(perRequest(v))).padStart(6)} µs  ${k}`),
        ],
      };
    },
    close: () => ws.close(),
  };
}

// --- report -------------------------------------------------------------------------------------
function report(m, counts, wranglerVersion) {
  const ratio = (a, b) => (a && b && b.rps > 0 ? Math.round((a.rps / b.rps) * 100) / 100 : null);
  const latencyRatio = (a, b, key) => (a && b && b[key] > 0 ? Math.round((a[key] / b[key]) * 100) / 100 : null);
  const comparisons = [
    { key: "score", what: "GET /score/{sid}", service: m.score, baseline: m.read, baselineWhat: "D1 point read", ratio: ratio(m.score, m.read) },
    { key: "badge", what: "GET /badge/{sid}.svg (cached)", service: m.badge, baseline: m.plain, baselineWhat: "bare Hono route", ratio: ratio(m.badge, m.plain) },
    { key: "txOne", what: "POST /transactions, 1 agent", service: m.txOne, baseline: m.writeOne, baselineWhat: "DO+D1 write, 1 object", ratio: ratio(m.txOne, m.writeOne) },
    { key: "txMany", what: "POST /transactions, 100 agents", service: m.txMany, baseline: m.writeMany, baselineWhat: "DO+D1 write, 100 objects", ratio: ratio(m.txMany, m.writeMany) },
    {
      key: "large",
      what: `GET /score/{sid}, ${counts?.agents ?? SCALE * AGENTS} agents`,
      service: m.scoreLarge,
      baseline: m.score,
      baselineWhat: `same, ${AGENTS} agents`,
      // Latency: large over small (lower is better), p50.
      ratio: latencyRatio(m.scoreLarge, m.score, "p50"),
      p99Ratio: latencyRatio(m.scoreLarge, m.score, "p99"),
    },
  ];
  for (const c of comparisons) {
    const t = TARGETS[c.key];
    c.target = t.text;
    c.met = c.ratio === null ? null : t.min !== undefined ? c.ratio >= t.min : c.ratio <= t.max;
    c.failedRequests = c.service ? c.service.unexpected + c.service.errors + c.service.timeouts : null;
  }

  const cell = (r) => (r ? `${String(r.rps).padStart(8)} ${String(r.p50).padStart(6)} ${String(r.p99).padStart(6)}` : `${"n/a".padStart(8)} ${"".padStart(6)} ${"".padStart(6)}`);
  const lines = [
    "",
    `${"".padEnd(34)} ${"service".padEnd(22)} | ${"baseline".padEnd(50)}`,
    `${"measurement".padEnd(34)} ${"req/s".padStart(8)} ${"p50ms".padStart(6)} ${"p99ms".padStart(6)} | ${"".padEnd(26)}${"req/s".padStart(8)} ${"p50ms".padStart(6)} ${"p99ms".padStart(6)} | ratio  target              met`,
  ];
  for (const c of comparisons) {
    const ratioText = c.ratio === null ? "n/a" : `${c.ratio.toFixed(2)}x`;
    const met = c.met === null ? "-" : c.met ? "yes" : "NO";
    lines.push(`${c.what.padEnd(34)} ${cell(c.service)} | ${c.baselineWhat.padEnd(26)}${cell(c.baseline)} | ${ratioText.padEnd(6)} ${c.target.padEnd(20)}${met}`);
  }
  lines.push("");
  if (m.writeDirect) {
    lines.push(`D1 write ceiling (batch of INSERT + UPDATE straight from the Worker, 100 rows): ${m.writeDirect.rps} req/s, p50 ${m.writeDirect.p50} ms, p99 ${m.writeDirect.p99} ms`);
  }
  if (m.scoreLarge) lines.push(`Large vs small GET /score latency: p50 ${comparisons[4].ratio}x, p99 ${comparisons[4].p99Ratio}x`);
  lines.push(
    "Ratios: req/s of the service over req/s of its baseline; for the large data set, p50 latency large over small.",
    ...(PROFILE ? ["PROFILED RUN: the profiler slows the service, so these ratios are not comparable with the targets."] : []),
    `${CONNECTIONS} connections, ${DURATION}s per measurement after ${WARMUP}s warm-up; ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), Node ${process.version}, ${wranglerVersion}`,
  );
  if (m.breakdown) {
    const b = m.breakdown;
    const ms = (r) => (r && r.rps > 0 ? 1000 / r.rps : null);
    const row = (what, r, prev, note) => {
      const cost = ms(r) !== null && prev !== undefined && ms(prev) !== null ? `+${(ms(r) - ms(prev)).toFixed(2)}` : "";
      return `  ${what.padEnd(44)} ${String(r?.rps ?? "n/a").padStart(8)} ${(ms(r)?.toFixed(2) ?? "").padStart(9)} ${cost.padStart(8)}  ${note}`;
    };
    lines.push(
      "",
      "Hot-path breakdown (service only; ms/req = 1000 / req/s: the server's time per request at this load)",
      `  ${"stage".padEnd(44)} ${"req/s".padStart(8)} ${"ms/req".padStart(9)} ${"+ms".padStart(8)}  what the step adds`,
      row("GET /score, no key (401)", b.noKey, undefined, "app, middleware, routing, error rendering"),
      row("GET /score, unknown key (401)", b.unknownKey, b.noKey, "sha256 + API key read (D1)"),
      row("GET /score (200)", m.score, b.unknownKey, "rate-limit object + agent read (D1) + scoring + JSON"),
      row("POST /transactions, bad outcome (400)", b.txInvalid, b.unknownKey, "rate-limit object + body parse + zod"),
      row("POST /transactions, unknown agent (404)", b.txUnknownAgent, b.txInvalid, "agent gate read (D1)"),
      row("POST /transactions, 100 agents (201)", m.txMany, b.txUnknownAgent, "scorer object + 5-statement D1 batch + badge purge"),
    );
  }
  for (const r of Object.values(m).flatMap((v) => (v && v.label ? [v] : Object.values(v ?? {})))) {
    if (r?.profile) lines.push("", ...r.profile.lines);
  }
  console.log(lines.join("\n"));

  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = join(resultsDir, `${stamp}.json`);
  const out = {
    startedAt: new Date(started).toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    loadAverage: { start: startLoad, end: loadavg() },
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, wrangler: wranglerVersion, platform: process.platform },
    settings: { profiled: PROFILE, connections: CONNECTIONS, durationSeconds: DURATION, warmupSeconds: WARMUP, agents: AGENTS, transactionsPerAgent: TX_PER_AGENT, scale: SCALE },
    largeDataset: counts,
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
