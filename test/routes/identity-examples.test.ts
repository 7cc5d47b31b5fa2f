// The signing code of examples/identity-web-bot-auth.mjs and examples/identity-webcrypto.mjs (which
// docs/identity.md shows), run against the service: each must earn identity level 2, and a
// signature over another authority must not.
import { describe, expect, it } from "vitest";
import { newAgentKey, signProof as signWithWebBotAuth } from "../../examples/identity-web-bot-auth.mjs";
import { signProof as signWithWebCrypto, thumbprint } from "../../examples/identity-webcrypto.mjs";
import { bearer, createOperator, freshIp, registerAgent, testApp } from "../helpers";

const SIGNERS = { "web-bot-auth": signWithWebBotAuth, WebCrypto: signWithWebCrypto };

/** An owned agent with a registered key, and the proof's steps as the examples take them. */
async function world() {
  // Real time: the signature library checks `expires` against the real clock.
  const h = testApp({ now: Date.now() });
  const owner = await createOperator();
  const { sid } = await registerAgent(owner.key);
  const key = await newAgentKey();
  const added = await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body: { jwk: key.publicJwk } });
  expect(added.status).toBe(201);
  const { keys } = (await added.json()) as { keys: { thumbprint: string }[] };
  const challenge = async () =>
    ((await (await h.request(`/agents/${sid}/verify/signature/challenge`, { method: "POST", headers: bearer(owner.key) })).json()) as { nonce: string }).nonce;
  const prove = (headers: Record<string, string>) =>
    h.request(`/agents/${sid}/verify/signature`, { method: "POST", headers: { ...headers, "cf-connecting-ip": freshIp() } });
  return { h, sid, key, registered: keys[0].thumbprint, challenge, prove };
}

describe.each(Object.entries(SIGNERS))("the %s example", (_name, signProof) => {
  it("earns identity level 2 with the key the service registered", async () => {
    const { h, sid, key, registered, challenge, prove } = await world();
    const headers = await signProof(`http://trust.test/agents/${sid}/verify/signature`, key.privateJwk, await challenge(), h.clock.now);
    const res = await prove(headers);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({
      message: "Identity verified by HTTP message signature",
      identity_level: 2,
      identity_label: "Signature-Verified",
      identity_key: registered,
    });
  });

  it("is refused when it signed for another host (the signature covers @authority)", async () => {
    const { h, sid, key, challenge, prove } = await world();
    const headers = await signProof(`http://elsewhere.test/agents/${sid}/verify/signature`, key.privateJwk, await challenge(), h.clock.now);
    const res = await prove(headers);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe("Signature verification failed: the signature does not verify with the key keyid names");
  });
});

describe("the WebCrypto example's thumbprint", () => {
  it("is the name the service gives the key (RFC 7638)", async () => {
    const { key, registered } = await world();
    expect(await thumbprint(key.publicJwk)).toBe(registered);
  });
});
