// docs/scoring.md's version 4 constants table against MODEL_V4: every leaf named once, with its value.

import { describe, expect, it } from "vitest";
import doc from "../../../docs/scoring.md?raw";
import { DAY_MS, HOUR_MS, MODEL_V4 } from "../../../src/domain/model/index";

function table(name: string): string[][] {
  const section = doc.split(`<!-- ${name}: begin -->`)[1]?.split(`<!-- ${name}: end -->`)[0];
  if (!section) throw new Error(`docs/scoring.md has no ${name} table`);
  return section
    .trim()
    .split("\n")
    .slice(2)
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
}

function leaves(value: unknown, path: string[] = []): [string, unknown][] {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leaves(v, [...path, k]));
  }
  return [[path.join("."), value]];
}

/** A value as the page writes it: "30 days", "48 hours", "2/3", "0.0003", "medium". */
function parse(text: string): unknown {
  const days = /^([\d.,]+) days?$/.exec(text);
  if (days) return Number(days[1].replace(/,/g, "")) * DAY_MS;
  const hours = /^([\d.]+) hours?$/.exec(text);
  if (hours) return Number(hours[1]) * HOUR_MS;
  const fraction = /^(\d+)\/(\d+)$/.exec(text);
  if (fraction) return Number(fraction[1]) / Number(fraction[2]);
  if (/^-?[\d.,]+(e-?\d+)?$/.test(text)) return Number(text.replace(/,/g, ""));
  return text;
}

describe("the version 4 constants table of docs/scoring.md", () => {
  it("names every constant of MODEL_V4 once, with its value", () => {
    const documented = table("constants-v4").map(([, code, value]) => [code.replace(/`/g, ""), parse(value)] as const);
    expect(new Set(documented.map(([p]) => p)).size).toBe(documented.length);
    expect(documented).toEqual(leaves(MODEL_V4));
  });
});
