// The admin CLI (scripts/admin.ts), run as `npm run admin` runs it: bad command lines are refused
// with a clear message and exit status 2 before anything is sent, an unreachable service is named
// with the hint to pass --url, and its commands work against the service.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { createTrustClient } from "../../clients/typescript";
import { freePort } from "../wrangler-dev.mjs";
import { service } from "./service";

const execute = promisify(execFile);

/** Runs the CLI; its exit status and output. ADMIN_TOKEN is the service's unless `env` says otherwise. */
async function admin(args: string[], env: Record<string, string | undefined> = {}) {
  const environment = { ...process.env, ADMIN_TOKEN: service.adminToken, TRUST_API_URL: service.url, NO_COLOR: "1", ...env };
  try {
    const { stdout, stderr } = await execute(join("node_modules", ".bin", "tsx"), ["scripts/admin.ts", ...args], { env: environment });
    return { status: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { status: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("bad command lines", () => {
  it.each([
    [["operator", "1", "--verified", "yes"], '--verified must be one of true, false, not "yes"'],
    [["operator", "1", "--per-minute", "abc"], '--per-minute must be a positive whole number, or none to drop the custom limit; not "abc"'],
    [["operator", "1", "--tier", "platinum"], '--tier must be one of free, growth, enterprise, not "platinum"'],
    [["operators", "--colour"], "Unknown option '--colour'"],
    [["approve", "1", "--tier", "free"], "approve takes no --tier"],
    [["revoke-key", "3"], "revoke-key takes <operator id> <key id>; got \"3\""],
    [["reject", "0x10"], 'The application id must be a positive whole number, not "0x10"'],
    [["disputes", "--status", "closed"], '--status must be one of open, escalated, resolved, not "closed"'],
    [["decide", "4"], "decide needs --outcome withdraw|keep"],
    [["agent", "SID-0x12", "--status", "active"], 'The sid must look like SID-0x followed by 16 hex characters, not "SID-0x12"'],
    [["operators", "--limit", "500"], '--limit must be a whole number from 1 to 200, not "500"'],
    [["frobnicate"], 'Unknown command "frobnicate"'],
    [["waitlist", "--url", "127.0.0.1:8787"], '--url must be an http(s) URL'],
    [["waitlist", "--url", "http://trust.example.com"], "--url must use https for another host"],
    [["revoke-key", "1", "9007199254740993"], 'The key id must be a positive whole number, not "9007199254740993"'],
    [["credibility-run", "--limit", "0"], "--limit must be a whole number of pages from 1 to 1000"],
    [["anchors", "--set", "1,x"], "--set takes operator ids separated by commas"],
    [["archive", "--limit", "501"], "--limit must be a whole number of agents from 1 to 500"],
    [["erase", "SID-0x12"], 'The sid must look like SID-0x followed by 16 hex characters, not "SID-0x12"'],
    [["erase", "SID-0x0123456789abcdef", "--transaction", "x"], 'The transaction id must be a positive whole number, not "x"'],
  ])("refuses %j with exit status 2 and sends nothing", async (args, message) => {
    // A service that is not there: a command that got as far as a request would fail with status 1.
    const result = await admin(args, { TRUST_API_URL: "http://127.0.0.1:9", ADMIN_TOKEN: undefined });
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain("npm run admin -- --help");
    expect(result.status).toBe(2);
  });

  it("prints its commands with --help", async () => {
    const result = await admin(["--help"]);
    expect(result.status).toBe(0);
    for (const command of ["operators", "revoke-key <operator id> <key id>", "waitlist", "disputes [--status open|escalated|resolved]", "decide <dispute id> --outcome withdraw|keep"]) {
      expect(result.stdout).toContain(command);
    }
  });
});

describe("an unreachable service", () => {
  it("is named, with the hint to pass --url or set TRUST_API_URL (exit status 1)", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await admin(["operators", "--url", url]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Could not reach the service at ${url} (ECONNREFUSED)`);
    expect(result.stderr).toContain("Pass --url <service URL> or set TRUST_API_URL");
  });
});

describe("the commands", () => {
  let operatorId: number;
  let keyId: number;

  beforeAll(async () => {
    const anyone = createTrustClient({ baseUrl: service.url });
    const root = createTrustClient({ baseUrl: service.url, token: service.adminToken });
    const email = `cli-${Date.now()}@example.com`;
    await anyone.POST("/apply", { body: { name: "CLI Test Operator", email } });
    await anyone.POST("/waitlist", { body: { email: `wait-${email}`, role: "platform" } });
    const { data } = await root.GET("/admin/applications", { params: { query: { status: "pending" } } });
    const application = data!.applications.find((a) => a.email === email)!;
    const approved = await root.POST("/admin/applications/{id}/approve", { params: { path: { id: application.id } } });
    operatorId = approved.data!.operator.id;
    const keys = await root.GET("/admin/operators/{id}/keys", { params: { path: { id: operatorId } } });
    keyId = keys.data!.keys[0].id;
  });

  it("operators lists them", async () => {
    const result = await admin(["operators", "--limit", "200"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("CLI Test Operator");
  });

  it("operator sets verified and a custom limit, and none removes it", async () => {
    const set = await admin(["operator", String(operatorId), "--verified", "true", "--per-minute", "120"]);
    expect(JSON.parse(set.stdout)).toMatchObject({ id: operatorId, verified: true, rate_limit_per_minute: 120 });
    const dropped = await admin(["operator", String(operatorId), "--per-minute", "none"]);
    expect(JSON.parse(dropped.stdout)).toMatchObject({ verified: true, rate_limit_per_minute: null });
  });

  it("keys and revoke-key revoke the operator's last key, with the recovery hint", async () => {
    expect((await admin(["keys", String(operatorId)])).stdout).toMatch(/active/);
    const revoked = await admin(["revoke-key", String(operatorId), String(keyId)]);
    expect(revoked.status).toBe(0);
    expect(revoked.stdout).toContain(`Revoked key ${keyId}`);
    expect(revoked.stdout).toContain("0 valid key(s) left");
    expect(revoked.stdout).toContain(`npm run admin -- recover ${operatorId}`);
    const again = await admin(["revoke-key", String(operatorId), String(keyId)]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("revoke-key: the service answered 409: API key is already revoked");
  });

  it("waitlist and disputes list what the service holds", async () => {
    const waitlist = await admin(["waitlist"]);
    expect(waitlist.status).toBe(0);
    expect(waitlist.stdout).toContain("platform");
    const disputes = await admin(["disputes", "--status", "escalated"]);
    expect(disputes.status).toBe(0);
    expect(disputes.stdout).toContain("No disputes.");
  });

  it("reseal-webhooks goes through every page and says whether the previous key can go", async () => {
    const result = await admin(["reseal-webhooks", "--limit", "1"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Checked \d+ webhook secret\(s\): 0 sealed again under WEBHOOK_SECRET_KEY, 0 unreadable\.$/m);
    expect(result.stdout).toContain("WEBHOOK_SECRET_KEY_PREVIOUS any more: it can be deleted");
  });

  it("credibility-run runs the job under wrangler dev until it publishes, and credibility shows the snapshot", async () => {
    const run = await admin(["credibility-run", "--force", "--limit", "1"]);
    expect(run.status).toBe(0);
    const job = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as { status: string; snapshot: { id: string } };
    expect(job.status).toBe("published");
    const shown = await admin(["credibility"]);
    expect(shown.status).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ snapshot: { id: job.snapshot.id }, run: null });
    const again = await admin(["credibility-run"]);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: "current" });
  });

  it("archive runs one pass of the history archive under wrangler dev, and erase names an agent that must exist", async () => {
    const pass = await admin(["archive", "--limit", "10"]);
    expect(pass.status).toBe(0);
    expect(JSON.parse(pass.stdout)).toMatchObject({ agents: expect.any(Number), entries: 0, failed: 0, complete: expect.any(Boolean) });
    const unknown = await admin(["erase", "SID-0x0000000000000000"]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("Agent not found");
  });

  it("migrate-objects sweeps every agent to the record's contract with its progress, and reconcile-log finds the logs complete", async () => {
    const sweep = await admin(["migrate-objects", "--limit", "2"]);
    expect(sweep.status).toBe(0);
    expect(JSON.parse(sweep.stdout)).toMatchObject({ visited: expect.any(Number), moved: 0, failed: 0 });
    expect(sweep.stderr).toMatch(/migrate-objects: .* agents/);
    const reconciled = await admin(["reconcile-log"]);
    expect(reconciled.status).toBe(0);
    expect(JSON.parse(reconciled.stdout)).toMatchObject({ visited: expect.any(Number), failed: 0 });
    expect((await admin(["migrate-objects", "--limit", "201"])).status).toBe(2);
  });

  it("anchors sets and shows the anchors, and refuses an operator that does not exist", async () => {
    const unknown = await admin(["anchors", "--set", "99999999"]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("operator 99999999 does not exist");
    const cleared = await admin(["anchors", "--set", ""]);
    expect(JSON.parse(cleared.stdout)).toEqual({ operators: [] });
    expect(JSON.parse((await admin(["anchors"])).stdout)).toEqual({ operators: [] });
  });

  it("decide reports the service's refusal of an unknown dispute (exit status 1)", async () => {
    const result = await admin(["decide", "999999", "--outcome", "keep", "--note", "no such dispute"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("decide: the service answered 404: Dispute not found");
  });
});
