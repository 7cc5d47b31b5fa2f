// npm run simulate [-- --seed <seed>] [--quick] [--signals profile|outcome]: the seeded simulation of
// the scoring model, version 3 beside version 2, under both signal models (one process each, in
// parallel). Prints the table of docs/scoring.md and exits non-zero when a target is missed.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { FULL, QUICK, formatTable, misses, runSignal, type SignalResult, type SimulationResult } from "./simulation/index";

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const seed = flag("--seed") ?? "trust-v3";
const quick = argv.includes("--quick");
const size = quick ? QUICK : FULL;
const only = flag("--signals");

// Infinity survives the trip between processes as a string.
const encode = (value: unknown) => JSON.stringify(value, (_k, v) => (v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : v));
const decode = (text: string) => JSON.parse(text, (_k, v) => (v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : v)) as SignalResult;

async function child(signal: "profile" | "outcome"): Promise<SignalResult> {
  const script = fileURLToPath(import.meta.url);
  const args = [...process.execArgv, script, "--child", signal, "--seed", seed, ...(quick ? ["--quick"] : [])];
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (chunk) => (out += chunk));
    p.on("close", (code) => (code === 0 ? resolve(decode(out)) : reject(new Error(`the ${signal} run failed (${code})`))));
  });
}

async function main(): Promise<void> {
  const childSignal = flag("--child");
  if (childSignal === "profile" || childSignal === "outcome") {
    process.stdout.write(encode(runSignal({ seed, size, signal: childSignal })));
    return;
  }
  const started = performance.now();
  const signals: ("profile" | "outcome")[] = only === "profile" || only === "outcome" ? [only] : ["profile", "outcome"];
  const results = await Promise.all(signals.map(child));
  const result: SimulationResult = { seed, results, notes: [], seconds: (performance.now() - started) / 1000 };
  console.log(
    `Scoring model v3 beside v2, seeded simulation: seed "${seed}", ${size.agentsPerProfile} agents per profile${quick ? " (--quick)" : ""}; ` +
      `signals centred on the agent's success share (profile) and on the report's outcome (outcome)\n`,
  );
  console.log(formatTable(result));
  console.log("");
  for (const r of results) for (const note of r.notes) console.log(`- ${r.signal}: ${note}`);
  const missed = misses(result);
  const rows = results[0].rows.length;
  console.log(`\n${rows - missed.length} of ${rows} rows met or priced in ${result.seconds.toFixed(0)} s${missed.length ? `; missed: ${missed.join(", ")}` : ""}`);
  if (missed.length > 0) process.exitCode = 1;
}

await main();
