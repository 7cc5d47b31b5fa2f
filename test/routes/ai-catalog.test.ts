// The agent's trust score in an AI Catalog: GET /agents/{sid}/ai-catalog, its Attestation object and
// catalog checked against what the AI Catalog specification (v0.9, specification/ai-catalog.md of
// the Agent Card working group's ai-catalog repository) requires of each member, and
// examples/ai-catalog.mjs verifying the attestation an entry points to, offline.
import { describe, expect, it } from "vitest";
import { fetchCatalogFragment, fetchServiceKeys, verifyCatalogAttestation } from "../../examples/ai-catalog.mjs";
import { ADMIN, call, createOperator, freshIp, registerAgent, testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:20:30Z");
// An https origin: the specification wants an attestation's uri to be an https URL (or a data: URI).
const ORIGIN = "https://trust.example.com";
const CARD = "https://agents.acme.example/invoice-bot/agent-card.json";
type Json = Record<string, any>;

const isString = (v: unknown): v is string => typeof v === "string";
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isUri = (v: unknown) => isString(v) && /^[a-z][a-z0-9+.-]*:\S+$/i.test(v);
const isRfc3339 = (v: unknown) => isString(v) && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v);

/** What the specification text requires of an Attestation object: the problems found. */
function attestationProblems(a: unknown, at: string): string[] {
  if (!isObject(a)) return [`${at} is not an object`];
  const out: string[] = [];
  if (!isString(a.type) || a.type === "") out.push(`${at}.type (REQUIRED string)`);
  if (!isString(a.uri) || !(/^https:\/\/[^/]/.test(a.uri) || a.uri.startsWith("data:"))) out.push(`${at}.uri (REQUIRED: an https URL or a data: URI)`);
  // Digest Format: algorithm:lowercase hex, SHA-256 or stronger.
  if ("digest" in a && !(isString(a.digest) && /^(sha256|sha384|sha512):[0-9a-f]+$/.test(a.digest))) out.push(`${at}.digest (algorithm:hex, SHA-256 or stronger)`);
  if ("size" in a && !(Number.isInteger(a.size) && a.size >= 0)) out.push(`${at}.size (an unsigned integer)`);
  if ("description" in a && !isString(a.description)) out.push(`${at}.description (a string)`);
  return out;
}

/** What the specification text requires of a Trust Manifest (Identity, Manifest Validity, Optional Members). */
function manifestProblems(m: unknown, entry: Json, at: string): string[] {
  if (!isObject(m)) return [`${at} is not an object`];
  const out: string[] = [];
  if (!isUri(m.identity)) out.push(`${at}.identity (REQUIRED: a URI)`);
  const attestations = m.attestations;
  if ("attestations" in m && !Array.isArray(attestations)) out.push(`${at}.attestations (an array)`);
  if (Array.isArray(attestations)) attestations.forEach((a, i) => out.push(...attestationProblems(a, `${at}.attestations[${i}]`)));
  const substantive =
    isString(m.signature) || (Array.isArray(attestations) && attestations.length > 0) || (Array.isArray(m.provenance) && m.provenance.length > 0) || isObject(m.trustSchema);
  if (!substantive) out.push(`${at}: no substantive member (a signature, attestations, provenance or a trustSchema)`);
  if ("signature" in m && !(isObject(m.subject) && isRfc3339(m.issuedAt))) out.push(`${at}: a signature needs a subject and issuedAt`);
  if ("expiresAt" in m && !isRfc3339(m.expiresAt)) out.push(`${at}.expiresAt (RFC 3339)`);
  // A urn:air identifier names its publisher's domain; the identity must align with it.
  const publisher = /^urn:air:([^:]+):/.exec(String(entry.identifier))?.[1];
  if (publisher && isString(m.identity) && !m.identity.includes(publisher)) out.push(`${at}.identity does not align with ${publisher}`);
  return out;
}

