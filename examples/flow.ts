// `npm run example -- [--url http://127.0.0.1:8787] [--admin-token TOKEN]`: the whole flow against a
// running service, with the typed client (clients/typescript): apply for an operator account,
// approve it as the admin, register an agent, report transactions on it, read its score, and verify
// its signed attestation offline against the service's JWKS with jose.
//
// The admin token comes from --admin-token, else ADMIN_TOKEN, else .dev.vars (npm start's local
// `dev-admin-token`). Approval hands back the key only where RETURN_KEYS_IN_RESPONSES=true, as
// under `npm start`; a deployment e-mails it instead, and the flow stops there.
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createRemoteJWKSet, jwtVerify } from "jose";
import type { Middleware } from "openapi-fetch";
import { createTrustClient } from "../clients/typescript";

export interface FlowOptions {
  baseUrl: string;
  adminToken: string;
  /** Every request of the flow goes through these (the tests check each answer against the document). */
  middleware?: Middleware[];
  log?: (line: string) => void;
}

/** A step's answer had no data: the service's own error, with the status. */
class FlowError extends Error {}

function need<T>(step: string, answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data !== undefined) return answer.data;
  const body = answer.error as { error?: unknown } | undefined;
  const message = typeof body?.error === "string" ? body.error : JSON.stringify(answer.error);
  throw new FlowError(`${step}: ${answer.response.status} ${message}`);
}

export async function runFlow({ baseUrl, adminToken, middleware = [], log = console.log }: FlowOptions) {
  const client = (token?: string) => {
    const c = createTrustClient({ baseUrl, token });
    for (const m of middleware) c.use(m);
    return c;
  };
  const anyone = client();
  const admin = client(adminToken);

  const email = `example-${Date.now()}@example.com`;
  need("apply", await anyone.POST("/apply", { body: { name: "Example Operator", email, company: "Example Ltd" } }));
  log(`1. applied as ${email}`);

  const pending = need("list applications", await admin.GET("/admin/applications", { params: { query: { status: "pending" } } }));
  const application = pending.applications.find((a) => a.email === email);
  if (!application) throw new FlowError(`apply: the application of ${email} is not pending`);
  const approved = need("approve", await admin.POST("/admin/applications/{id}/approve", { params: { path: { id: application.id } } }));
  if (!approved.api_key) throw new FlowError(`approve: the key was ${approved.delivery === "email" ? "e-mailed" : "not returned"}; the flow needs RETURN_KEYS_IN_RESPONSES=true`);
  log(`2. approved application ${application.id}: operator ${approved.operator.id}, key ${approved.api_key.slice(0, 15)}...`);

  const operator = client(approved.api_key);
  const agent = need(
    "register",
    await operator.POST("/register", {
      body: { name: "Example Agent", modelProvider: "anthropic", modelName: "claude-sonnet", tools: ["search", "invoice_lookup"] },
    }),
  );
  log(`3. registered ${agent.sid}: composite ${agent.composite_score}, confidence ${agent.confidence}`);

  for (const outcome of ["success", "success", "partial"] as const) {
    const recorded = need(
      "report",
      await operator.POST("/transactions", {
        body: { sid: agent.sid, transactionType: "invoice_reconciliation", outcome, reliabilitySignal: 900, qualitySignal: 850 },
      }),
    );
    log(`4. reported ${outcome} as transaction ${recorded.transaction_id}: composite ${recorded.updated_scores.composite_score}`);
  }

  const score = need("score", await operator.GET("/score/{sid}", { params: { path: { sid: agent.sid } } }));
  log(`5. score of ${score.agent_name}: ${score.composite_score} (${score.confidence} confidence, ${score.recommendation}); reasons: ${score.reasons.join(", ") || "none"}`);

  const { attestation } = need("attestation", await anyone.GET("/score/{sid}/attestation", { params: { path: { sid: agent.sid } } }));
  const issuer = new URL(baseUrl).origin;
  const keys = createRemoteJWKSet(new URL("/.well-known/jwks.json", issuer));
  const { payload, protectedHeader } = await jwtVerify(attestation, keys, {
    issuer,
    subject: agent.sid,
    typ: "trust-attestation+jwt",
    algorithms: ["EdDSA"],
  });
  if (payload.composite_score !== score.composite_score) throw new FlowError("attestation: it signs another score than /score/{sid} answered");
  log(`6. attestation verified with key ${protectedHeader.kid}: ${payload.composite_score} · ${payload.recommendation}, valid until ${new Date(payload.exp! * 1000).toISOString()}`);

  return { sid: agent.sid, operatorId: approved.operator.id, apiKey: approved.api_key, score, claims: payload };
}

/** ADMIN_TOKEN from the environment, else from the project's .dev.vars (local development). */
export function localAdminToken(): string | undefined {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  if (!existsSync(".dev.vars")) return undefined;
  const line = readFileSync(".dev.vars", "utf8").split("\n").find((l) => l.startsWith("ADMIN_TOKEN="));
  return line?.slice("ADMIN_TOKEN=".length).trim();
}

async function main() {
  const { values } = parseArgs({ options: { url: { type: "string" }, "admin-token": { type: "string" }, help: { type: "boolean", short: "h" } } });
  if (values.help) {
    console.log("npm run example -- [--url http://127.0.0.1:8787] [--admin-token TOKEN]");
    return;
  }
  const baseUrl = values.url ?? process.env.TRUST_API_URL ?? "http://127.0.0.1:8787";
  const adminToken = values["admin-token"] ?? localAdminToken();
  if (!adminToken) throw new FlowError("No admin token: pass --admin-token, set ADMIN_TOKEN, or run from the project folder with a .dev.vars");
  try {
    await runFlow({ baseUrl, adminToken });
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (err instanceof TypeError && code) throw new FlowError(`Could not reach the service at ${baseUrl} (${code}). Is it running (npm start)? Pass --url or set TRUST_API_URL.`);
    throw err;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
