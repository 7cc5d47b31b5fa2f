// npm run simulate [-- --seed <seed>] [--signals profile | outcome | <failure>:<success>]: the full-size seeded
// simulation of the scoring model. Prints the attack and calibration table of docs/scoring.md and
// exits non-zero when a target is missed.

import { FULL, POPULATION, formatTable, runSimulation, type SignalMean } from "./simulation";

declare const process: { argv: string[]; exitCode?: number };

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const seed = flag("--seed") ?? "trust-v2";
const signals = flag("--signals");
const signalMean: SignalMean =
  signals === "profile"
    ? { kind: "profile" }
    : signals === "outcome"
      ? { kind: "outcome", failure: 0, success: 1000 }
      : signals
        ? { kind: "outcome", failure: Number(signals.split(":")[0]), success: Number(signals.split(":")[1]) }
        : POPULATION.signalMean;
const described =
  signalMean.kind === "profile"
    ? "signals centred on the profile's success share"
    : `signals centred on the outcome, from ${signalMean.failure} (failure) to ${signalMean.success} (success)`;

const started = performance.now();
const result = runSimulation({ seed, size: FULL, signalMean });
const seconds = (performance.now() - started) / 1000;

console.log(
  `Scoring model v2, seeded simulation: seed "${seed}", ${FULL.agentsPerProfile} agents per profile, ` +
    `${described}\n`,
);
console.log(formatTable(result));
console.log("");
for (const note of result.notes) console.log(`- ${note}`);
const missed = result.rows.filter((r) => !r.pass);
console.log(`\n${result.rows.length - missed.length} of ${result.rows.length} targets met in ${seconds.toFixed(1)} s`);
if (missed.length > 0) process.exitCode = 1;
