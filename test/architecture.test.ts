/// <reference types="vite/client" />
// Imports run one way: app → routes → http → durable → db → domain (net stands apart, env and
// version at the bottom), and there is no import cycle anywhere in src/. Type-only imports count.
import { describe, expect, it } from "vitest";

const sources = import.meta.glob(["../src/**/*.ts", "../src/**/*.tsx"], { query: "?raw", import: "default", eager: true }) as Record<string, string>;

// Lower number = lower floor. A file may import from its own floor or a lower one.
const FLOORS: [RegExp, number, string][] = [
  [/^src\/(index|app)\.ts$/, 7, "entry"],
  [/^src\/(routes|queues)\//, 6, "routes"],
  [/^src\/http\//, 5, "http"],
  [/^src\/durable\//, 4, "durable"],
  [/^src\/db\//, 3, "db"],
  [/^src\/net\//, 2, "net"],
  [/^src\/domain\//, 1, "domain"],
  [/^src\/(env|version|d1-meter)\.ts$/, 0, "platform"],
];

const files = Object.keys(sources)
  .filter((p) => !p.endsWith(".d.ts"))
  .map((p) => p.replace(/^\.\.\//, ""));

function floorOf(file: string): { level: number; name: string } {
  const found = FLOORS.find(([pattern]) => pattern.test(file));
  if (!found) throw new Error(`${file} is on no floor: add it to FLOORS`);
  return { level: found[1], name: found[2] };
}

function resolve(from: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const parts = from.split("/").slice(0, -1);
  for (const segment of specifier.split("/")) {
    if (segment === "..") parts.pop();
    else if (segment !== ".") parts.push(segment);
  }
  const base = parts.join("/");
  for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`]) if (files.includes(candidate)) return candidate;
  return base.endsWith(".json") ? null : `${base} (unresolved)`;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/g;
const DYNAMIC = /import\(\s*"([^"]+)"\s*\)/g;

const graph = new Map<string, string[]>(
  files.map((file) => {
    const text = sources[`../${file}`];
    const targets = [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC)]
      .map((m) => resolve(file, m[1]))
      .filter((t): t is string => t !== null);
    return [file, [...new Set(targets)]];
  }),
);

describe("architecture", () => {
  it("finds the source files and their imports", () => {
    expect(files.length).toBeGreaterThan(20);
    expect(graph.get("src/app.ts")).toContain("src/routes/agents.ts");
    // JSX modules (the public page) are sources too.
    expect(graph.get("src/routes/public-page.ts")).toContain("src/http/wire/page/agent-page.tsx");
  });

  it("resolves every relative import", () => {
    const unresolved = [...graph].flatMap(([file, targets]) => targets.filter((t) => t.endsWith("(unresolved)")).map((t) => `${file} → ${t}`));
    expect(unresolved).toEqual([]);
  });

  it("never imports from a higher floor", () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((t) => floorOf(t).level > floorOf(file).level)
        .map((t) => `${file} (${floorOf(file).name}) → ${t} (${floorOf(t).name})`),
    );
    expect(upward).toEqual([]);
  });

  it("has no import cycle", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, "open");
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].join(" → "));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, "done");
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });

  it("keeps every file under src/ at 400 lines or fewer", () => {
    const long = files.filter((file) => sources[`../${file}`].split("\n").length > 401).map((file) => `${file}: ${sources[`../${file}`].split("\n").length - 1}`);
    expect(long).toEqual([]);
  });

  it("spells out the five dimension names only in the model (DIMENSIONS), the tables' column definitions and tables the compiler checks whole", () => {
    const names = ["reliability", "quality", "financial", "security", "stability"];
    const spelled = files.filter((file) => names.every((name) => new RegExp(`\\b${name}\\b`).test(sources[`../${file}`])));
    // A `Record<Dimension, …>` table fails to compile when a dimension is missing or unknown.
    const checked = spelled.filter((file) => !/Record<Dimension,/.test(sources[`../${file}`]));
    // entry-text.ts: the stored form's frozen dictionary, bytes that rows already written need (a
    // new dimension compresses less well under it, and never reads wrong).
    expect(checked.sort()).toEqual(["src/db/entry-text.ts", "src/db/legacy-schema.ts", "src/db/shard-schema.ts"]);
    expect(spelled).toContain("src/domain/model/vocabulary.ts");
  });

  it("keeps the agent object's feature modules apart: they reach the kernel through its host interface only", () => {
    // Each feature module owns its statements; they share the host interface and helpers (entry-writes, replay, credibility, items).
    const features = files.filter((f) => /^src\/durable\/agent\/(reports|profile|identity|disputes|retention|model|sweep)\.ts$/.test(f));
    expect(features).toHaveLength(7);
    const reaching = features.flatMap((file) =>
      (graph.get(file) ?? [])
        .filter((t) => ["src/durable/agent.ts", "src/durable/agent/kernel.ts", "src/durable/agent/commit.ts", "src/durable/agent/group.ts", "src/durable/agent/outbox.ts"].includes(t) || (features.includes(t) && t !== file))
        .map((t) => `${file} → ${t}`),
    );
    expect(reaching).toEqual([]);
  });
});
