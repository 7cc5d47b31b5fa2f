// `npm run bench -- --only credibility` (or `tsx scripts/bench-credibility.ts [--rows N] [--service-rows N]`):
// what the credibility job costs, measured on this machine.
//
//   1. the model's computeStanding on a synthetic economy's rollups (bench/credibility-world.ts) of
//      --rows rows (default 1,000,000) in Node: two runs (the second with the first as its previous
//      snapshot, as every run after the first), their time and the heap they hold, and the bytes of
//      the staged pages and of the snapshot;
//   2. the job itself under `wrangler dev` (test/credibility-bench-worker.ts, D1_METER=true) on
//      --service-rows rows (default 100,000) written to the two local shards: two whole runs through
//      the admin route, their wall time, D1 rows read and R2 operations;
//   3. per million rollup rows, and the extrapolation to 10 million agents at 10,000 reports a second
//      (docs/performance.md, "The credibility job").
// Prints a table and writes bench/results/credibility-<timestamp>.json. Talks only to 127.0.0.1.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { computeStanding, DAY_MS, leanRollups, packRollup, unpackRollup, type PackedRollup, type RollupRow, type StandingSnapshot } from "../src/domain/model";
import { ANCHORS, sizeFor, worldRows } from "../bench/credibility-world";
import { startService } from "../test/wrangler-dev.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { rows: { type: "string", default: "1000000" }, "service-rows": { type: "string", default: "100000" } }, strict: false });
const TODAY = Math.floor(Date.now() / DAY_MS);
const PAGE_ROWS = 2_000;
const MB = 1024 * 1024;

const gc = () => (globalThis as { gc?: () => void }).gc?.();
const heap = () => (gc(), process.memoryUsage().heapUsed);

function computePhase(target: number) {
  const size = sizeFor(target);
  const anchors = Array.from({ length: ANCHORS }, (_, i) => String(i + 1));
  // The staged pages, as the job reads them back.
  const pages: string[] = [];
  let page: RollupRow[] = [];
  let rows = 0;
  for (const row of worldRows(size, TODAY)) {
    page.push(row);
    rows++;
    if (page.length === PAGE_ROWS) {
      pages.push(JSON.stringify(page.map(packRollup)));
      page = [];
    }
  }
  if (page.length > 0) pages.push(JSON.stringify(page.map(packRollup)));
  const pageBytes = pages[0].length;
  // The job's rows (lean), then the full rows for comparison: heap held, and two runs of computeStanding.
  const measure = (load: () => RollupRow[]) => {
    const before = heap();
    const loaded = load();
    const held = heap() - before;
    let previous: StandingSnapshot | null = null;
    const times: number[] = [];
    let peak = held;
    for (let run = 0; run < 2; run++) {
      const t0 = performance.now();
      previous = computeStanding(loaded, { day: TODAY + run, previous, anchors });
      times.push(performance.now() - t0);
      peak = Math.max(peak, process.memoryUsage().heapUsed - before);
    }
    return { times, heldMb: held / MB, peakMb: peak / MB, snapshot: previous! };
  };
  const lean = measure(() => {
    const l = leanRollups();
    for (const p of pages) for (const packed of JSON.parse(p) as PackedRollup[]) l.add(packed);
    return l.rows;
  });
  const full = measure(() => pages.flatMap((p) => (JSON.parse(p) as PackedRollup[]).map(unpackRollup)));
  const snapshot = lean.snapshot;
  return {
    rows,
    reporters: size.reporters,
    computeMs: lean.times,
    heapMbRows: lean.heldMb,
    heapMbPeak: lean.peakMb,
    full: { computeMs: full.times, heapMbRows: full.heldMb, heapMbPeak: full.peakMb },
    pageBytes,
    snapshotBytes: JSON.stringify(snapshot).length,
    reportersWithStanding: Object.values(snapshot.reporters).filter((e) => e.standing > 0).length,
    earnedShare: snapshot.earnedShare,
  };
}

