// The simulation's rows and how they print: each row measured under each signal model, with the
// attacker's price; the rows injected into Bitcoin OTC in a table of their own. A row with a target
// says "pass" only when every measurement meets it.

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
  /** The attack's price: accounts, receipted dealings with trusted owners, days (empty for properties of honest agents). */
  price: string;
  cell: Cell;
}

export interface SignalResult {
  signal: SignalName;
  rows: Row[];
  notes: string[];
}

export interface SimulationResult {
  seed: string;
  results: SignalResult[];
  /** The rows injected into Bitcoin OTC (one network, signals from its ratings). */
  otc: Row[];
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

/** pass when every cell meets its target, miss when one does not, "" when the row has none. */
export function verdict(cells: Cell[]): "pass" | "**miss**" | "" {
  if (cells.every((c) => c.pass === null)) return "";
  return cells.every((c) => c.pass !== false) ? "pass" : "**miss**";
}

export function formatTable(result: SimulationResult): string {
  const signals = result.results.map((r) => r.signal);
  const head = ["Attack or property", "Target", "Price", ...signals, ""];
  const lines = [`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`];
  for (const key of result.results[0].rows.map((r) => r.key)) {
    const rows = result.results.map((r) => r.rows.find((x) => x.key === key)!);
    lines.push(`| ${[rows[0].attack, rows[0].target, rows[0].price || "–", ...rows.map((r) => r.cell.text), verdict(rows.map((r) => r.cell))].join(" | ")} |`);
  }
  if (result.otc.length > 0) {
    lines.push("", "| Injected into Bitcoin OTC | Target | Price | OTC (kept) | |", "| --- | --- | --- | --- | --- |");
    for (const r of result.otc) lines.push(`| ${[r.attack, r.target, r.price || "–", r.cell.text, verdict([r.cell])].join(" | ")} |`);
  }
  return lines.join("\n");
}

/** Every row with a target that some measurement misses. */
export function misses(result: SimulationResult): string[] {
  const keys = result.results[0].rows.map((r) => r.key);
  const synthetic = keys.filter((key) => verdict(result.results.map((r) => r.rows.find((x) => x.key === key)!.cell)) === "**miss**");
  return [...synthetic, ...result.otc.filter((r) => verdict([r.cell]) === "**miss**").map((r) => `otc:${r.key}`)];
}
