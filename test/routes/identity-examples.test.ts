// The signing code of examples/identity-web-bot-auth.mjs, examples/identity-webcrypto.mjs and
// examples/receipt.mjs (which docs/identity.md shows), run against the service: each proof must earn
// identity level 2, a signature over another authority must not, and a receipt must add weight once.
import { describe, expect, it } from "vitest";
import { newAgentKey, signProof as signWithWebBotAuth } from "../../examples/identity-web-bot-auth.mjs";
import { signProof as signWithWebCrypto, thumbprint } from "../../examples/identity-webcrypto.mjs";
import { signReceipt } from "../../examples/receipt.mjs";
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

describe("the receipt example", () => {
  it("makes a receipt the service accepts once, for the counterpart it names", async () => {
    const { h, sid, key } = await world();
    const counterpart = await createOperator();
    const report = async (receipt: string) => {
      const res = await h.request("/transactions", { headers: bearer(counterpart.key), body: { sid, transactionType: "payment", outcome: "success", receipt } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { receipt: unknown }).receipt;
    };
    const receipt = await signReceipt(key.privateJwk, { sid, operatorId: counterpart.id, txn: "order-7", now: h.clock.now });
    expect(await report(receipt)).toEqual({ accepted: true });
    expect(await report(receipt)).toEqual({ accepted: false, reason: "reused" });
    const forSomeoneElse = await signReceipt(key.privateJwk, { sid, operatorId: counterpart.id + 1000, now: h.clock.now });
    expect(await report(forSomeoneElse)).toEqual({ accepted: false, reason: "wrong_audience" });
  });
});
