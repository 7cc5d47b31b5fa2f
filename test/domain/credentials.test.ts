// The credential's claims: thresholds as disclosable array elements, and a constant number of digests
// whatever the agent's standing (decoys fill in), read back with @sd-jwt/decode and @sd-jwt/present.
import { decodeSdJwt, getClaims } from "@sd-jwt/decode";
import { present } from "@sd-jwt/present";
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { parseSigningKeys } from "../../src/domain/attestations";
import { credentialClaims, issueCredential, type CredentialFacts } from "../../src/domain/credentials";

const sha256 = async (data: string | ArrayBuffer) => new Uint8Array(await crypto.subtle.digest("SHA-256", typeof data === "string" ? new TextEncoder().encode(data) : data));

const facts = (composite: number, recommendation = "clear"): CredentialFacts => ({
  origin: "https://trust.example.com",
  sid: "SID-0x3f9a0c1d2e4b5a69",
  now: Date.parse("2026-11-21T10:20:30Z"),
  composite,
  dimensions: { reliability: 781, quality: 760, financial: 702, security: 720, stability: 735 },
  recommendation,
  confidence: "medium",
  identityLevel: 2,
  operatorName: "Acme Agents",
  openDisputes: 1,
  jwk: { kty: "OKP", crv: "Ed25519", x: "j3Yrg_3VdeADyTZv1SWouR5ZQq7kZlJ6PYJB6QHbZVw" },
  status: { idx: 17, uri: "https://trust.example.com/status/0" },
});

describe("credential claims", () => {
  it("lists the thresholds the composite reaches, each disclosable, decoys for the rest", () => {
    for (const [composite, met] of [[599, []], [600, [600]], [742, [600, 700]], [812, [600, 700, 800]]] as const) {
      const { payload, frame } = credentialClaims(facts(composite));
      expect(payload.composite_at_least).toEqual(met);
      expect(frame.composite_at_least).toEqual({ _sd: met.map((_, i) => i), _sd_decoy: 3 - met.length });
    }
  });

  it("a caution agent has no no_caution claim: a decoy takes its digest", () => {
    const caution = credentialClaims(facts(380, "caution"));
    expect(caution.payload).not.toHaveProperty("no_caution");
    expect(caution.frame._sd).not.toContain("no_caution");
    expect(caution.frame._sd_decoy).toBe(1);
    expect(credentialClaims(facts(742)).payload.no_caution).toBe(true);
  });

  it("issues a credential whose threshold elements disclose one by one (@sd-jwt/present)", async () => {
    const keys = await parseSigningKeys(env.ATTESTATION_KEYS);
    if (!keys.ok) throw new Error(keys.problem);
    const sdJwt = await issueCredential(facts(742), keys.keys[0]);
    const decoded = await decodeSdJwt(sdJwt, sha256);
    expect((decoded.jwt.payload._sd as string[]).length).toBe(12);
    expect((decoded.jwt.payload.composite_at_least as unknown[]).length).toBe(3);
    const shown = await present(sdJwt, { composite_at_least: { 1: true } }, sha256);
    const presented = await decodeSdJwt(shown, sha256);
    expect(presented.disclosures).toHaveLength(1);
    const claims = (await getClaims(presented.jwt.payload, presented.disclosures, sha256)) as Record<string, unknown>;
    expect(claims.composite_at_least).toEqual([700]);
    expect(claims).not.toHaveProperty("composite_score");
  });
});
