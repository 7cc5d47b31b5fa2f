// docs/scoring.md against the model: the constants table names every leaf of MODEL (version 3) once,
// with its value, and the worked example's table is what the model computes, cell for cell.

import { describe, expect, it } from "vitest";
import doc from "../../docs/scoring.md?raw";
import { DAY_MS, HOUR_MS, MODEL, forgetTo } from "../../src/domain/model/index";
import { A, B, C, D, DAY, E, cells, workedExample } from "./scoring-example";

/** The rows of the table between two markers, cells trimmed. */
function table(name: string): string[][] {
  const section = doc.split(`<!-- ${name}: begin -->`)[1]?.split(`<!-- ${name}: end -->`)[0];
  if (!section) throw new Error(`docs/scoring.md has no ${name} table`);
  return section
    .trim()
    .split("\n")
    .slice(2)
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
}

/** Every leaf of MODEL as [dotted path, value]; arrays are leaves. */
function leaves(value: unknown, path: string[] = []): [string, unknown][] {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leaves(v, [...path, k]));
  }
  return [[path.join("."), value]];
}

/** A value as the page writes it: "0.25", "180 days", "48 hours", "2/3", "reliability, security, stability". */
function parse(text: string): unknown {
  const days = /^([\d.,]+) days?$/.exec(text);
  if (days) return Number(days[1].replace(/,/g, "")) * DAY_MS;
  const hours = /^([\d.]+) hours?$/.exec(text);
  if (hours) return Number(hours[1]) * HOUR_MS;
  const fraction = /^(\d+)\/(\d+)$/.exec(text);
  if (fraction) return Number(fraction[1]) / Number(fraction[2]);
  if (/^-?[\d.,]+(e-?\d+)?$/.test(text)) return Number(text.replace(/,/g, ""));
  if (text.includes(", ")) return text.split(", ");
  return text;
}

describe("the constants table of docs/scoring.md", () => {
  const rows = table("constants");

  it("names every constant of MODEL once, with its value", () => {
    const documented = rows.map(([, code, value]) => [code.replace(/`/g, ""), parse(value)] as const);
    const paths = documented.map(([p]) => p);
    expect(new Set(paths).size).toBe(paths.length);
    expect(documented).toEqual(leaves(MODEL).map(([p, v]) => [p, Array.isArray(v) ? [...v] : v]));
  });

  it("is version 3", () => {
    expect(rows.find(([, code]) => code === "`version`")?.[2]).toBe("3");
  });
});

describe("the worked example of docs/scoring.md", () => {
  const example = workedExample();

  it("has the table the model computes, cell for cell", () => {
    expect(table("worked example")).toEqual(example.steps.map(cells));
  });

  it("weighs the reports as the page says: damped within a day, 1.5 with a receipt", () => {
    expect(example.weights.slice(0, 14)).toEqual(Array.from({ length: 14 }, () => 1));
    const damped = [1, 2, 3, 4, 5].map((n) => 1.5 / Math.sqrt(n));
    example.weights.slice(14, 19).forEach((w, i) => expect(w).toBeCloseTo(damped[i], 15));
    expect(doc).toContain("1.5, 1.06, 0.87, 0.75 and 0.67");
  });

  it("keeps C at its seed and E's slander within its cap of one day", () => {
    const day4 = example.steps.find((s) => s.label.startsWith("day 4"))!;
    expect(day4.state.credibility[C]).toBeUndefined();
    expect([A, B, D, E].map((r) => day4.state.credibility[r])).toEqual([1, 1, 1, 1]);
    const e = forgetTo(day4.state, day4.at).reporters[E].record.reliability;
    expect(e.a + e.b).toBeCloseTo(2.5, 4); // capped at 2.5 at 15:04, forgotten for two minutes since
  });

  it("decays the shown evidence on the model swap and keeps the record", () => {
    const before = example.steps.find((s) => s.label.startsWith("day 4"))!;
    const swap = example.steps.find((s) => s.label.startsWith("model swap"))!;
    const f = forgetTo(before.state, swap.at);
    expect(swap.state.reporters[A].record).toEqual(f.reporters[A].record);
    expect(swap.state.reporters[A].dims.reliability.a).toBeCloseTo(f.reporters[A].dims.reliability.a * 0.5, 12);
    expect(swap.at - before.at).toBeLessThan(DAY);
  });
});
