// `node scripts/bench-gateway.mjs [--requests 300]`: what the gateway's nonce store adds to a signed
// request, under `wrangler dev` on 127.0.0.1 with throw-away state (test/wrangler-dev.mjs): the
// service, a Node origin answering at once, and two gateways with the same policy but NONCES
// (`required`, the default, against `off`). One agent at identity level 2 signs every request
// afresh (web-bot-auth, as examples/gateway-agent.mjs does); the two gateways are called one request
// at a time, alternating, so a burst of background load on a shared machine hits both. The JWKS and
// status list are held by then (warm-up), so the difference is the nonce store's round trip.
// Prints p50, p90 and the mean in milliseconds. gateway/README.md keeps the last run.
import { createServer } from "node:http";
import { signatureHeaders } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";
import { fetchAttestation, gatewayHeaders } from "../examples/gateway-agent.mjs";
import { newAgentKey } from "../examples/identity-web-bot-auth.mjs";
import { startGateway, startService } from "../test/wrangler-dev.mjs";

const argv = process.argv.slice(2);
const at = argv.indexOf("--requests");
const REQUESTS = at >= 0 ? Number(argv[at + 1]) : 300;
const WARMUP = 30;

const origin = createServer((_req, res) => res.end("ok"));
await new Promise((resolve) => origin.listen(0, "127.0.0.1", resolve));
const originUrl = `http://127.0.0.1:${origin.address().port}`;
const service = await startService("bench-gateway");
const started = [service];
const deadline = setTimeout(() => {
  console.error("bench-gateway: out of time");
  void Promise.all(started.map((s) => s.stop())).then(() => process.exit(1));
}, 15 * 60_000);

async function api(path, { method, headers = {}, body } = {}) {
  const res = await fetch(`${service.url}${path}`, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function timed(run) {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const summary = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), mean: samples.reduce((s, x) => s + x, 0) / samples.length };
};

try {
  const email = `bench-gateway-${Date.now()}@example.com`;
  await api("/apply", { body: { name: "Bench Gateway", email } });
  const admin = { authorization: `Bearer ${service.adminToken}` };
  const { applications } = await api("/admin/applications?status=pending", { headers: admin });
  const approved = await api(`/admin/applications/${applications.find((a) => a.email === email).id}/approve`, { method: "POST", headers: admin });
  const keyed = { authorization: `Bearer ${approved.api_key}` };
  const { sid } = await api("/register", { headers: keyed, body: { name: "Bench Agent", modelProvider: "anthropic", modelName: "claude-sonnet" } });
  const key = await newAgentKey();
  await api(`/agents/${sid}/keys`, { headers: keyed, body: { jwk: key.publicJwk } });
  const { nonce } = await api(`/agents/${sid}/verify/signature/challenge`, { method: "POST", headers: keyed });
  const proofUrl = `${service.url}/agents/${sid}/verify/signature`;
  const now = Date.now();
  const proof = await signatureHeaders(new Request(proofUrl, { method: "POST" }), await Ed25519Signer.fromJWK(key.privateJwk), {
    created: new Date(now),
    expires: new Date(now + 60_000),
    nonce,
    components: ["@method", "@authority", "@path"],
  });
  if ((await fetch(proofUrl, { method: "POST", headers: proof })).status !== 200) throw new Error("the agent's key proof was refused");
  const attestation = await fetchAttestation(service.url, sid);

  const base = { TRUST_SERVICE: service.url, ORIGIN: originUrl };
  const [withStore, without] = await Promise.all([startGateway("bench-nonces", { ...base, NONCES: "required" }), startGateway("bench-no-nonces", { ...base, NONCES: "off" })]);
  started.push(withStore, without);
  // Signed before the clock starts: only the request through the gateway is timed.
  const timedCall = async (gateway) => {
    const headers = await gatewayHeaders(`${gateway.url}/offers`, key.privateJwk, attestation);
    return timed(async () => {
      const res = await fetch(`${gateway.url}/offers`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`gateway answered ${res.status}`);
    });
  };
  for (let i = 0; i < WARMUP; i++) {
    await timedCall(withStore);
    await timedCall(without);
  }
  const a = [];
  const b = [];
  for (let i = 0; i < REQUESTS; i++) {
    a.push(await timedCall(withStore));
    b.push(await timedCall(without));
  }
  const [on, off] = [summary(a), summary(b)];
  const ms = (x) => x.toFixed(2).padStart(7);
  console.log(`${REQUESTS} signed requests each, one at a time, alternating (ms, as the client sees them):`);
  console.log(`${"gateway".padEnd(26)} ${"p50".padStart(7)} ${"p90".padStart(7)} ${"mean".padStart(7)}`);
  console.log(`${"NONCES = required".padEnd(26)} ${ms(on.p50)} ${ms(on.p90)} ${ms(on.mean)}`);
  console.log(`${"NONCES = off".padEnd(26)} ${ms(off.p50)} ${ms(off.p90)} ${ms(off.mean)}`);
  console.log(`${"the store adds".padEnd(26)} ${ms(on.p50 - off.p50)} ${ms(on.p90 - off.p90)} ${ms(on.mean - off.mean)}`);
} finally {
  clearTimeout(deadline);
  await Promise.all(started.map((s) => s.stop()));
  origin.close();
}
