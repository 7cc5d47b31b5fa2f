// npm run evaluate [-- NETWORK.csv [--labels LABELS.csv]] [--anchor ID] [--out FILE]: replays a signed
// temporal network through version 4's pure functions and the job's pure computation (DESIGN
// section 4, "Proof"; docs/scoring.md, "Version 4: proof on real data"). Without a network it runs
// the project's copy of Bitcoin OTC (data/otc/) with its labels and exits 1 when a target is missed.
// A malformed file or command line: one line naming it on stderr, exit 2.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { InputError, evaluateText, formatProtocol, otcTargets } from "./evaluation/index";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

class UsageError extends Error {}

function read(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

function main(): number {
  let parsed;
  try {
    parsed = parseArgs({ options: { labels: { type: "string" }, anchor: { type: "string", default: "1" }, out: { type: "string" } }, allowPositionals: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`one network file at most, not ${positionals.length}`);
  const otc = positionals.length === 0;
  const networkFile = otc ? join(root, "data/otc/network.csv") : positionals[0];
  const labelsFile = otc ? join(root, "data/otc/labels.csv") : values.labels;
  if (!/^[+-]?\d+$/.test(values.anchor!)) throw new UsageError(`--anchor must be an integer, not ${JSON.stringify(values.anchor)}`);
  if (otc && values.labels) throw new UsageError("--labels goes with a network file (without one, OTC's labels are used)");
  const started = performance.now();
  const evaluation = evaluateText(read(networkFile), labelsFile ? read(labelsFile) : null, {
    anchor: Number(values.anchor),
    networkName: networkFile,
    labelsName: labelsFile,
  });
  const seconds = (performance.now() - started) / 1000;
  const { kept, removed } = evaluation.protocols;
  console.log(`Version 4 on ${otc ? "Bitcoin OTC (data/otc/)" : networkFile}: anchor ${values.anchor}, ${kept.metrics.ratings} ratings, ${kept.metrics.users} users, ${kept.metrics.jobRuns} job runs; ${seconds.toFixed(0)} s\n`);
  console.log(formatProtocol("kept (the file as given)", kept.metrics));
  if (removed) {
    console.log("");
    console.log(formatProtocol(`removed (without the ${evaluation.labelDefining.length} label-defining ratings)`, removed.metrics));
  }
  if (values.out) {
    writeFileSync(values.out, `${JSON.stringify({ protocols: { kept, ...(removed ? { removed } : {}) } })}\n`);
    console.log(`\nWritten: ${values.out}`);
  }
  if (!otc) return 0;
  const targets = otcTargets(evaluation);
  console.log("\n| OTC target | measured | target | |\n| --- | --- | --- | --- |");
  for (const t of targets) console.log(`| ${t.name} | ${t.value} | ${t.target} | ${t.pass ? "pass" : "**miss**"} |`);
  const missed = targets.filter((t) => !t.pass);
  console.log(missed.length ? `\n${missed.length} target(s) missed` : "\nevery target met");
  return missed.length ? 1 : 0;
}

try {
  process.exitCode = main();
} catch (err) {
  if (err instanceof InputError || err instanceof UsageError) {
    console.error(err.message);
    process.exitCode = 2;
  } else throw err;
}
