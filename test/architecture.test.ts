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
  [/^src\/(env|version|d1-meter|log)\.ts$/, 0, "platform"],
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

// The targets a file imports for types alone: every statement naming them is `import type { … }`
// or marks each name `type`.
const isTypeOnly = (statement: string) => {
  const m = /^\s*(?:import|export)\s+(type\s+)?\{([^}]*)\}/.exec(statement);
  return !!m && (!!m[1] || m[2].split(",").every((name) => !name.trim() || /^type\s/.test(name.trim())));
};
const typeOnlyImports = new Map<string, Set<string>>(
  files.map((file) => {
    const statements = [...sources[`../${file}`].matchAll(IMPORT)].map((m) => ({ target: resolve(file, m[1]), typeOnly: isTypeOnly(m[0]) }));
    const typed = statements.filter((s) => s.typeOnly).map((s) => s.target);
    const valued = statements.filter((s) => !s.typeOnly).map((s) => s.target);
    return [file, new Set(typed.filter((t): t is string => t !== null && !valued.includes(t)))];
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

  it("keeps the agent object small: at most 2,000 lines in all, no file over 300, the kernel at most 250 (as Prettier formats them: npm test checks it)", () => {
    const lines = (file: string) => sources[`../${file}`].replace(/\n$/, "").split("\n").length;
    const object = files.filter((f) => f === "src/durable/agent.ts" || f.startsWith(AGENT_DIR));
    expect(object.length).toBeGreaterThan(10);
    expect(object.reduce((sum, f) => sum + lines(f), 0)).toBeLessThanOrEqual(2_000);
    expect(object.filter((f) => lines(f) > 300).map((f) => `${f}: ${lines(f)}`)).toEqual([]);
    expect(lines(`${AGENT_DIR}kernel.ts`)).toBeLessThanOrEqual(250);
  });

  it("keeps the agent object's feature modules apart: they reach the kernel through its host interface only", () => {
    // docs/architecture.md: the kernel serialises, loads, commits and publishes; each feature module
    // owns its statements and reaches the kernel only through the host interface, sharing helpers.
    // Every file under src/durable/agent/ has one of these parts: a new one must be placed here.
    const unplaced = files.filter((f) => f.startsWith(AGENT_DIR) && !(nameOf(f) in AGENT_PARTS));
    expect(unplaced).toEqual([]);
    const missing = Object.keys(AGENT_PARTS).filter((name) => !files.includes(`${AGENT_DIR}${name}.ts`));
    expect(missing).toEqual([]);
    expect(Object.values(AGENT_PARTS).filter((part) => part === "feature")).toHaveLength(7);
    expect(agentViolations(graph, typeOnlyImports)).toEqual([]);
  });

  it("lets no route, no queue consumer, nothing of http/ and not the Worker's entry import the agent object's internals (only its class and stub in src/durable/agent.ts)", () => {
    expect(internalsReached(graph)).toEqual([]);
  });

  it("would catch a feature module reaching the kernel or another feature, a helper reaching a feature, a route reaching an internal", () => {
    // The checks above run on these graphs too: each planted import must be named.
    const planted = (file: string, target: string, typeOnly = false) => {
      const g = new Map(graph);
      g.set(file, [...(graph.get(file) ?? []), target]);
      const types = new Map(typeOnlyImports);
      if (typeOnly) types.set(file, new Set([...(typeOnlyImports.get(file) ?? []), target]));
      return { g, types };
    };
    const feature = planted("src/durable/agent/reports.ts", "src/durable/agent/kernel.ts");
    expect(agentViolations(feature.g, feature.types)).toEqual(["src/durable/agent/reports.ts (feature) → src/durable/agent/kernel.ts (kernel)"]);
    const other = planted("src/durable/agent/sweep.ts", "src/durable/agent/disputes.ts", true);
    expect(agentViolations(other.g, other.types)).toEqual(["src/durable/agent/sweep.ts (feature) → src/durable/agent/disputes.ts (feature)"]);
    const group = planted("src/durable/agent/retention.ts", "src/durable/agent/group.ts");
    expect(agentViolations(group.g, group.types)).toEqual(["src/durable/agent/retention.ts (feature) → src/durable/agent/group.ts (kernel)"]);
    // A feature names its timer by the Timer interface (a type), never the alarm's machinery.
    const timers = planted("src/durable/agent/profile.ts", "src/durable/agent/timers.ts");
    expect(agentViolations(timers.g, timers.types)).toEqual(["src/durable/agent/profile.ts (feature) → src/durable/agent/timers.ts (kernel)"]);
    const timerType = planted("src/durable/agent/profile.ts", "src/durable/agent/timers.ts", true);
    expect(agentViolations(timerType.g, timerType.types)).toEqual([]);
    const helper = planted("src/durable/agent/credibility.ts", "src/durable/agent/model.ts", true);
    expect(agentViolations(helper.g, helper.types)).toEqual(["src/durable/agent/credibility.ts (shared) → src/durable/agent/model.ts (feature)"]);
    const kernel = planted("src/durable/agent/commit.ts", "src/durable/agent/reports.ts", true);
    expect(agentViolations(kernel.g, kernel.types)).toEqual(["src/durable/agent/commit.ts (kernel) → src/durable/agent/reports.ts (feature)"]);
    const route = planted("src/routes/transactions.ts", "src/durable/agent/host.ts", true);
    expect(internalsReached(route.g)).toEqual(["src/routes/transactions.ts → src/durable/agent/host.ts"]);
    const http = planted("src/http/agents.ts", "src/durable/agent/kernel.ts");
    expect(internalsReached(http.g)).toEqual(["src/http/agents.ts → src/durable/agent/kernel.ts"]);
    const queue = planted("src/queues/reconcile.ts", "src/durable/agent/outbox.ts");
    expect(internalsReached(queue.g)).toEqual(["src/queues/reconcile.ts → src/durable/agent/outbox.ts"]);
  });
});

// The agent's object: src/durable/agent.ts (its RPC face) over the parts in src/durable/agent/.
const AGENT_DIR = "src/durable/agent/";
type Part = "kernel" | "shared" | "feature";
/** kernel: serialises, loads, commits, publishes, runs the alarm; shared: the host interface and the helpers features share; feature: one area's changes. */
const AGENT_PARTS: Record<string, Part> = {
  kernel: "kernel",
  group: "kernel",
  commit: "kernel",
  outbox: "kernel",
  timers: "kernel",
  host: "shared",
  credibility: "shared",
  reports: "feature",
  profile: "feature",
  identity: "feature",
  disputes: "feature",
  retention: "feature",
  model: "feature",
  sweep: "feature",
};

const nameOf = (file: string) => file.slice(AGENT_DIR.length).replace(/\.tsx?$/, "");
const partOf = (file: string): Part | null => (file.startsWith(AGENT_DIR) ? (AGENT_PARTS[nameOf(file)] ?? null) : null);

/**
 * The imports across the object's parts that its design forbids: a feature reaches no kernel part
 * and no other feature (it may name the Timer interface of timers.ts, as a type, to give its timer);
 * a shared helper reaches no kernel part and no feature; the kernel reaches no feature (jobs come to
 * it through the host interface).
 */
function agentViolations(g: Map<string, string[]>, typeOnly: Map<string, Set<string>>): string[] {
  return [...g].flatMap(([file, targets]) => {
    const from = partOf(file);
    if (!from) return [];
    return targets
      .filter((t) => {
        const to = partOf(t);
        if (!to || t === file) return false;
        if (from === "feature") return to === "feature" || (to === "kernel" && !(t === `${AGENT_DIR}timers.ts` && typeOnly.get(file)?.has(t)));
        if (from === "shared") return to !== "shared";
        return to === "feature";
      })
      .map((t) => `${file} (${from}) → ${t} (${partOf(t)})`);
  });
}

/** Imports of the object's internals from routes/, queues/, http/ or the Worker's entry (they call the object through src/durable/agent.ts). */
function internalsReached(g: Map<string, string[]>): string[] {
  return [...g]
    .filter(([file]) => /^src\/(routes|queues|http)\//.test(file) || /^src\/(index|app)\.ts$/.test(file))
    .flatMap(([file, targets]) => targets.filter((t) => t.startsWith(AGENT_DIR)).map((t) => `${file} → ${t}`));
}
