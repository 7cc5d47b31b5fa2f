import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env";
import { startOf } from "../../src/http/session";
import { Sessions, type Start } from "../../src/http/sessions";
import { bearer, call, createOperator, freshIp, registerAgent, testApp } from "../helpers";

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
    const seen = Object.fromEntries(
      read.headers
        .get("x-d1-bookmark")!
        .split(",")
        .map((b) => b.split("=")),
    );
    expect(seen[name] >= written).toBe(true);
  });

  it("a keyed read without a bookmark reads the primary, and answers with none", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "failure" } });
    const read = await call(`/score/${sid}`, { headers: bearer(key) });
    expect(read.status).toBe(200);
    expect(read.headers.get("x-d1-bookmark")).toBeNull();
  });

  it("ignores a malformed bookmark instead of failing", async () => {
    const { key } = await createOperator();
    const res = await call("/me", { headers: bearer(key, { "x-d1-bookmark": "<script>" }) });
    expect(res.status).toBe(200);
  });
});

describe("where a request reads each database", () => {
  /** The real bindings, with every session each one opens recorded. */
  function recording() {
    const opened: string[] = [];
    const wrap = (name: string, database: D1Database) =>
      new Proxy(database, {
        get(target, prop) {
          if (prop === "withSession") return (constraint: string) => (opened.push(`${name} ${constraint}`), target.withSession(constraint));
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const e = env as Env;
    return { env: { ...e, DB: wrap("DB", e.DB), SHARD_0: wrap("SHARD_0", e.SHARD_0!) } as Env, opened };
  }

  const open = (start: Start, asked: Record<string, string> = {}) => {
    const r = recording();
    const sessions = new Sessions(r.env, asked, start);
    sessions.control();
    sessions.shard(0);
    return { sessions, opened: r.opened };
  };

  it("a keyed read without a bookmark opens no session: the binding itself reads the primary", async () => {
    const { sessions, opened } = open("primary");
    expect(opened).toEqual([]);
    expect(await sessions.shard(0).prepare("SELECT 1 AS one").first("one")).toBe(1);
    expect(sessions.header()).toBeNull();
  });

  it("a public read starts anywhere; a write starts at the primary; a bookmark is always honoured", () => {
    expect(open("replica").opened).toEqual(["DB first-unconstrained", "SHARD_0 first-unconstrained"]);
    expect(open("write").opened).toEqual(["DB first-primary", "SHARD_0 first-primary"]);
    const bookmark = "00000001-00000002-00004ff1-0123456789abcdef0123456789abcdef";
    expect(open("primary", { SHARD_0: bookmark }).opened).toEqual([`SHARD_0 ${bookmark}`]);
  });

  it("a public read may come from a replica: its session's bookmark comes back", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const pub = await call(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(pub.status).toBe(200);
    expect(pub.headers.get("x-d1-bookmark")).toMatch(/SHARD_\d=/);
  });

  it("a request starts by its method and path: public reads anywhere, other reads the primary, the rest from the primary on", () => {
    const cases: [string, string, Start][] = [
      ["GET", "/score/SID-0x0000000000000001", "primary"],
      ["HEAD", "/score/SID-0x0000000000000001", "primary"],
      ["GET", "/report/SID-0x0000000000000001", "primary"],
      ["GET", "/me", "primary"],
      ["GET", "/admin/applications", "primary"],
      ["GET", "/agents/SID-0x0000000000000001/transactions", "primary"],
      ["GET", "/score/SID-0x0000000000000001/public", "replica"],
      ["HEAD", "/score/SID-0x0000000000000001/public", "replica"],
      ["GET", "/badge/SID-0x0000000000000001.svg", "replica"],
      ["GET", "/agents/SID-0x0000000000000001", "replica"],
      ["GET", "/status/1", "replica"],
      ["POST", "/transactions", "write"],
      ["POST", "/keys", "write"],
      ["DELETE", "/webhooks/1", "write"],
      ["PATCH", "/agents/SID-0x0000000000000001", "write"],
      ["OPTIONS", "/score/SID-0x0000000000000001/public", "write"],
    ];
    for (const [method, path, start] of cases) expect([method, path, startOf(method, path)]).toEqual([method, path, start]);
  });

  it("through the app: a keyed read opens no session on the control database, a write that changes it opens one at the primary and answers its bookmark", async () => {
    const { key } = await createOperator();
    const { env: recorded, opened } = recording();
    const h = testApp({ env: { ...recorded } });
    const read = await h.request("/keys", { headers: bearer(key) });
    expect(read.status).toBe(200);
    expect(opened).toEqual([]);
    expect(read.headers.get("x-d1-bookmark")).toBeNull();
    const made = await h.request("/keys", { headers: bearer(key), body: { scopes: ["agents:read"] } });
    expect(made.status).toBe(201);
    expect(opened).toEqual(["DB first-primary"]);
    expect(made.headers.get("x-d1-bookmark")).toMatch(/^DB=[0-9a-f-]+$/);
  });
});