async function servicePhase(target: number) {
  const svc = await startService("credibility-bench", { script: "test/credibility-bench-worker.ts", vars: { D1_METER: "true" } });
  const admin = { authorization: `Bearer ${svc.adminToken}`, "content-type": "application/json" };
  try {
    const size = sizeFor(target);
    let rows = 0;
    for (let from = 1; from <= size.reporters; from += 100) {
      const res = await fetch(`${svc.url}/__bench/rollups`, { method: "POST", headers: admin, body: JSON.stringify({ size, today: TODAY, from, to: Math.min(size.reporters, from + 99) }) });
      if (!res.ok) throw new Error(`rollups: ${res.status} ${await res.text()}`);
      rows += ((await res.json()) as { rows: number }).rows;
    }
    await fetch(`${svc.url}/admin/model/anchors`, { method: "PUT", headers: admin, body: JSON.stringify({ operators: [] }) });
    const runs = [];
    for (let run = 0; run < 2; run++) {
      await fetch(`${svc.url}/admin/d1-meter?reset=true`, { headers: admin });
      await fetch(`${svc.url}/__bench/r2?reset=1`);
      const t0 = performance.now();
      let calls = 0;
      let status = "";
      for (let force = true; status !== "published"; force = false) {
        const res = await fetch(`${svc.url}/admin/model/credibility/run`, { method: "POST", headers: admin, body: JSON.stringify({ force, max_pages: 20 }) });
        if (!res.ok) throw new Error(`run: ${res.status} ${await res.text()}`);
        status = ((await res.json()) as { status: string }).status;
        calls++;
        if (calls > 10_000) throw new Error("the job never published");
      }
      const ms = performance.now() - t0;
      const { databases: meter } = (await (await fetch(`${svc.url}/admin/d1-meter`, { headers: admin })).json()) as { databases: Record<string, { rowsRead: number; rowsWritten: number; statements: number }> };
      const r2 = (await (await fetch(`${svc.url}/__bench/r2`)).json()) as { classA: number; classB: number; deletes: number; bytesWritten: number };
      const shards = Object.entries(meter).filter(([name]) => name.includes("SHARD"));
      runs.push({
        ms,
        calls,
        d1RowsRead: shards.reduce((s, [, c]) => s + c.rowsRead, 0),
        d1RowsWritten: shards.reduce((s, [, c]) => s + c.rowsWritten, 0),
        d1Statements: shards.reduce((s, [, c]) => s + c.statements, 0),
        r2,
      });
    }
    return { rows, runs };
  } finally {
    await svc.stop();
  }
}

/**
 * 10 million agents at 10,000 reports a second, if each (reporter, agent, day) holds `perTriple`
 * reports: every group commit rewrites its reporters' rows (at worst one D1 row written per report),
 * and the window holds 180 days of distinct triples.
 */
function extrapolate(perMillion: { msCompute: number; msService: number; d1Read: number; r2A: number; r2B: number; heapMb: number }, perTriple: number) {
  const reportsPerDay = 10_000 * 86_400;
  const rowsPerDay = reportsPerDay / perTriple;
  const windowRows = rowsPerDay * 180;
  const m = windowRows / 1e6;
  return {
    perTriple,
    rollupRowsWrittenPerDay: reportsPerDay,
    rollupRowsAddedPerDay: rowsPerDay,
    windowRows,
    d1RowsReadPerRun: m * perMillion.d1Read,
    r2ClassAPerRun: m * perMillion.r2A,
    r2ClassBPerRun: m * perMillion.r2B,
    serviceHoursPerRun: (m * perMillion.msService) / 3_600_000,
    computeHoursPerRun: (m * perMillion.msCompute) / 3_600_000,
    heapGbPerRun: (m * perMillion.heapMb) / 1024,
    dollarsPerDay: reportsPerDay * (1 / 1e6) + m * perMillion.d1Read * (0.001 / 1e6) + m * perMillion.r2A * (4.5 / 1e6) + m * perMillion.r2B * (0.36 / 1e6),
  };
}

