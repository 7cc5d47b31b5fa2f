// `node scripts/bench-mcp.mjs [--requests 200]`: what an MCP tool call costs next to the REST route
// it mirrors, under `wrangler dev` on 127.0.0.1 with throw-away state (test/wrangler-dev.mjs).
// Each pair is measured one request at a time, the tool call and the route alternating, so a burst
// of background load on a shared machine hits both. A tool call is one POST /mcp with a JSON-RPC
// tools/call (stateless: no initialize needed), as any MCP client sends it after its handshake.
// Prints p50, p90 and the mean in milliseconds. docs/performance.md keeps the last run.
import { startService } from "../test/wrangler-dev.mjs";

const argv = process.argv.slice(2);
const at = argv.indexOf("--requests");
const REQUESTS = at >= 0 ? Number(argv[at + 1]) : 200;
const WARMUP = 20;

const { url, adminToken, stop } = await startService("bench-mcp");
const deadline = setTimeout(() => {
  console.error("bench-mcp: out of time");
  void stop().then(() => process.exit(1));
}, 15 * 60_000);

let address = 0;
const freshIp = () => `198.18.${Math.floor(++address / 250)}.${(address % 250) + 1}`;

async function api(path, { method, headers = {}, body } = {}) {
  const res = await fetch(`${url}${path}`, {
    method: method ?? (body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", "cf-connecting-ip": freshIp(), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

let rpcId = 0;
async function tool(name, args, headers = {}) {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18", "cf-connecting-ip": freshIp(), ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = await res.json();
  if (body.error || body.result?.isError) throw new Error(`${name}: ${JSON.stringify(body)}`);
  return body.result;
}

async function timed(run) {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const summary = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), mean };
};

async function pair(label, rest, mcp) {
  for (let i = 0; i < WARMUP; i++) {
    await rest(i);
    await mcp(i);
  }
  const a = [];
  const b = [];
  for (let i = 0; i < REQUESTS; i++) {
    a.push(await timed(() => rest(WARMUP + i)));
    b.push(await timed(() => mcp(WARMUP + i)));
  }
  return { label, rest: summary(a), mcp: summary(b) };
}

try {
  const email = `bench-${Date.now()}@example.com`;
  await api("/apply", { body: { name: "Bench MCP", email } });
  const admin = { authorization: `Bearer ${adminToken}` };
  const { applications } = await api("/admin/applications?status=pending", { headers: admin });
  const application = applications.find((a) => a.email === email);
  const approved = await api(`/admin/applications/${application.id}/approve`, { method: "POST", headers: admin });
  await api(`/admin/operators/${approved.operator.id}`, { headers: admin, body: { rate_limit_per_minute: 1_000_000, rate_limit_per_day: 10_000_000 } });
  const keyed = { authorization: `Bearer ${approved.api_key}` };
  const { sid } = await api("/register", { headers: keyed, body: { name: "Bench Agent", modelProvider: "anthropic", modelName: "claude-sonnet" } });
  const report = { sid, transactionType: "search", outcome: "success", qualitySignal: 800 };
  const { attestation } = await api(`/score/${sid}/attestation`);

  const rows = [
    await pair("GET /score/{sid} vs get_score", () => api(`/score/${sid}`, { headers: keyed }), () => tool("get_score", { sid }, keyed)),
    await pair("GET /report/{sid} vs get_report", () => api(`/report/${sid}`, { headers: keyed }), () => tool("get_report", { sid }, keyed)),
    await pair("POST /transactions vs report_transaction", () => api("/transactions", { headers: keyed, body: report }), () => tool("report_transaction", report, keyed)),
    await pair("GET /score/{sid}/public vs check_agent (no key; + the cached attestation)", () => api(`/score/${sid}/public`), () => tool("check_agent", { sid })),
    await pair("GET /.well-known/jwks.json vs verify_attestation", () => api("/.well-known/jwks.json"), () => tool("verify_attestation", { attestation, sid })),
  ];
  const ms = (x) => x.toFixed(1).padStart(6);
  console.log(`${REQUESTS} requests each, one at a time, alternating (ms):`);
  console.log(`${"pair".padEnd(76)} ${"REST p50".padStart(9)} ${"MCP p50".padStart(8)} ${"REST p90".padStart(9)} ${"MCP p90".padStart(8)} ${"REST mean".padStart(10)} ${"MCP mean".padStart(9)}`);
  for (const r of rows) {
    console.log(`${r.label.padEnd(76)} ${ms(r.rest.p50).padStart(9)} ${ms(r.mcp.p50).padStart(8)} ${ms(r.rest.p90).padStart(9)} ${ms(r.mcp.p90).padStart(8)} ${ms(r.rest.mean).padStart(10)} ${ms(r.mcp.mean).padStart(9)}`);
  }
} finally {
  clearTimeout(deadline);
  await stop();
}
