import { describe, expect, it } from "vitest";
import { bearer, call, createOperator, registerAgent } from "../helpers";

describe("D1 sessions (read replicas)", () => {
  it("a write answers with a bookmark, and a read sent with it sees the write", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const write = await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "failure" } });
    expect(write.status).toBe(201);
    const bookmark = write.headers.get("x-d1-bookmark");
    expect(bookmark).toMatch(/^[0-9a-f-]+$/);
    const { updated_scores } = (await write.json()) as { updated_scores: { composite_score: number } };
    const read = await call(`/score/${sid}`, { headers: bearer(key, { "x-d1-bookmark": bookmark! }) });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { composite_score: number }).composite_score).toBe(updated_scores.composite_score);
    expect(read.headers.get("x-d1-bookmark")! >= bookmark!).toBe(true);
  });

  it("ignores a malformed bookmark instead of failing", async () => {
    const { key } = await createOperator();
    const res = await call("/me", { headers: bearer(key, { "x-d1-bookmark": "<script>" }) });
    expect(res.status).toBe(200);
  });
});