export async function benchCredibility() {
  const compute = computePhase(Number(values.rows));
  console.log(`computeStanding: ${compute.rows} rows, ${compute.reporters} reporters: ${compute.computeMs.map((t) => t.toFixed(0)).join(" / ")} ms, rows ${compute.heapMbRows.toFixed(0)} MB, peak ${compute.heapMbPeak.toFixed(0)} MB`);
  if (!(globalThis as { gc?: unknown }).gc) console.log("(no --expose-gc: heap figures include garbage; run through npm run bench -- --only credibility)");
  const service = await servicePhase(Number(values["service-rows"]));
  const second = service.runs[1];
  const perM = (x: number, rows: number) => (x * 1e6) / rows;
  const perMillion = {
    msCompute: perM(compute.computeMs[1], compute.rows),
    msService: perM(second.ms, service.rows),
    d1Read: perM(second.d1RowsRead, service.rows),
    r2A: perM(second.r2.classA, service.rows),
    r2B: perM(second.r2.classB, service.rows),
    heapMb: perM(compute.heapMbPeak, compute.rows),
  };
  return {
    machine: { cpus: cpus().length, model: cpus()[0]?.model, load: loadavg() },
    compute,
    service,
    perMillion,
    extrapolation: [extrapolate(perMillion, 1), extrapolate(perMillion, 10)],
  };
}

export function printCredibility(result: Awaited<ReturnType<typeof benchCredibility>>) {
  const { compute, service, perMillion } = result;
  console.log(`\nThe credibility job (load ${result.machine.load.map((l) => l.toFixed(2)).join(" ")})`);
  console.log(`  computeStanding, ${compute.rows} rows as the job holds them: first run ${compute.computeMs[0].toFixed(0)} ms, second ${compute.computeMs[1].toFixed(0)} ms; heap ${compute.heapMbRows.toFixed(0)} MB for the rows, ${compute.heapMbPeak.toFixed(0)} MB at peak (full rows: ${compute.full.computeMs.map((t) => t.toFixed(0)).join(" / ")} ms, ${compute.full.heapMbRows.toFixed(0)} MB, peak ${compute.full.heapMbPeak.toFixed(0)} MB); page of ${PAGE_ROWS} rows ${compute.pageBytes} bytes; snapshot ${compute.snapshotBytes} bytes (${compute.reportersWithStanding} of ${compute.reporters} reporters with standing, earned share ${compute.earnedShare.toFixed(3)})`);
  for (const [i, run] of service.runs.entries()) {
    console.log(`  job under wrangler dev, run ${i + 1}, ${service.rows} rows: ${run.ms.toFixed(0)} ms in ${run.calls} calls; D1 rows read ${run.d1RowsRead}, written ${run.d1RowsWritten} (${run.d1Statements} statements); R2 class A ${run.r2.classA}, class B ${run.r2.classB}, deletes ${run.r2.deletes}, ${run.r2.bytesWritten} bytes written`);
  }
  console.log(`  per million rollup rows: compute ${perMillion.msCompute.toFixed(0)} ms, whole job ${perMillion.msService.toFixed(0)} ms, D1 rows read ${perMillion.d1Read.toFixed(0)}, R2 class A ${perMillion.r2A.toFixed(0)}, class B ${perMillion.r2B.toFixed(0)}, heap ${perMillion.heapMb.toFixed(0)} MB`);
  for (const e of result.extrapolation) {
    console.log(`  10M agents, 10,000 reports/s, ${e.perTriple} report(s) per reporter-agent-day: at most ${(e.rollupRowsWrittenPerDay / 1e6).toFixed(0)} M rollup rows written a day (${(e.rollupRowsAddedPerDay / 1e6).toFixed(0)} M new), ${(e.windowRows / 1e9).toFixed(1)} G rows in the window; a run reads ${(e.d1RowsReadPerRun / 1e9).toFixed(1)} G D1 rows, ${(e.r2ClassAPerRun / 1e3).toFixed(0)} k class A and ${(e.r2ClassBPerRun / 1e3).toFixed(0)} k class B R2 operations, takes ${e.serviceHoursPerRun.toFixed(0)} h at this machine's pace (compute alone ${e.computeHoursPerRun.toFixed(1)} h) and would hold ${e.heapGbPerRun.toFixed(0)} GB; about $${e.dollarsPerDay.toFixed(0)} a day`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await benchCredibility();
  printCredibility(result);
  mkdirSync(join(root, "bench", "results"), { recursive: true });
  const file = join(root, "bench", "results", `credibility-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nResults: ${file}`);
}
