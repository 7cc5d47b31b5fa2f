// The figures docs/performance.md quotes for the retention window: bytes a report's entry row takes
// on its shard (D1's own meta.size_after), and the archive's bytes and writes per report moved.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { listPages } from "../../src/db/history-archive";
import { ADMIN, agentConfig, bearer, createOperator, shardOf, T_CALL, testApp } from "../helpers";

const DAY = 86_400_000;
const REPORTS = 100;

async function sizeOf(shard: D1Database): Promise<number> {
  const res = await shard.prepare("SELECT 1").run();
  return (res.meta as { size_after?: number }).size_after ?? 0;
}

/** 100 reports 500 days ago on a new agent, with `metadata` bytes of random hex each: shard bytes grown, then archived. */
async function measure(metadataBytes: number) {
  const owner = await createOperator();
  const reporter = await createOperator({ verified: true });
  const app = testApp({ now: T_CALL - 500 * DAY });
  const res = await app.request("/register", { headers: bearer(owner.key), body: { name: "Sized", ...agentConfig } });
  const { sid } = (await res.json()) as { sid: string };
  const shard = await shardOf(sid);
  const before = await sizeOf(shard);
  for (let i = 0; i < REPORTS; i++) {
    app.clock.now = T_CALL - 500 * DAY + (i + 1) * 60_000;
    const metadata = metadataBytes === 0 ? undefined : { blob: Array.from(crypto.getRandomValues(new Uint8Array(metadataBytes / 2)), (b) => b.toString(16).padStart(2, "0")).join("") };
    const r = await app.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "purchase", outcome: "success", qualitySignal: 800, metadata } });
    expect(r.status).toBe(201);
  }
  const perRow = (await sizeOf(shard) - before) / REPORTS;
  app.clock.now = T_CALL;
  const pass = (await (await app.request("/admin/history/archive", { headers: ADMIN, body: { limit: 500 } })).json()) as { bytes: number; pages: number };
  const pages = await listPages(env.ARCHIVE_BUCKET, sid);
  const archived = pages.reduce((n, p) => n + p.last - p.first + 1, 0);
  return { perRow, r2BytesPerEntry: pass.bytes / archived, pages: pages.length, archived };
}

describe("retention figures", () => {
  it("measures a report's entry row on its shard and in the archive", async () => {
    const plain = await measure(0);
    const kib = await measure(1024);
    console.log(JSON.stringify({ figures: "retention", plain, kib }));
    // A row is a few hundred bytes plus its metadata; compressed pages hold it for less.
    expect(plain.perRow).toBeGreaterThan(200);
    expect(plain.perRow).toBeLessThan(1_500);
    // Random hex compresses to about half (src/db/entry-text.ts), and the row no longer spills a page.
    expect(kib.perRow).toBeGreaterThan(plain.perRow + 450);
    expect(kib.perRow).toBeLessThan(plain.perRow + 1_000);
    expect(plain.r2BytesPerEntry).toBeLessThan(plain.perRow);
    // The reports and the registration (a reporter no snapshot knows has c = 0: no credibility entry).
    expect(plain.archived).toBe(REPORTS + 1);
    expect(plain.pages).toBe(1);
  });
});
