// The simulation's rows and how they print: each row measured under each model (version 2 beside
// version 3 where that makes sense) and each signal model, with the attacker's cost.

export type SignalName = "profile" | "outcome";

/** One measurement: what prints, whether it meets the target (null: no target), and its figures for tests. */
export interface Cell {
  text: string;
  pass: boolean | null;
  figures: Record<string, number>;
}

export interface Row {
  /** Short stable key, for tests. */
  key: string;
  attack: string;
  target: string;
  /** The attacker's cost in accounts and days (empty for properties of honest agents). */
  cost: string;
  v2: Cell | null;
  v3: Cell;
}

export interface SignalResult {
  signal: SignalName;
  rows: Row[];
  notes: string[];
}

export interface SimulationResult {
  seed: string;
  results: SignalResult[];
  notes: string[];
  seconds: number;
}

export const pct = (n: number, of: number) => (of === 0 ? "n/a" : `${((100 * n) / of).toFixed(1)}%`);
export const share = (x: number) => `${(100 * x).toFixed(1)}%`;
export const days = (d: number) => (d === Infinity ? "never" : `${Number.isInteger(d) ? d : d.toFixed(1)} d`);
export const count = (n: number) => (n === Infinity ? "never" : Number.isInteger(n) ? `${n}` : n.toFixed(1));

export function cell(text: string, pass: boolean | null, figures: Record<string, number> = {}): Cell {
  return { text, pass, figures };
}

/** Whether a row meets its target under every signal model (null: no target). */
export function rowPass(rows: Row[]): boolean | null {
  const passes = rows.map((r) => r.v3.pass);
  if (passes.every((p) => p === null)) return null;
  return passes.every((p) => p !== false);
}

/** The table: one line per row key, v2 and v3 under each signal model. */
export function formatTable(result: SimulationResult): string {
  const signals = result.results.map((r) => r.signal);
  const head = ["Attack or property", "Target", "Attacker's cost", ...signals.map((s) => `v2, ${s}`), ...signals.map((s) => `v3, ${s}`), ""];
  const lines = [`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`];
  const keys = result.results[0].rows.map((r) => r.key);
  for (const key of keys) {
    const rows = result.results.map((r) => r.rows.find((x) => x.key === key)!);
    const first = rows[0];
    const pass = rowPass(rows);
    const verdict = pass === null ? "" : pass ? "pass" : "**miss**";
    const v2 = rows.map((r) => r.v2?.text ?? "–");
    const v3 = rows.map((r) => r.v3.text);
    lines.push(`| ${[first.attack, first.target, first.cost || "–", ...v2, ...v3, verdict].join(" | ")} |`);
  }
  return lines.join("\n");
}

/** Every row that has a target and misses it under some signal model. */
export function misses(result: SimulationResult): string[] {
  const keys = result.results[0].rows.map((r) => r.key);
  return keys.filter((key) => rowPass(result.results.map((r) => r.rows.find((x) => x.key === key)!)) === false);
}