/** What the specification text requires of an AI Catalog document (Top-Level Structure, Catalog Entry). */
function catalogProblems(c: unknown): string[] {
  if (!isObject(c)) return ["the catalog is not an object"];
  const out: string[] = [];
  if (!(isString(c.specVersion) && /^\d+\.\d+$/.test(c.specVersion))) out.push('specVersion (REQUIRED: "Major.Minor")');
  if (!Array.isArray(c.entries)) return [...out, "entries (REQUIRED array)"];
  c.entries.forEach((e: unknown, i: number) => {
    const at = `entries[${i}]`;
    if (!isObject(e)) return out.push(`${at} is not an object`);
    if (!isString(e.identifier) || e.identifier === "") out.push(`${at}.identifier (REQUIRED string)`);
    if (!isString(e.type) || e.type === "") out.push(`${at}.type (REQUIRED string)`);
    if (("url" in e) === ("data" in e)) out.push(`${at}: exactly one of url and data`);
    if ("url" in e && !(isString(e.url) && URL.canParse(e.url))) out.push(`${at}.url (a URL)`);
    for (const name of ["displayName", "description", "version"]) if (name in e && !isString(e[name])) out.push(`${at}.${name} (a string)`);
    if ("updatedAt" in e && !isRfc3339(e.updatedAt)) out.push(`${at}.updatedAt (RFC 3339)`);
    if ("trustManifest" in e) out.push(...manifestProblems(e.trustManifest, e, `${at}.trustManifest`));
  });
  const keys = c.entries.filter(isObject).map((e: Json) => `${e.identifier}@${e.version ?? ""}`);
  if (new Set(keys).size !== keys.length) out.push("(identifier, version) must be unique");
  return out;
}

async function world() {
  const h = testApp({ now: T0, env: { PUBLIC_ORIGIN: ORIGIN } });
  const owner = await createOperator({ name: "Catalog Ops" });
  const { sid } = await registerAgent(owner.key);
  const viaApp = (url: URL | string) => h.request(`${new URL(url).pathname}${new URL(url).search}`, { headers: { "cf-connecting-ip": freshIp() } });
  return { h, sid, viaApp };
}

