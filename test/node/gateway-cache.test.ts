// The gateway's cache of the trust service's keys and status lists (gateway/src/trust.ts), with its
// clock and its fetch in the test's hands: nothing is fetched per request, a copy is refreshed once
// old, a copy that cannot be refreshed serves until the policy's limit, and never past a list's exp.
import { deflateSync } from "node:zlib";
import { CompactSign, exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import type { Policy } from "../../gateway/src/policy";
import { Stale, TrustCache } from "../../gateway/src/trust";

const SERVICE = "https://trust.example.com";
const LIST = `${SERVICE}/status/0`;
const T0 = Date.parse("2026-11-21T10:20:30Z");
const policy: Policy = {
  service: SERVICE,
  origin: null,
  unsigned: "pass",
  invalid: "refuse",
  refuse: new Set(["suspended"]),
  nonces: false,
  onNonceStoreDown: "closed",
  refreshMs: 300_000,
  maxStaleMs: 3_600_000,
  onStale: "closed",
};

let key: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
let jwks: { keys: Record<string, unknown>[] };

beforeAll(async () => {
  const pair = await generateKeyPair("EdDSA", { crv: "Ed25519" });
  key = pair.privateKey;
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "EdDSA" }] };
});

/** A list whose entry `idx` is `value`, stamped `iat` (seconds), as the service signs it. */
async function listToken(idx: number, value: number, iat: number, sub = LIST) {
  const bytes = Buffer.alloc(1024);
  bytes[(idx * 2) >> 3] |= value << ((idx * 2) & 7);
  const claims = { iss: SERVICE, sub, iat, exp: iat + 3600, ttl: 300, status_list: { bits: 2, lst: deflateSync(bytes).toString("base64url") } };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: "EdDSA", kid: "k1", typ: "statuslist+jwt" }).sign(key);
}

/** The service as the cache sees it: what each URL answers now (null: unreachable), and every fetch. */
function world(p: Policy = policy) {
  const clock = { now: T0 };
  const answers = new Map<string, (() => Response) | null>();
  const fetched: string[] = [];
  const fetcher = (async (input: string | URL | Request) => {
    const url = String(input);
    fetched.push(url);
    const answer = answers.get(url);
    if (!answer) throw new TypeError("Network connection lost.");
    return answer();
  }) as typeof fetch;
  answers.set(`${SERVICE}/.well-known/jwks.json`, () => Response.json(jwks));
  const cache = new TrustCache(p, fetcher, () => clock.now);
  return { clock, answers, fetched, cache };
}

const serve = async (w: ReturnType<typeof world>, idx: number, value: number) => {
  const token = await listToken(idx, value, Math.floor(w.clock.now / 1000));
  w.answers.set(LIST, () => new Response(token, { headers: { "content-type": "application/statuslist+jwt" } }));
};

describe("the gateway's trust cache", () => {
  it("fetches the keys and a list once, then serves from them until they are REFRESH_S old", async () => {
    const w = world();
    await serve(w, 17, 2);
    for (let i = 0; i < 5; i++) expect(await w.cache.status(LIST, 17)).toBe(2);
    expect(w.fetched).toEqual([LIST, `${SERVICE}/.well-known/jwks.json`]);
    await serve(w, 17, 0);
    w.clock.now = T0 + 299_000;
    expect(await w.cache.status(LIST, 17)).toBe(2);
    w.clock.now = T0 + 300_000;
    expect(await w.cache.status(LIST, 17)).toBe(0);
    expect(w.fetched.filter((u) => u === LIST)).toHaveLength(2);
  });

  it("keeps serving a copy it cannot refresh until MAX_STALE_S, then is stale", async () => {
    const w = world();
    await serve(w, 3, 3);
    expect(await w.cache.status(LIST, 3)).toBe(3);
    w.answers.set(LIST, null);
    w.answers.set(`${SERVICE}/.well-known/jwks.json`, null);
    w.clock.now = T0 + 1_000_000;
    expect(await w.cache.status(LIST, 3)).toBe(3);
    w.clock.now = T0 + 3_600_000;
    await expect(w.cache.status(LIST, 3)).rejects.toBeInstanceOf(Stale);
  });

  it("never uses a list past its exp, and refuses a list that is not the one named", async () => {
    // The policy would tolerate a copy 2 hours old; the list's own exp (1 hour) does not.
    const w = world({ ...policy, maxStaleMs: 7_200_000 });
    await serve(w, 3, 0);
    expect(await w.cache.status(LIST, 3)).toBe(0);
    w.answers.set(LIST, null);
    w.clock.now = T0 + 3_599_000;
    expect(await w.cache.status(LIST, 3)).toBe(0);
    w.clock.now = T0 + 3_600_000;
    await expect(w.cache.status(LIST, 3)).rejects.toBeInstanceOf(Stale);
    const other = world();
    const foreign = await listToken(3, 0, T0 / 1000, `${SERVICE}/status/1`);
    other.answers.set(LIST, () => new Response(foreign));
    await expect(other.cache.status(LIST, 3)).rejects.toThrow(/another list/);
  });

  it("verifies an attestation with the held keys and fetches them again for a key it does not know", async () => {
    const w = world();
    const now = Math.floor(T0 / 1000);
    const attestation = (kid: string) =>
      new SignJWT({ composite_score: 700, recommendation: "clear", identity_level: 2 })
        .setProtectedHeader({ alg: "EdDSA", kid, typ: "trust-attestation+jwt" })
        .setIssuer(SERVICE)
        .setSubject("SID-0x3f9a0c1d2e4b5a69")
        .setIssuedAt(now)
        .setExpirationTime(now + 900)
        .sign(key);
    expect((await w.cache.attestation(await attestation("k1"))).sub).toBe("SID-0x3f9a0c1d2e4b5a69");
    // The service rotated: its JWKS now names the key k2.
    jwks = { keys: [{ ...jwks.keys[0], kid: "k2" }] };
    w.clock.now = T0 + 31_000;
    expect((await w.cache.attestation(await attestation("k2"))).sub).toBe("SID-0x3f9a0c1d2e4b5a69");
    expect(w.fetched.filter((u) => u.endsWith("jwks.json"))).toHaveLength(2);
    await expect(w.cache.attestation(await attestation("k9"))).rejects.toThrow();
  });
});
