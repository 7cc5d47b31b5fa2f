// The admin CLI's long commands (scripts/admin.ts) print their progress: how far, of what total, and
// the time left. Driven with a stand-in client whose answers are pages of work, and a clock that
// moves a minute a call, so the lines are exact.
import { describe, expect, it } from "vitest";
import type { TrustClient } from "../../clients/typescript";
import { parseCommandLine, run } from "../../scripts/admin";

/** A client whose calls to `path` (POST or GET) answer `pages` in turn, each call a minute later on `clock`. */
function client(path: string, pages: unknown[], clock: { now: number }) {
  const calls: unknown[] = [];
  const answer = async (called: string, options: unknown) => {
    expect(called).toBe(path);
    calls.push(options);
    clock.now += 60_000;
    return { data: pages[calls.length - 1], response: new Response(null, { status: 200 }) };
  };
  const stand = { POST: answer, GET: answer };
  return { connect: () => stand as unknown as TrustClient, calls };
}

async function runCommand(argv: string[], path: string, pages: unknown[]) {
  const clock = { now: 0 };
  const lines: string[] = [];
  const { connect, calls } = client(path, pages, clock);
  const inv = parseCommandLine(argv, {});
  if (inv === "help") throw new Error("help");
  await run(inv, connect, (line) => lines.push(line), { now: () => clock.now, report: (line) => lines.push(line) });
  return { lines, calls };
}

const pass = (done: number, complete: boolean) => ({ cutoff: "2025-10-17T10:20:30.000Z", agents: 100, entries: 1000, pages: 10, bytes: 5000, failed: 0, complete, progress: { done, total: 300 } });

describe("progress of long admin commands", () => {
  it("archive: pass after pass to the directory's end, with the agents' total and the time left", async () => {
    const { lines, calls } = await runCommand(["archive", "--limit", "100"], "/admin/history/archive", [pass(100, false), pass(200, false), pass(300, true)]);
    expect(calls).toHaveLength(3);
    expect(lines.slice(0, 4)).toEqual([
      "archive: 100 of 300 agents (33%), 1 min 00 s so far, about 2 min 00 s left",
      "archive: 200 of 300 agents (66%), 2 min 00 s so far, about 1 min 00 s left",
      "archive: 300 of 300 agents (100%), 3 min 00 s so far",
      "archive: done, 300 agents in 3 min 00 s; 3000 entries moved in 30 archive pages, 0 agents failed",
    ]);
    expect(JSON.parse(lines.slice(4).join("\n"))).toEqual({ cutoff: "2025-10-17T10:20:30.000Z", agents: 300, entries: 3000, pages: 30, bytes: 15000, failed: 0, complete: true });
    // --once: one pass, whatever is left.
    expect((await runCommand(["archive", "--once"], "/admin/history/archive", [pass(100, false)])).calls).toHaveLength(1);
  });

  it("backfill-status-lists: page after page, of the unlisted agents the first page counted", async () => {
    const pages = [
      { listed: 200, skipped: 0, remaining: 300, next_cursor: "a" },
      { listed: 199, skipped: 1, remaining: 100, next_cursor: "b" },
      { listed: 100, skipped: 0, remaining: 0, next_cursor: null },
    ];
    const { lines, calls } = await runCommand(["backfill-status-lists", "--limit", "200"], "/admin/status-lists/backfill", pages);
    expect(calls).toEqual([{ body: { limit: 200, cursor: undefined } }, { body: { limit: 200, cursor: "a" } }, { body: { limit: 200, cursor: "b" } }]);
    expect(lines).toEqual([
      "status-list backfill: 200 of 500 agents (40%), 1 min 00 s so far, about 1 min 30 s left",
      "status-list backfill: 400 of 500 agents (80%), 2 min 00 s so far, about 30 s left",
      "status-list backfill: 500 of 500 agents (100%), 3 min 00 s so far",
      "status-list backfill: done, 500 agents in 3 min 00 s; 499 listed, 1 skipped",
      "Skipped agents (their object or the lists could not be reached) are listed by the next run, or on their first attestation.",
    ]);
  });

  it("credibility-run: the rows staged, of about as many as the last snapshot had", async () => {
    const snapshot = { id: "2026-11-27.12", day: "2026-11-27", published_at: "2026-11-27T00:02:10.000Z", operators: 3000, credible: 1200, pairs: 40_000 };
    const health = { status: "ok", snapshot_age_seconds: 60, problem: null };
    const running = (pairs: number) => ({ status: "in_progress", health, anchors: 3, snapshot, run: { id: "2026-11-28.1", started_at: "2026-11-28T03:30:00.000Z", shard: 0, shards: 2, pairs }, read: { rows: 20_000, pages: 4 } });
    const published = { status: "published", health, anchors: 3, snapshot: { ...snapshot, id: "2026-11-28.1", pairs: 41_000 }, run: null, read: { rows: 1_000, pages: 1 } };
    const { lines } = await runCommand(["credibility-run"], "/admin/model/credibility/run", [running(20_000), running(40_000), published]);
    expect(lines.slice(0, 4)).toEqual([
      "credibility run: 20,000 of 40,000 pairs (50%), 1 min 00 s so far, about 1 min 00 s left",
      "credibility run: 40,000 of 40,000 pairs (100%), 2 min 00 s so far",
      "credibility run: 41,000 of 41,000 pairs (100%), 3 min 00 s so far",
      "credibility run: done, 41,000 pairs in 3 min 00 s; snapshot 2026-11-28.1 published",
    ]);
    // With no anchor named, the job's status warns on standard error that nothing can be clear; with one, nothing is said.
    const warning = "warning: no anchor is named (npm run admin -- anchors --set ID,...): no reporter earns credibility and nothing can be clear";
    expect((await runCommand(["credibility"], "/admin/model/credibility", [{ ...published, anchors: 0 }])).lines[0]).toBe(warning);
    expect((await runCommand(["credibility"], "/admin/model/credibility", [published])).lines).not.toContain(warning);
  });
});
