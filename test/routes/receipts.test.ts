// Receipts: feedback backed by the agent's own signature is what the credibility job counts (a
// reporter's receipted dealings earn it age and breadth); a bad receipt never fails a report, and one
// receipt never counts twice.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { CompactSign, importJWK, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import type { Agent } from "../agent-under-test";
import { ADMIN, bearer, call, createOperator, registerAgent, reportRow, reportRows, shardOf, testApp } from "../helpers";

async function agentKey() {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const secret = (await crypto.subtle.exportKey("jwk", pair.privateKey)) as JWK;
  const { kty, crv, x } = secret;
  return { jwk: { kty, crv, x }, secret };
}

type Recorded = { transaction_id: number; updated_scores: { dimensions: { quality: number } }; receipt?: { accepted: boolean; reason?: string } };

/** A receipt as an agent issues it; `claims` and `header` override the good ones. */
async function receipt(secret: JWK, claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const key = await importJWK(secret, "EdDSA");
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: "EdDSA", typ: "trust-receipt+jwt", ...header })
    .sign(key);
}

async function world() {
  const h = testApp({ now: Date.parse("2026-11-21T10:20:30Z") });
  const owner = await createOperator();
  const reporter = await createOperator({ verified: true });
  await call(`/admin/operators/${reporter.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 10_000 } });
  const key = await agentKey();
  const register = async () => {
    const { sid } = await registerAgent(owner.key);
    expect((await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body: { jwk: key.jwk } })).status).toBe(201);
    return sid;
  };
  const iat = Math.floor(h.clock.now / 1000) - 60;
  const good = (sid: string, over: Record<string, unknown> = {}) => receipt(key.secret, { sub: sid, aud: String(reporter.id), jti: crypto.randomUUID(), iat, txn: "order-7", ...over });
  const report = async (sid: string, receiptJws?: string) => {
    const res = await h.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success", qualitySignal: 1000, ...(receiptJws ? { receipt: receiptJws } : {}) } });
    expect(res.status).toBe(201);
    return (await res.json()) as Recorded;
  };
  return { h, owner, reporter, key, register, good, report, iat };
}

describe("receipts", () => {
  it("a receipt-backed report is recorded as receipted, in its entry, its pair (what the credibility job reads) and the owner's list", async () => {
    const { h, owner, reporter, register, good, report } = await world();
    const [plain, backed] = [await register(), await register()];
    const without = await report(plain);
    const withReceipt = await report(backed, await good(backed));
    expect(without.receipt).toBeUndefined();
    expect(withReceipt.receipt).toEqual({ accepted: true });
    expect((await reportRow(backed, withReceipt.transaction_id))?.receipt).toBe(true);
    expect((await reportRow(plain, without.transaction_id))?.receipt).toBe(false);
    // The pair's columns the job reads: the UTC day of the first receipted report, or -1.
    const day = Math.floor(h.clock.now / 86_400_000);
    for (const [sid, expected] of [[backed, day], [plain, -1]] as const) {
      const pair = await (await shardOf(sid)).prepare("SELECT operator_id, receipt_day FROM pairs WHERE sid = ?").bind(sid).first<{ operator_id: number; receipt_day: number }>();
      expect(pair).toEqual({ operator_id: reporter.id, receipt_day: expected });
    }
    const listed = (await (await h.request(`/agents/${backed}/transactions`, { headers: bearer(owner.key) })).json()) as { transactions: { evidence: string }[] };
    expect(listed.transactions[0].evidence).toBe("receipt");
    const history = (await (await h.request(`/report/${backed}`, { headers: bearer(owner.key) })).json()) as { score_history: unknown[] };
    expect(history.score_history[0]).toBeDefined();
  });

  it("a reused, foreign, unregistered-key, too-old or badly signed receipt is recorded as not receipted, and says why", async () => {
    const { h, register, good, report, reporter, iat } = await world();
    const sid = await register();
    const other = await register();
    const stranger = await agentKey();
    const once = await good(sid, { jti: "receipt-1" });
    const a = await good(sid);
    const tampered = `${a.split(".")[0]}.${btoa(JSON.stringify({ sub: sid, aud: String(reporter.id), jti: "x", iat })).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")}.${a.split(".")[2]}`;
    const cases: [string, Promise<string> | string][] = [
      ["reused", once],
      ["wrong_subject", good(other)],
      ["wrong_audience", good(sid, { aud: "999999" })],
      // Without a kid every registered key is tried: none verifies it.
      ["bad_signature", receipt(stranger.secret, { sub: sid, aud: String(reporter.id), jti: "s", iat })],
      ["unknown_key", receipt(stranger.secret, { sub: sid, aud: String(reporter.id), jti: "s", iat }, { kid: "no-such-thumbprint-000000000000000000000000" })],
      ["too_old", good(sid, { iat: iat - 25 * 3600 })],
      ["bad_signature", tampered],
      ["wrong_type", receipt(stranger.secret, { sub: sid }, { typ: "JWT" })],
      ["malformed", "not.a.jws"],
    ];
    expect((await report(sid, once)).receipt).toEqual({ accepted: true });
    for (const [reason, jws] of cases) {
      const res = await report(sid, await jws);
      expect(res.receipt, reason).toEqual({ accepted: false, reason });
      expect((await reportRow(sid, res.transaction_id))?.receipt, reason).toBe(false);
    }
    expect((await h.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success", receipt: 42 } })).status).toBe(400);
  });

  it("one receipt counts once, under concurrency, across a lost batch answer and a new object life; a reused one is still recorded, with evidence none", async () => {
    const { h, reporter, register, good, report } = await world();
    const sid = await register();
    const jws = await good(sid);
    const results = await Promise.all(Array.from({ length: 6 }, () => report(sid, jws)));
    expect(results.filter((r) => r.receipt?.accepted)).toHaveLength(1);
    expect(results.filter((r) => r.receipt?.reason === "reused")).toHaveLength(5);

    // Every reused report is recorded all the same: a bad receipt never makes a report vanish.
    expect(await reportRows(sid)).toHaveLength(6);
    expect((await reportRows(sid)).filter((r) => r.receipt)).toHaveLength(1);

    const second = await good(sid);
    await runInDurableObject(env.AGENT.getByName(sid), (o) => {
      (o as Agent).faults.failAfterBatch = 1;
    });
    // The batch committed and its answer was lost: the object finds it on the shard and answers.
    const late = await h.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "t", outcome: "success", receipt: second } });
    expect(late.status).toBe(201);
    await evictDurableObject(env.AGENT.getByName(sid));
    // A new life of the object reads the spent id from the shard.
    expect((await report(sid, second)).receipt).toEqual({ accepted: false, reason: "reused" });
  });

  it("a receipt's id is refused as reused while the receipt could be accepted, and as too old after", async () => {
    const { h, register, good, report, iat } = await world();
    const sid = await register();
    const jws = await good(sid, { jti: "kept-then-forgotten" });
    const issued = iat * 1000;
    expect((await report(sid, jws)).receipt).toEqual({ accepted: true });
    // Hours later, and at the last minute it is still acceptable: still spent, in this object life and the next.
    for (const at of [h.clock.now + 2 * 3_600_000, issued + 24 * 3_600_000 - 30_000]) {
      h.clock.now = at;
      expect((await report(sid, jws)).receipt).toEqual({ accepted: false, reason: "reused" });
      await evictDurableObject(env.AGENT.getByName(sid));
    }
    // Past iat + 24 h + 60 s no receipt with that id can be accepted.
    h.clock.now = issued + 24 * 3_600_000 + 60_000 + 3_600_000;
    expect((await report(sid, jws)).receipt).toEqual({ accepted: false, reason: "too_old" });
  });
});
