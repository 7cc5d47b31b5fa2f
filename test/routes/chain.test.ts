// The agent's history as a chain of entries: every change one entry, chained, naming no reporter and
// no free text; each report's 201 carries a signed promise of its leaf.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from "jose";
import { describe, expect, it } from "vitest";
import { readEntries } from "../../src/db/history";
import { replayOf } from "../../src/domain/replay";
import { checkChain, GENESIS, saltedHash, type Entry } from "../../src/domain/entries";
import { entryCommit } from "../../src/domain/log";
import type { Agent } from "../agent-under-test";
import { ADMIN, agentConfig, bearer, call, createOperator, registerAgent, shardOf } from "../helpers";

const entriesOf = async (sid: string) => readEntries(await shardOf(sid), sid);
const live = (sid: string) => runInDurableObject(env.AGENT.getByName(sid), (o) => (o as Agent).inspect());

async function reportOn(key: string, sid: string, extra: Record<string, unknown> = {}) {
  const res = await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "success", ...extra } });
  expect(res.status).toBe(201);
  return (await res.json()) as { transaction_id: number; log_promise: string };
}

describe("the chain of an agent's entries", () => {
  it("holds every change, in order, each linked to the one before, and replays to the live evidence", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    await reportOn(reporter.key, sid, { qualitySignal: 900 });
    await reportOn(owner.key, sid, { outcome: "partial" });
    expect((await call(`/agents/${sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, modelName: "other" } })).status).toBe(200);
    expect((await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
    const stored = await entriesOf(sid);
    // No snapshot names the reporter: it reports at credibility 0, with no credibility entry before it.
    expect(stored.map((e) => e.kind)).toEqual(["registration", "report", "report", "config", "status"]);
    expect(stored.map((e) => e.n)).toEqual([1, 2, 3, 4, 5]);
    expect(stored[0].entry.prev).toBe(GENESIS);
    expect(await checkChain(stored.map((e) => e.text))).toBeNull();
    const state = await live(sid);
    expect(state.record!.chainHash).toBe(stored[4].hash);
    const replayed = replayOf(stored.map((e) => ({ entry: e.entry, who: e.operator })), Date.parse(state.record!.createdAt));
    expect(replayed.state.model).toEqual(state.record!.evidence);
  });

  it("names reporters only by a commitment no other agent shares, and free text only by salted hashes", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const [a, b] = [await registerAgent(owner.key), await registerAgent(owner.key)];
    await reportOn(reporter.key, a.sid, { transactionType: "wire-transfer-to-acme", metadata: { invoice: "INV-7731" } });
    await reportOn(reporter.key, b.sid);
    const [ea, eb] = [await entriesOf(a.sid), await entriesOf(b.sid)];
    const [ra, rb] = [ea.find((e) => e.kind === "report"), eb.find((e) => e.kind === "report")];
    if (ra?.entry.kind !== "report" || rb?.entry.kind !== "report") throw new Error("not reports");
    expect(ra.entry.reporter).toMatch(/^[0-9a-f]{64}$/);
    expect(ra.entry.reporter).not.toBe(rb.entry.reporter);
    for (const text of ea.map((e) => e.text)) {
      expect(text).not.toContain("wire-transfer");
      expect(text).not.toContain("INV-7731");
      expect(text).not.toContain(`"${reporter.id}"`);
      expect(text).not.toContain("Agent");
    }
    expect(ra.entry.type).toBe(await saltedHash(ra.salt!, "type", "wire-transfer-to-acme"));
    expect(ra.entry.metadata).toBe(await saltedHash(ra.salt!, "metadata", JSON.stringify({ invoice: "INV-7731" })));
  });

  it("gives each report a promise signed with the service's keys, over the leaf of its entry", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const { log_promise } = await reportOn(owner.key, sid, { reliabilitySignal: 800 });
    const jwks = (await (await call("/.well-known/jwks.json")).json()) as JSONWebKeySet;
    const { payload, protectedHeader } = await compactVerify(log_promise, createLocalJWKSet(jwks));
    expect(protectedHeader.typ).toBe("trust-log-promise+jwt");
    const claims = JSON.parse(new TextDecoder().decode(payload)) as { sub: string; seq: number; entry_hash: string; log: string; leaf: { tag: string; commit: string } };
    const entry = (await entriesOf(sid)).find((e) => e.kind === "report")!;
    expect(claims).toMatchObject({ sub: sid, seq: entry.n, entry_hash: entry.hash, log: expect.stringMatching(/\/log\/[0-7]$/) });
    // The leaf itself names neither the agent nor the entry: its tag is keyed, its commit hides the entry and score.
    expect(Object.keys(claims.leaf).sort()).toEqual(["commit", "tag"]);
    const score = (entry.entry as Entry & { score: { composite: number } }).score.composite;
    expect(claims.leaf.commit).toBe(await entryCommit(entry.n, entry.hash, score, entry.entry.nonce));
  });

  it("keeps a withdrawn report, followed by its withdrawal, and replays without it", async () => {
    const owner = await createOperator();
    const reporter = await createOperator({ verified: true });
    const { sid } = await registerAgent(owner.key);
    const { transaction_id } = await reportOn(reporter.key, sid, { outcome: "failure" });
    expect((await call(`/transactions/${transaction_id}/dispute`, { headers: bearer(owner.key), body: { reason: "never happened" } })).status).toBe(201);
    expect((await call(`/disputes/${transaction_id}/respond`, { headers: bearer(reporter.key), body: { stand: false } })).status).toBe(200);
    const stored = await entriesOf(sid);
    // The dispute's opening is an entry too (it moves no score): every step of the agent is in its chain.
    expect(stored.map((e) => e.kind)).toEqual(["registration", "report", "dispute", "withdrawal"]);
    expect(stored[1].status).toBe("withdrawn");
    expect(stored[2].entry).toMatchObject({ kind: "dispute", of: 2, outcome: "opened" });
    expect(stored[3].entry).toMatchObject({ kind: "withdrawal", of: 2 });
    expect(await checkChain(stored.map((e) => e.text))).toBeNull();
    const state = await live(sid);
    const replayed = replayOf(stored.map((e) => ({ entry: e.entry, who: e.operator })), Date.parse(state.record!.createdAt));
    expect(replayed.state.model).toEqual(state.record!.evidence);
    // The withdrawn report's pair is gone, from the replay and from the shard.
    expect(replayed.state.pairs.size).toBe(0);
    expect(state.record!.evidence.reports).toBe(0);
  });
});
