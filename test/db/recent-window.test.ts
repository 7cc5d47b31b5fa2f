// An agent's last day as its object holds it (src/db/recent-window.ts): what it reads when it
// wakes, and what it looks up on the shard past MAX_HELD records.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Loaded } from "../../src/db/agent-record";
import { MAX_HELD, RecentWindow } from "../../src/db/recent-window";

const NOW = Date.parse("2026-11-20T12:00:00.000Z");
let sids = 0;
const freshSid = () => `SID-0x${(0x5e5e_0000_0000 + ++sids).toString(16).padStart(16, "0")}`;

/**
 * Entries 1..count of a new agent on shard 0, a second apart up to NOW; those `keyed` picks carry
 * operator 7's Idempotency-Key `k<n>` and an answer whose result is n.
 */
async function seed(count: number, keyedEvery: number): Promise<{ sid: string; loaded: Loaded }> {
  const sid = freshSid();
  await env.SHARD_0.prepare(
    `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?1)
     INSERT INTO entries (sid, n, kind, at, body, hash, idem, answer)
     SELECT ?2, n, 'report', ?3 - (?1 - n) * 1000, '{}', 'h',
       CASE WHEN n % ?4 = 0 THEN '7' || char(10) || 'k' || n END,
       CASE WHEN n % ?4 = 0 THEN '{"h":"x","r":' || n || '}' END
     FROM c`,
  )
    .bind(count, sid, NOW, keyedEvery)
    .run();
  return { sid, loaded: { record: { seq: count } } as Loaded };
}

/** The shard's session, counting the statements it is asked for. */
function counted() {
  const d1 = env.SHARD_0.withSession("first-primary");
  const counter = { statements: 0, d1: { prepare: (q: string) => (counter.statements++, d1.prepare(q)) } as unknown as D1DatabaseSession };
  return counter;
}

describe("the recent window", () => {
  it("reads a number of statements that does not grow with the agent's unkeyed reports", async () => {
    const { sid, loaded } = await seed(3_000, 1_000);
    const c = counted();
    const w = new RecentWindow();
    await w.load(c.d1, sid, loaded, NOW);
    // The last entry's time, where the window starts, and one page of the three keyed entries.
    expect(c.statements).toBe(3);
    for (const n of [1_000, 2_000, 3_000]) expect(await w.find(7, { key: `k${n}`, requestHash: "x" }, NOW)).toEqual({ requestHash: "x", result: n });
    expect(c.statements).toBe(3);
  });

  it(`past ${MAX_HELD} records, finds a key older than those it holds on the shard, within the window`, async () => {
    const { sid, loaded } = await seed(MAX_HELD + 10, 1);
    const w = new RecentWindow();
    await w.load(env.SHARD_0.withSession("first-primary"), sid, loaded, NOW);
    // The newest MAX_HELD are held; k5 is not, and is still in the window (about 5.6 hours old).
    expect(await w.find(7, { key: "k5", requestHash: "x" }, NOW)).toEqual({ requestHash: "x", result: 5 });
    expect(await w.find(7, { key: `k${MAX_HELD + 10}`, requestHash: "x" }, NOW)).toEqual({ requestHash: "x", result: MAX_HELD + 10 });
    expect(await w.find(7, { key: "k0", requestHash: "x" }, NOW)).toBeNull();
  });
});
