// Everywhere the public meets an agent (its public score in both forms, its page, its badges, MCP's
// check_agent, its A2A extension, its AI Catalog fragment, its attestation and its credential),
// after an admin acts on it:
// an erasure of its history's text leaves its name and description nowhere, and an erased report's
// type reads `erased`; a suspension shows wherever the agent is shown.
import { describe, expect, it } from "vitest";
import { signatureHeaders } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";
import { newAgentKey } from "../../examples/identity-web-bot-auth.mjs";
import { ADMIN, bearer, createOperator, freshIp, registerAgent, settled, testApp } from "../helpers";

const NAME = "Zanzibar Ledger Bot";
const DESCRIPTION = "Reconciles the Zanzibar ledger every night";
const TYPE = "zanzibar-settlement";
const MCP = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };

type App = ReturnType<typeof testApp>;
type Json = Record<string, any>;

const decodeSegment = (segment: string) => JSON.parse(atob(segment.replace(/-/g, "+").replace(/_/g, "/")));

/** An owned agent at identity level 2 (so a credential can be issued), with a report of TYPE from another operator. */
async function world() {
  const h = testApp({ now: Date.now() });
  const owner = await createOperator({ name: "Surface Ops" });
  const { sid } = await registerAgent(owner.key, { name: NAME, description: DESCRIPTION });
  const key = await newAgentKey();
  expect((await h.request(`/agents/${sid}/keys`, { headers: bearer(owner.key), body: { jwk: key.publicJwk } })).status).toBe(201);
  const { nonce } = (await (await h.request(`/agents/${sid}/verify/signature/challenge`, { method: "POST", headers: bearer(owner.key) })).json()) as { nonce: string };
  const proof = await signatureHeaders(new Request(`http://trust.test/agents/${sid}/verify/signature`, { method: "POST" }), await Ed25519Signer.fromJWK(key.privateJwk), {
    created: new Date(h.clock.now),
    expires: new Date(h.clock.now + 60_000),
    nonce,
    components: ["@method", "@authority", "@path"],
  });
  expect((await h.request(`/agents/${sid}/verify/signature`, { method: "POST", headers: { ...proof, "cf-connecting-ip": freshIp() } })).status).toBe(200);
  const reporter = await createOperator();
  const ids: number[] = [];
  for (const outcome of ["success", "partial"]) {
    const res = await h.request("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: TYPE, outcome } });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { transaction_id: number }).transaction_id);
  }
  return { h, owner, sid, ids };
}

async function checkAgent(h: App, sid: string, headers: Record<string, string> = {}): Promise<Json> {
  const res = await h.request("/mcp", { method: "POST", headers: { ...MCP, "cf-connecting-ip": freshIp(), ...headers }, body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "check_agent", arguments: { sid } } } });
  expect(res.status).toBe(200);
  return ((await res.json()) as Json).result;
}

/** Every public surface of the agent as text (signed ones decoded), by name; each read from a fresh address. */
async function surfaces(h: App, sid: string, ownerKey: string): Promise<Record<string, string>> {
  const read = async (path: string, headers: Record<string, string> = {}) => {
    const res = await h.request(path, { headers: { "cf-connecting-ip": freshIp(), ...headers } });
    return { status: res.status, text: await res.text() };
  };
  const out: Record<string, string> = {};
  out.publicScoreA = (await read(`/score/${sid}/public`)).text;
  out.publicScoreB = (await read(`/score/${sid}/public`, { "api-version": "B" })).text;
  out.page = (await read(`/agents/${sid}`, { accept: "text/html" })).text;
  out.badgeSvg = (await read(`/badge/${sid}.svg`)).text;
  out.badgeJson = (await read(`/badge/${sid}.json`)).text;
  out.checkAgent = JSON.stringify(await checkAgent(h, sid));
  out.checkAgentKeyed = JSON.stringify(await checkAgent(h, sid, bearer(ownerKey)));
  const attestation = await read(`/score/${sid}/attestation`);
  out.attestation = attestation.status === 200 ? JSON.stringify(decodeSegment(JSON.parse(attestation.text).attestation.split(".")[1])) : attestation.text;
  const extension = await read(`/agents/${sid}/a2a-extension`);
  out.a2aExtension = extension.status === 200 ? `${extension.text} ${JSON.stringify(decodeSegment(JSON.parse(extension.text).params.attestation.split(".")[1]))}` : extension.text;
  out.aiCatalog = (await read(`/agents/${sid}/ai-catalog?card_url=${encodeURIComponent("https://agent.example/.well-known/agent-card.json")}`)).text;
  const credential = await h.request(`/agents/${sid}/credential`, { method: "POST", headers: bearer(ownerKey) });
  const issued = await credential.text();
  if (credential.status === 201) {
    // The issuer-signed JWT and every disclosure, decoded.
    const [jwt, ...disclosures] = (JSON.parse(issued).credential as string).split("~").filter(Boolean);
    out.credential = JSON.stringify([decodeSegment(jwt.split(".")[1]), ...disclosures.map(decodeSegment)]);
  } else {
    out.credential = issued;
  }
  return out;
}

