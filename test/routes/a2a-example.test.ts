// examples/a2a-trust-extension.mjs (which docs/identity.md and docs/relying-parties.md show), run
// against the service: the agent puts the extension into its card, a relying party checks the card.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { customFetch } from "jose";
import { describe, expect, it } from "vitest";
import { checkTrustExtension, fetchTrustExtension, withTrustExtension } from "../../examples/a2a-trust-extension.mjs";
import { serviceKeys } from "../../examples/verify-attestation.mjs";
import { dropAnswer } from "../../src/http/edge-cache";
import { createOperator, freshIp, registerAgent, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:20:30Z");
const ORIGIN = "http://trust.test";

const viaApp = (h: ReturnType<typeof testApp>) => (url: URL | string) => h.request(new URL(url).pathname, { headers: { "cf-connecting-ip": freshIp() } });

async function world() {
  const h = testApp({ now: T0 });
  const owner = await createOperator({ name: "Card Ops" });
  const { sid } = await registerAgent(owner.key);
  const keys = serviceKeys(ORIGIN, { [customFetch]: viaApp(h) });
  const card = { name: "Invoice Bot", version: "1.0.0", capabilities: { streaming: false, extensions: [{ uri: "https://other.example/ext", required: false }] } };
  return { h, sid, keys, card };
}

describe("examples/a2a-trust-extension.mjs", () => {
  it("puts the extension into a card (replacing an older copy) and a relying party verifies it", async () => {
    const { h, sid, keys, card } = await world();
    const extension = await fetchTrustExtension(ORIGIN, sid, viaApp(h));
    const carded = withTrustExtension(withTrustExtension(card, { ...extension, params: { ...extension.params, attestation: "stale" } }), extension);
    expect(carded.capabilities.extensions.map((e: { uri: string }) => e.uri)).toEqual(["https://other.example/ext", `${ORIGIN}/a2a/extensions/trust-attestation/v1`]);
    expect(carded.capabilities.streaming).toBe(false);

    const { claims, statusList } = await checkTrustExtension(carded, keys, { trustedOrigin: ORIGIN, sid, currentDate: new Date(T0) });
    expect(claims).toMatchObject({ iss: ORIGIN, sub: sid, operator_name: "Card Ops" });
    // The pointer the attestation itself carries (a relying party checks the list it names).
    expect(statusList).toEqual({ idx: expect.any(Number), uri: `${ORIGIN}/status/0` });
    expect(statusList).toEqual(claims.status_list);
  });

  it("refuses a card without the trusted service's extension, or about another agent", async () => {
    const { h, sid, keys, card } = await world();
    const carded = withTrustExtension(card, await fetchTrustExtension(ORIGIN, sid, viaApp(h)));
    await expect(checkTrustExtension(carded, keys, { trustedOrigin: "https://trust.example.com", sid, currentDate: new Date(T0) })).rejects.toThrow(
      "the card carries no trust extension of https://trust.example.com",
    );
    await expect(checkTrustExtension(carded, keys, { trustedOrigin: ORIGIN, sid: "SID-0x0000000000000000", currentDate: new Date(T0) })).rejects.toThrow(/sub/);
  });

  it("replaces an expired attestation with a fresh one from the same service", async () => {
    const { h, sid, keys, card } = await world();
    const context = createExecutionContext();
    const served = (url: URL | string) => Promise.resolve(h.app.fetch(new Request(url, { headers: { "cf-connecting-ip": freshIp() } }), h.env, context));
    const carded = withTrustExtension(card, await fetchTrustExtension(ORIGIN, sid, served));
    await waitOnExecutionContext(context);
    const later = T0 + 16 * 60_000;
    // The edge cache keeps answers by real time; a quarter of an hour later it would have let go.
    await dropAnswer(`https://attestation.cache/${encodeURIComponent(ORIGIN)}/${encodeURIComponent(sid)}`);
    const laterApp = testApp({ now: later });
    const fetched: string[] = [];
    const { claims } = await checkTrustExtension(carded, keys, {
      trustedOrigin: ORIGIN,
      sid,
      currentDate: new Date(later),
      fetchImpl: (url: string | URL) => {
        fetched.push(String(url));
        return viaApp(laterApp)(url);
      },
    });
    expect(fetched).toEqual([`${ORIGIN}/score/${sid}/attestation`]);
    expect(claims.iat).toBe(later / 1000);
  });
});
