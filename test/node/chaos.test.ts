// The short chaos run (scripts/chaos/, one SIGKILL of the service's whole process group during a
// batch, on its own wrangler dev and state): nothing acknowledged lost or doubled, every retry and
// replay the stored answer, every score the replay of its history, nothing left in a journal or an
// outbox once the alarms ran, and no 5xx, bad input included. `npm run chaos` runs the full one.
import { join } from "node:path";
import { expect, it } from "vitest";
import { SHORT } from "../../scripts/chaos/plan";
import { formatReport } from "../../scripts/chaos/report";
import { runChaos } from "../../scripts/chaos/run";

const root = join(import.meta.dirname, "..", "..");

it("survives a kill during a batch: nothing lost, doubled or stuck, no 5xx", async () => {
  const options = { ...SHORT, seed: "npm-test" };
  const started = Date.now();
  // Its progress on stderr: a run that stalls shows where.
  const report = await runChaos(options, root, (line) => process.stderr.write(`chaos: ${line}\n`));
  const figure = (label: string) => report.figures.find(([l]) => l.trim() === label)?.[1];
  expect(figure("kills (SIGKILL of the process group)")).toBe(1);
  expect(Number(figure("reports acknowledged"))).toBeGreaterThan(50);
  expect(report.failures, formatReport(report, options, Date.now() - started)).toEqual([]);
  // Past every bound inside the run (the load, a start-up's 90 s, the log's 5 minutes), so a run
  // that fails reports what failed rather than the test's timeout.
}, 600_000);
