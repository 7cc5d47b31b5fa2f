// `npm run chaos`: kills the service under load and proves nothing was lost, doubled or left behind
// (scripts/chaos/). `--short` runs the one-kill version `npm test` runs; `--seed <s>` another plan.
// Exits 1 on any loss, doubling, stuck entry, differing score or replay, or any 5xx.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FULL, SHORT } from "./chaos/plan";
import { formatReport } from "./chaos/report";
import { runChaos } from "./chaos/run";

const args = process.argv.slice(2);
const seedAt = args.indexOf("--seed");
const seed = seedAt >= 0 ? args[seedAt + 1] : "chaos-1";
const options = { ...(args.includes("--short") ? SHORT : FULL), seed };
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const started = Date.now();
const log = (line: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);

try {
  const report = await runChaos(options, root, log);
  console.log(formatReport(report, options, Date.now() - started));
  process.exit(report.failures.length > 0 ? 1 : 0);
} catch (err) {
  console.error(`chaos run failed: ${(err as Error).stack ?? err}`);
  process.exit(2);
}