describe("GET /agents/{sid}/ai-catalog", () => {
  it("answers the Attestation object of section 10 and a catalog the specification's required members hold for", async () => {
    const { h, sid } = await world();
    const res = await h.request(`/agents/${sid}/ai-catalog?card_url=${encodeURIComponent(CARD)}`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await res.json()) as { attestation: Json; catalog: Json };
    expect(body.attestation).toEqual({
      type: `${ORIGIN}/ai-catalog/attestations/trust-score/v1`,
      uri: `${ORIGIN}/score/${sid}/attestation`,
      description: `Trust score of ${sid}, signed by ${ORIGIN}: a JWS valid 15 minutes, verified against ${ORIGIN}/.well-known/jwks.json`,
    });
    expect(attestationProblems(body.attestation, "attestation")).toEqual([]);
    expect(catalogProblems(body.catalog)).toEqual([]);
    expect(body.catalog).toEqual({
      specVersion: "0.9",
      entries: [
        {
          identifier: `${ORIGIN}/agents/${sid}`,
          type: "application/a2a-agent-card+json",
          url: CARD,
          trustManifest: { identity: "https://agents.acme.example", attestations: [body.attestation] },
        },
      ],
    });
    // The type's definition is served at its URI.
    const definition = (await (await h.request(new URL(body.attestation.type).pathname)).json()) as Json;
    expect(definition).toMatchObject({ type: body.attestation.type, name: "Agent trust score", verification: expect.any(Array) });
  });

  it("the checks of the specification's members refuse what it forbids", () => {
    const good = { specVersion: "0.9", entries: [{ identifier: "x", type: "t", url: "https://a.example/c.json", trustManifest: { identity: "did:web:a.example", attestations: [{ type: "t", uri: "https://a.example/x" }] } }] };
    expect(catalogProblems(good)).toEqual([]);
    const entry = good.entries[0];
    expect(catalogProblems({ entries: [] })).toEqual(['specVersion (REQUIRED: "Major.Minor")']);
    expect(catalogProblems({ ...good, entries: [{ ...entry, data: {} }] })).toEqual(["entries[0]: exactly one of url and data"]);
    expect(catalogProblems({ ...good, entries: [{ ...entry, trustManifest: { identity: "did:web:a.example", attestations: [] } }] })).toEqual([
      "entries[0].trustManifest: no substantive member (a signature, attestations, provenance or a trustSchema)",
    ]);
    expect(attestationProblems({ type: "t", uri: "http://a.example/x", digest: "md5:00" }, "a")).toEqual(["a.uri (REQUIRED: an https URL or a data: URI)", "a.digest (algorithm:hex, SHA-256 or stronger)"]);
    expect(catalogProblems({ ...good, entries: [{ ...entry, identifier: "urn:air:b.example:agent:x" }] })).toEqual(["entries[0].trustManifest.identity does not align with b.example"]);
  });

  it("without card_url answers the attestation alone; identity names the publisher when given", async () => {
    const { h, sid } = await world();
    const bare = (await (await h.request(`/agents/${sid}/ai-catalog`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as Json;
    expect(bare).toEqual({ attestation: expect.objectContaining({ uri: `${ORIGIN}/score/${sid}/attestation` }), catalog: null });
    const named = (await (await h.request(`/agents/${sid}/ai-catalog?card_url=${encodeURIComponent(CARD)}&identity=did:web:acme.example`, { headers: { "cf-connecting-ip": freshIp() } })).json()) as Json;
    expect(named.catalog.entries[0].trustManifest.identity).toBe("did:web:acme.example");
  });

  it("refuses an unknown agent (404), a suspended one (409), and a card_url or identity that is not a URL or URI (400)", async () => {
    const { h, sid } = await world();
    const get = async (path: string) => {
      const res = await h.request(path, { headers: { "cf-connecting-ip": freshIp() } });
      return [res.status, ((await res.json()) as Json).error];
    };
    expect(await get("/agents/SID-0x0000000000000000/ai-catalog")).toEqual([404, "Agent not found"]);
    expect(await get(`/agents/${sid}/ai-catalog?card_url=ftp://agents.example/card`)).toEqual([400, "card_url must be an http(s) URL"]);
    expect(await get(`/agents/${sid}/ai-catalog?card_url=${encodeURIComponent(CARD)}&identity=acme`)).toEqual([400, "identity must be a URI (a DID, an https URL, a SPIFFE ID)"]);
    expect((await call(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
    expect(await get(`/agents/${sid}/ai-catalog`)).toEqual([409, "Agent is suspended: no attestation is issued"]);
  });
});

describe("examples/ai-catalog.mjs", () => {
  it("fetches the fragment and verifies the attestation its entry points to, offline with the JWKS", async () => {
    const { sid, viaApp } = await world();
    const { catalog } = await fetchCatalogFragment(ORIGIN, sid, CARD, viaApp);
    const jwks = await fetchServiceKeys(ORIGIN, viaApp);
    const claims = await verifyCatalogAttestation(catalog.entries[0], { trustedOrigin: ORIGIN, jwks, sid, currentDate: new Date(T0), fetchImpl: viaApp });
    expect(claims).toMatchObject({ iss: ORIGIN, sub: sid, operator_name: "Catalog Ops", status: "active" });
  });

  it("refuses an entry without the trusted service's attestation, one about another agent, and a key not in the JWKS", async () => {
    const { sid, viaApp } = await world();
    const { catalog } = await fetchCatalogFragment(ORIGIN, sid, CARD, viaApp);
    const jwks = await fetchServiceKeys(ORIGIN, viaApp);
    const options = { trustedOrigin: ORIGIN, jwks, sid, currentDate: new Date(T0), fetchImpl: viaApp };
    await expect(verifyCatalogAttestation(catalog.entries[0], { ...options, trustedOrigin: "https://other.example" })).rejects.toThrow("the entry carries no attestation of https://other.example");
    await expect(verifyCatalogAttestation(catalog.entries[0], { ...options, sid: "SID-0x0000000000000000" })).rejects.toThrow(/sub/);
    await expect(verifyCatalogAttestation(catalog.entries[0], { ...options, jwks: { keys: [] } })).rejects.toThrow();
  });
});
