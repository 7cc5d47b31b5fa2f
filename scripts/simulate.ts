// npm run simulate [-- --seed <seed>] [--quick] [--signals profile|outcome] [--no-otc]: the seeded
// simulation of the scoring model, version 4, under both signal models (one process each, in
// parallel), and its ring and competitor rows injected into Bitcoin OTC (data/otc/). Prints the
// table of docs/scoring.md and exits 1 when a target is missed.

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseLabels, parseNetwork } from "./evaluation/parse";
import { FULL, QUICK, formatTable, misses, otcRows, runSignal, type Row, type SignalResult, type SimulationResult } from "./simulation/index";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const seed = flag("--seed") ?? "trust-v4";
const quick = argv.includes("--quick");
const size = quick ? QUICK : FULL;
const only = flag("--signals");

// Infinity survives the trip between processes as a string.
const encode = (value: unknown) => JSON.stringify(value, (_k, v) => (v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : v));
const decode = <T>(text: string) => JSON.parse(text, (_k, v) => (v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : v)) as T;

async function child<T>(args: string[]): Promise<T> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...process.execArgv, script, ...args, "--seed", seed, ...(quick ? ["--quick"] : [])], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (chunk) => (out += chunk));
    p.on("close", (code) => (code === 0 ? resolve(decode<T>(out)) : reject(new Error(`the run ${args.join(" ")} failed (${code})`))));
  });
}

function otc(): { rows: Row[]; notes: string[] } {
  const ratings = parseNetwork(readFileSync(join(root, "data/otc/network.csv"), "utf8"));
  const labels = parseLabels(readFileSync(join(root, "data/otc/labels.csv"), "utf8"));
  return otcRows(ratings, labels, size.ringKs);
}

async function main(): Promise<void> {
  const childSignal = flag("--child");
  if (childSignal === "profile" || childSignal === "outcome") {
    process.stdout.write(encode(runSignal({ seed, size, signal: childSignal })));
    return;
  }
  if (argv.includes("--otc-child")) {
    process.stdout.write(encode(otc()));
    return;
  }
  const started = performance.now();
  const signals: ("profile" | "outcome")[] = only === "profile" || only === "outcome" ? [only] : ["profile", "outcome"];
  const withOtc = !argv.includes("--no-otc");
  const [results, injected] = await Promise.all([
    Promise.all(signals.map((s) => child<SignalResult>(["--child", s]))),
    withOtc ? child<{ rows: Row[]; notes: string[] }>(["--otc-child"]) : Promise.resolve({ rows: [], notes: [] }),
  ]);
  const result: SimulationResult = { seed, results, otc: injected.rows, notes: injected.notes, seconds: (performance.now() - started) / 1000 };
  console.log(
    `Scoring model v4, seeded simulation: seed "${seed}", ${size.agentsPerProfile} agents per profile${quick ? " (--quick)" : ""}; ` +
      `signals centred on the agent's success share (profile) and on the report's outcome (outcome)${withOtc ? "; ring and competitor rows injected into Bitcoin OTC" : ""}\n`,
  );
  console.log(formatTable(result));
  console.log("");
  for (const r of results) for (const note of r.notes) console.log(`- ${r.signal}: ${note}`);
  for (const note of result.notes) console.log(`- ${note}`);
  const missed = misses(result);
  const rows = results[0].rows.length + result.otc.length;
  console.log(`\n${rows - missed.length} of ${rows} rows met or priced in ${result.seconds.toFixed(0)} s${missed.length ? `; missed: ${missed.join(", ")}` : ""}`);
  if (missed.length > 0) process.exitCode = 1;
}

await main();