describe("after an admin erases an agent's history text", () => {
  it("its name and description are on no public surface, and its name reads `erased` where one is shown", async () => {
    const { h, owner, sid } = await world();
    const before = await surfaces(h, sid, owner.key);
    // The scan finds the name where it is shown (so its absence below means something).
    for (const where of ["publicScoreA", "page", "checkAgent", "checkAgentKeyed"]) expect(before[where], where).toContain(NAME);
    expect(JSON.parse(before.credential)[0].vct, before.credential).toBeDefined();

    const erased = await h.request("/admin/history/erase", { headers: ADMIN, body: { sid } });
    expect(erased.status).toBe(200);
    await settled();

    const after = await surfaces(h, sid, owner.key);
    for (const [where, text] of Object.entries(after)) {
      expect(text, where).not.toContain(NAME);
      expect(text, where).not.toContain(DESCRIPTION);
    }
    expect(JSON.parse(after.publicScoreA).agent_name).toBe("erased");
    expect(JSON.parse(after.checkAgent).structuredContent.score.agent_name).toBe("erased");
    expect(JSON.parse(after.checkAgentKeyed).structuredContent.score.agent_name).toBe("erased");
    expect(after.page).toContain("<h1>erased</h1>");
    // The keyed views have lost them too: the text is gone from the service, not hidden.
    const report = (await (await h.request(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as Json;
    expect(report).toMatchObject({ agent_name: "erased", description: null });
    const me = (await (await h.request("/me", { headers: bearer(owner.key) })).json()) as Json;
    expect(me.agents.find((a: Json) => a.sid === sid)).toMatchObject({ name: "erased", description: null });
    expect(JSON.stringify(await (await h.request(`/score/${sid}`, { headers: bearer(owner.key) })).json())).not.toContain(NAME);
  });

  it("an erased report's transaction_type reads `erased` in both forms, never its salted hash", async () => {
    const { h, owner, sid, ids } = await world();
    const list = async (form: "A" | "B") =>
      ((await (await h.request(`/agents/${sid}/transactions`, { headers: bearer(owner.key, { "api-version": form }) })).json()) as { transactions: { transaction_id: number; transaction_type: string }[] }).transactions;
    expect((await list("A")).map((t) => t.transaction_type)).toEqual([TYPE, TYPE]);

    expect((await h.request("/admin/history/erase", { headers: ADMIN, body: { sid, transaction_id: ids[0] } })).status).toBe(200);
    for (const form of ["A", "B"] as const) {
      const types = Object.fromEntries((await list(form)).map((t) => [t.transaction_id, t.transaction_type]));
      expect(types, form).toEqual({ [ids[0]]: "erased", [ids[1]]: TYPE });
    }
    expect((await h.request("/admin/history/erase", { headers: ADMIN, body: { sid } })).status).toBe(200);
    for (const form of ["A", "B"] as const) expect((await list(form)).map((t) => t.transaction_type), form).toEqual(["erased", "erased"]);
  });
});

describe("after an admin suspends an agent", () => {
  it("every public surface says so: badge `suspended` in grey, status in the public score (A, B), the page and check_agent; no attestation, extension or credential", async () => {
    const { h, owner, sid } = await world();
    const before = await surfaces(h, sid, owner.key);
    expect(JSON.parse(before.publicScoreA).status).toBe("active");
    expect(JSON.parse(before.publicScoreB).status).toBe("active");
    expect(JSON.parse(before.badgeJson).message).toMatch(/^\d+ · review · L2$/);

    expect((await h.request(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
    await settled();
    const after = await surfaces(h, sid, owner.key);
    // The badges were cached by the reads above: the suspension dropped them.
    expect(JSON.parse(after.badgeJson)).toEqual({ schemaVersion: 1, label: "trust", message: "suspended", color: "lightgrey" });
    expect(after.badgeSvg).toContain("suspended");
    expect(after.badgeSvg).toContain('fill="#939393"');
    expect(after.badgeSvg).not.toMatch(/review|clear|caution/);
    expect(JSON.parse(after.publicScoreA).status).toBe("suspended");
    expect(JSON.parse(after.publicScoreB).status).toBe("suspended");
    expect(after.page).toContain("<strong>Suspended.</strong>");
    expect(after.page).toContain("<dt>Status</dt><dd>Suspended by the service&#39;s administrators</dd>");
    expect(after.page).toContain('alt="trust: suspended"');
    for (const where of ["checkAgent", "checkAgentKeyed"]) {
      expect(JSON.parse(after[where]).structuredContent, where).toMatchObject({ status: "suspended", score: { status: "suspended" }, attestation: null });
    }
    expect(JSON.parse(after.attestation)).toMatchObject({ error: "Agent is suspended: no attestation is issued" });
    expect(JSON.parse(after.a2aExtension)).toMatchObject({ error: "Agent is suspended: no attestation is issued" });
    expect(JSON.parse(after.credential)).toMatchObject({ error: "Agent is suspended: no credential is issued" });
    expect(JSON.parse(after.aiCatalog)).toMatchObject({ error: "Agent is suspended: no attestation is issued" });
    expect(((await (await h.request(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as Json).status).toBe("suspended");

    // Reinstated: the score is back on the badge.
    expect((await h.request(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "active" } })).status).toBe(200);
    await settled();
    const back = await surfaces(h, sid, owner.key);
    expect(JSON.parse(back.badgeJson).message).toMatch(/^\d+ · review · L2$/);
    expect(JSON.parse(back.publicScoreA).status).toBe("active");
  });
});
