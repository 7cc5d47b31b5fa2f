// The verification of examples/verify-attestation.mjs (which docs/relying-parties.md shows), run
// against the service: the JWKS fetched from the app through jose's remote key set, as a relying
// party's copy of the example would fetch it.
import { customFetch } from "jose";
import { describe, expect, it } from "vitest";
import { serviceKeys, verifyAttestation } from "../../examples/verify-attestation.mjs";
import { createOperator, freshIp, registerAgent, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:20:30Z");
const ISSUER = "http://trust.test";

/** The app, an agent, its attestation, and the service's keys as the example fetches them. */
async function world(operatorName = "Relied-on Ops") {
  const h = testApp({ now: T0 });
  const owner = await createOperator({ name: operatorName });
  const { sid } = await registerAgent(owner.key);
  const jwksFetches: string[] = [];
  const keys = serviceKeys(ISSUER, {
    [customFetch]: (url: string) => {
      jwksFetches.push(url);
      return h.request(new URL(url).pathname);
    },
  });
  const attestation = async () => {
    const res = await h.request(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": freshIp() } });
    return ((await res.json()) as { attestation: string }).attestation;
  };
  return { h, sid, keys, jwksFetches, attestation };
}

describe("examples/verify-attestation.mjs", () => {
  it("verifies an attestation against the served JWKS; its claims are the public score", async () => {
    const { h, sid, keys, jwksFetches, attestation } = await world();
    const claims = await verifyAttestation(await attestation(), keys, { issuer: ISSUER, sid, currentDate: new Date(T0) });
    const pub = (await (await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as Record<string, unknown>;
    expect(claims).toEqual({
      iss: ISSUER,
      sub: sid,
      iat: T0 / 1000,
      exp: T0 / 1000 + 900,
      status: "active",
      composite_score: pub.composite_score,
      confidence: pub.confidence,
      recommendation: pub.recommendation,
      identity_level: pub.identity_level,
      operator_name: "Relied-on Ops",
      status_list: { idx: expect.any(Number), uri: expect.stringMatching(/^http:\/\/trust\.test\/status\/[0-9]+$/) },
      log: null, // nothing of the agent is sequenced yet (test/log/attestation.test.ts covers the proof)
    });
    expect(jwksFetches).toEqual([`${ISSUER}/.well-known/jwks.json`]);
    // The key set is kept: a second verification fetches nothing.
    await verifyAttestation(await attestation(), keys, { issuer: ISSUER, sid, currentDate: new Date(T0) });
    expect(jwksFetches).toHaveLength(1);
  });

  it("refuses another issuer, another agent, an expired attestation and a changed payload", async () => {
    const { sid, keys, attestation } = await world();
    const jws = await attestation();
    const at = new Date(T0);
    await expect(verifyAttestation(jws, keys, { issuer: "https://impostor.example", sid, currentDate: at })).rejects.toThrow(/iss/);
    await expect(verifyAttestation(jws, keys, { issuer: ISSUER, sid: "SID-0x0000000000000001", currentDate: at })).rejects.toThrow(/sub/);
    await expect(verifyAttestation(jws, keys, { issuer: ISSUER, sid, currentDate: new Date(T0 + 15 * 60_000 + 1_000) })).rejects.toThrow(/exp/);
    const [header, payload, signature] = jws.split(".");
    const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/")));
    const raised = btoa(JSON.stringify({ ...claims, recommendation: "clear" })).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    await expect(verifyAttestation(`${header}.${raised}.${signature}`, keys, { issuer: ISSUER, sid, currentDate: at })).rejects.toThrow(/signature/);
  });

});
