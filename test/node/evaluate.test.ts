// `npm run evaluate` (scripts/evaluate.ts) as a command: a malformed file or command line is refused
// with one line naming it and exit status 2; a network with labels writes both protocols with --out,
// one without labels only `kept`. (The figures are checked in test/domain/evaluate.test.ts.)
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const execute = promisify(execFile);

async function evaluate(args: string[]) {
  try {
    const { stdout, stderr } = await execute(join("node_modules", ".bin", "tsx"), ["scripts/evaluate.ts", ...args], { env: { ...process.env, NO_COLOR: "1" } });
    return { status: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const dir = mkdtempSync(join(tmpdir(), "evaluate-"));
const FIXTURE = "test/domain/evaluate/network.csv";
const LABELS = "test/domain/evaluate/labels.csv";

describe("npm run evaluate", () => {
  it("refuses a malformed line with one line naming it, exit 2", async () => {
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, "source,target,rating,time\n1,2,3,100\n1,2,three,200\n");
    const r = await evaluate([bad]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`${bad}: line 3: rating is not an integer: "three"`);
    const labels = join(dir, "labels.csv");
    writeFileSync(labels, "2,+1\n3,benign\n");
    const l = await evaluate([FIXTURE, "--labels", labels]);
    expect(l.status).toBe(2);
    expect(l.stderr.trim()).toBe(`${labels}: line 2: label is not 1, +1 or -1: "benign"`);
  });

  it("refuses a bad command line, exit 2", async () => {
    for (const [args, message] of [
      [[FIXTURE, "--anchor", "one"], '--anchor must be an integer, not "one"'],
      [[join(dir, "missing.csv")], `${join(dir, "missing.csv")}: cannot be read (ENOENT)`],
      [["--labels", LABELS], "--labels goes with a network file (without one, OTC's labels are used)"],
    ] as const) {
      const r = await evaluate([...args]);
      expect(r.status).toBe(2);
      expect(r.stderr.trim()).toBe(message);
    }
  });

  it("writes both protocols with labels, and only kept without", async () => {
    const out = join(dir, "out.json");
    const r = await evaluate([FIXTURE, "--labels", LABELS, "--out", out]);
    expect(r.status).toBe(0);
    const written = JSON.parse(readFileSync(out, "utf8"));
    expect(Object.keys(written.protocols)).toEqual(["kept", "removed"]);
    expect(written.protocols.kept.users[0]).toEqual({ id: 1, composite: expect.any(Number), s: expect.any(Number), recommendation: expect.any(String), label: null });
    expect(written.protocols.removed.ratings).toHaveLength(158);
    expect(written.protocols.kept.ratings[58]).toEqual({ line: 58, before: { composite: 333, s: 333, recommendation: "review" } });
    const bare = await evaluate([FIXTURE, "--out", out]);
    expect(bare.status).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(out, "utf8")).protocols)).toEqual(["kept"]);
  });
});
