import { describe, expect, it } from "vitest";
import { bearer, call, createOperator, registerAgent } from "../helpers";

describe("D1 sessions (read replicas)", () => {
  it("a write answers with a bookmark, and a read sent with it sees the write", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const write = await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "failure" } });
    expect(write.status).toBe(201);
    const bookmark = write.headers.get("x-d1-bookmark");
    // One bookmark per database the request touched: the agent's shard for a report.
    expect(bookmark).toMatch(/^SHARD_[01]=[0-9a-f-]+$/);
    const { updated_scores } = (await write.json()) as { updated_scores: { composite_score: number } };
    const read = await call(`/score/${sid}`, { headers: bearer(key, { "x-d1-bookmark": bookmark! }) });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { composite_score: number }).composite_score).toBe(updated_scores.composite_score);
    const [name, written] = bookmark!.split("=");
    const seen = Object.fromEntries(read.headers.get("x-d1-bookmark")!.split(",").map((b) => b.split("=")));
    expect(seen[name] >= written).toBe(true);
  });

  it("ignores a malformed bookmark instead of failing", async () => {
    const { key } = await createOperator();
    const res = await call("/me", { headers: bearer(key, { "x-d1-bookmark": "<script>" }) });
    expect(res.status).toBe(200);
  });
});
