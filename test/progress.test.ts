// scripts/progress.ts: the progress line long admin commands print (and sweeps will).
import { describe, expect, it } from "vitest";
import { formatDuration, progress, progressLine } from "../scripts/progress";

describe("progress lines", () => {
  it("say how far, of what total, and the time left at the rate so far", () => {
    expect(progressLine("archive", "agents", 1500, 4200, 130_000)).toBe("archive: 1,500 of 4,200 agents (35%), 2 min 10 s so far, about 3 min 54 s left");
    expect(progressLine("archive", "agents", 0, 4200, 1_000)).toBe("archive: 0 of 4,200 agents (0%), 1 s so far");
    expect(progressLine("archive", "agents", 4200, 4200, 370_000)).toBe("archive: 4,200 of 4,200 agents (100%), 6 min 10 s so far");
    expect(progressLine("reseal", "secrets", 300, null, 5_000)).toBe("reseal: 300 secrets, 5 s so far");
    expect(progressLine("backfill", "agents", 0, 0, 10)).toBe("backfill: 0 of 0 agents (100%), 0 s so far");
    expect(formatDuration(7_384_000)).toBe("2 h 03 min");
  });

  it("print the first and the last update and at most one line every everyMs between, and take a total the work passed", () => {
    const lines: string[] = [];
    const clock = { now: 0 };
    const bar = progress("run", { unit: "rows", total: 100, everyMs: 2000, now: () => clock.now, print: (l) => lines.push(l) });
    clock.now = 1000;
    bar.update(10);
    clock.now = 1500;
    bar.update(20); // within 2 s of the last line: not printed
    clock.now = 3000;
    bar.update(30);
    clock.now = 3100;
    bar.update(120); // past the estimate: the total was an estimate, and the end is printed
    clock.now = 4000;
    bar.done("snapshot published");
    expect(lines).toEqual([
      "run: 10 of 100 rows (10%), 1 s so far, about 9 s left",
      "run: 30 of 100 rows (30%), 3 s so far, about 7 s left",
      "run: 120 of 120 rows (100%), 3 s so far",
      "run: done, 120 rows in 4 s; snapshot published",
    ]);
  });
});
