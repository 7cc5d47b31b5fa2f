// The chaos run's table, as printed (and quoted in docs/operations.md).
import type { ChaosReport } from "./check";
import type { ChaosOptions } from "./plan";

export function formatReport(report: ChaosReport, options: ChaosOptions, elapsedMs: number): string {
  const width = Math.max(...report.figures.map(([label]) => label.length));
  const lines = [
    "",
    `chaos run: seed ${options.seed}, ${options.agents} agents, ${options.owners + options.reporters} operators, ${options.requests} planned requests, concurrency ${options.concurrency}, ${(elapsedMs / 1000).toFixed(0)} s`,
    "",
    ...report.figures.map(([label, value]) => `  ${label.padEnd(width)}  ${String(value).padStart(6)}`),
    "",
    "bad input under load (each must be a 4xx):",
    ...[...report.badInput].map(([label, b]) => `  ${label.padEnd(36)} sent ${b.sent}, answered ${b.answered}: ${Object.entries(b.statuses).map(([s, n]) => `${n}× ${s}`).join(", ") || "-"}`),
    ...(report.notes.length ? ["", ...report.notes.map((n) => `note: ${n}`)] : []),
    "",
    report.failures.length === 0 ? "PASS: nothing lost, doubled or stuck; every replay the stored answer; no 5xx" : `FAIL (${report.failures.length}):\n${report.failures.map((f) => `  - ${f}`).join("\n")}`,
  ];
  return lines.join("\n");
}
