// `npm run deploy` (scripts/deploy.ts) against a stand-in wrangler (test/node/wrangler-stub.mjs) that
// prints what wrangler prints and keeps a Cloudflare account's state in a JSON file. Each test runs
// the script as CI would (no standard input) in a copy of the project's configuration and migrations.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const WORKER = "agent-trust-service";
const DOMAIN = "trust.example.com";
const ORIGIN = `https://${DOMAIN}`;
const sqlFiles = (folder: string) => readdirSync(join(root, folder)).filter((f) => f.endsWith(".sql")).sort();
const CONTROL = sqlFiles("migrations");
const SHARD = sqlFiles("migrations-shard");
const SECRETS = ["ADMIN_TOKEN", "ATTESTATION_KEYS", "LOG_KEY", "LOG_SIGNING_KEYS", "REPORTER_KEY", "WEBHOOK_SECRET_KEY"];
const QUEUES = ["trust-deliveries", "trust-deliveries-dlq", "trust-events", "trust-events-dlq", "trust-log", "trust-log-dlq"];
const BUCKETS = ["trust-history", "trust-log", "trust-model"];
/** The commands that only read the account. */
const READS = ["whoami --json", "d1 list --json", "queues list", "r2 bucket list", "secret list", "d1 execute"];
const reads = (call: string[]) => READS.some((r) => call.join(" ").startsWith(r));

interface Database {
  uuid: string;
  name: string;
  location: string | null;
  tables: Record<string, string[]>;
  history: string[];
}
interface State {
  login: { email: string; accounts: { id: string; name: string }[] } | null;
  d1: Database[];
  queues: { queue_id: string; queue_name: string; created_on: string; modified_on: string }[];
  queuePageSize: number;
  buckets: { name: string; creation_date: string }[];
  workers: Record<string, { secrets: Record<string, string>; deployments: { vars: Record<string, string>; routes: unknown[]; secretsSet: string[]; migrations: Record<string, string[]> }[] }>;
  faults: { database: string; migration: string }[];
  calls: string[][];
}

/** A project folder and an account: empty unless `state` says what it holds already. */
function setUp(state: Partial<State> = {}, editConfig: (toml: string) => string = (toml) => toml) {
  const base = mkdtempSync(join(tmpdir(), "deploy-test-"));
  const project = join(base, "project");
  mkdirSync(join(project, "gateway"), { recursive: true });
  writeFileSync(join(project, "wrangler.toml"), editConfig(readFileSync(join(root, "wrangler.toml"), "utf8")));
  cpSync(join(root, "gateway", "wrangler.toml"), join(project, "gateway", "wrangler.toml"));
  cpSync(join(root, "migrations"), join(project, "migrations"), { recursive: true });
  cpSync(join(root, "migrations-shard"), join(project, "migrations-shard"), { recursive: true });
  const statePath = join(base, "account.json");
  // Three queues a page: `queues list` takes three pages for five queues.
  const empty: State = { login: { email: "ops@example.com", accounts: [{ id: "0123456789abcdef", name: "Example" }] }, d1: [], queues: [], queuePageSize: 3, buckets: [], workers: {}, faults: [], calls: [] };
  writeFileSync(statePath, JSON.stringify({ ...empty, ...state }));
  const wrangler = join(base, "wrangler");
  writeFileSync(wrangler, `#!/bin/sh\nexec "${process.execPath}" "${join(root, "test", "node", "wrangler-stub.mjs")}" "$@"\n`, { mode: 0o755 });
  const read = () => JSON.parse(readFileSync(statePath, "utf8")) as State;
  const deploy = (...args: string[]) => {
    const before = read().calls.length;
    const env: NodeJS.ProcessEnv = { ...process.env, DEPLOY_WRANGLER: wrangler, WRANGLER_STUB_STATE: statePath };
    delete env.CLOUDFLARE_ACCOUNT_ID;
    const run = spawnSync(join(root, "node_modules", ".bin", "tsx"), [join(root, "scripts", "deploy.ts"), ...args], {
      cwd: project,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, calls: read().calls.slice(before) };
  };
  return { project, read, deploy };
}

const database = (state: State, name: string) => state.d1.find((d) => d.name === name) as Database;
const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("npm run deploy", () => {
  it("a dry run reads the account, prints the whole plan and changes nothing", () => {
    const { read, deploy, project } = setUp();
    const before = read();
    const run = deploy("--dry-run", "--domain", DOMAIN, "--location", "weur");
    expect(run.status, run.stderr).toBe(0);
    expect(read()).toEqual({ ...before, calls: run.calls });
    expect(run.calls.length).toBeGreaterThan(0);
    expect(run.calls.filter((call) => !reads(call))).toEqual([]);
    expect(existsSync(join(project, "wrangler.deploy.toml"))).toBe(false);

    expect(run.stdout).toContain(`Worker ${WORKER}: new`);
    for (const [binding, name] of [["DB", "agent-trust"], ["SHARD_0", "agent-trust-shard-0"], ["SHARD_1", "agent-trust-shard-1"]]) {
      expect(run.stdout).toMatch(new RegExp(`${binding} +${name} +create \\(location hint weur\\)`));
    }
    expect(run.stdout).toMatch(new RegExp(`DB +agent-trust +${CONTROL.length} to apply: ${CONTROL[0]} … ${CONTROL.at(-1)}`));
    expect(run.stdout).toMatch(new RegExp(`SHARD_1 +agent-trust-shard-1 +${SHARD.length} to apply: ${SHARD[0]} … ${SHARD.at(-1)}`));
    for (const name of [...QUEUES, ...BUCKETS]) expect(run.stdout).toMatch(new RegExp(`\\n    ${name} +create\\n`));
    for (const name of SECRETS) expect(run.stdout).toMatch(new RegExp(`\\n    ${name} +generate and set\\n`));
    expect(run.stdout).toContain(`PUBLIC_ORIGIN ${ORIGIN} (custom domain ${DOMAIN})`);
    expect(run.stdout).toContain("Dry run: nothing was changed.");
  });

  it("a first run creates everything, migrates every database before the Worker deploys, and shows each new secret once", async () => {
    const { read, deploy, project } = setUp();
    const run = deploy("--domain", DOMAIN, "--location", "weur", "--gateway");
    expect(run.status, run.stderr).toBe(0);
    const state = read();
    expect(state.d1.map((d) => [d.name, d.location])).toEqual([["agent-trust", "weur"], ["agent-trust-shard-0", "weur"], ["agent-trust-shard-1", "weur"]]);
    expect(state.queues.map((q) => q.queue_name).sort()).toEqual(QUEUES);
    expect(state.buckets.map((b) => b.name).sort()).toEqual(BUCKETS);

    const [deployed] = state.workers[WORKER].deployments;
    expect(state.workers[WORKER].deployments).toHaveLength(1);
    expect(deployed.migrations).toEqual({ DB: CONTROL, SHARD_0: SHARD, SHARD_1: SHARD });
    expect(database(state, "agent-trust-shard-1").history).toEqual(SHARD.map((f) => `d1_shard_migrations/${f}`));
    expect(deployed.vars.PUBLIC_ORIGIN).toBe(ORIGIN);
    expect(deployed.routes).toEqual([{ pattern: DOMAIN, custom_domain: true }]);

    const secrets = state.workers[WORKER].secrets;
    expect(Object.keys(secrets).sort()).toEqual(SECRETS);
    for (const [name, value] of Object.entries(secrets)) expect(occurrences(run.stdout, `${name}=${value}\n`), name).toBe(1);
    const [key] = JSON.parse(secrets.ATTESTATION_KEYS);
    expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(key.d).toBeTypeOf("string");
    expect(secrets.ADMIN_TOKEN).toMatch(/^[0-9a-f]{64}$/);

    // The ids went to the git-ignored file, as wrangler itself reads it; the tracked one is as it was.
    const { unstable_readConfig } = await import("wrangler");
    const written = unstable_readConfig({ config: join(project, "wrangler.deploy.toml") });
    expect(written.d1_databases.map((d: { binding: string; database_id?: string; migrations_table?: string }) => [d.binding, d.database_id, d.migrations_table])).toEqual([
      ["DB", database(state, "agent-trust").uuid, undefined],
      ["SHARD_0", database(state, "agent-trust-shard-0").uuid, "d1_shard_migrations"],
      ["SHARD_1", database(state, "agent-trust-shard-1").uuid, "d1_shard_migrations"],
    ]);
    expect(written.routes).toEqual([{ pattern: DOMAIN, custom_domain: true }]);
    expect(written.vars.PUBLIC_ORIGIN).toBe(ORIGIN);
    expect([...(written.secrets?.required ?? [])].sort()).toEqual(SECRETS);
    expect(readFileSync(join(project, "wrangler.toml"), "utf8")).toBe(readFileSync(join(root, "wrangler.toml"), "utf8"));

    expect(state.workers["agent-trust-gateway"].deployments[0].vars.TRUST_SERVICE).toBe(ORIGIN);
  });

  it("a second run creates nothing, applies nothing and sets no secret: it deploys the code again", () => {
    const { read, deploy } = setUp();
    expect(deploy("--domain", DOMAIN).status).toBe(0);
    const after = read();

    // The domain is read back from wrangler.deploy.toml.
    const dry = deploy("--dry-run");
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("Nothing to create, migrate or set");
    expect(dry.calls.filter((call) => !reads(call))).toEqual([]);

    const again = deploy();
    expect(again.status, again.stderr).toBe(0);
    expect(again.calls.filter((call) => !reads(call))).toEqual([["deploy", "--config", "wrangler.deploy.toml"]]);
    const state = read();
    expect(state.d1).toEqual(after.d1);
    expect(state.queues).toEqual(after.queues);
    expect(state.buckets).toEqual(after.buckets);
    expect(state.workers[WORKER].secrets).toEqual(after.workers[WORKER].secrets);
    expect(state.workers[WORKER].deployments[1]).toMatchObject({ secretsSet: [], vars: { PUBLIC_ORIGIN: ORIGIN } });
    expect(again.stdout).not.toMatch(/^ {2}[A-Z_]+=/m);
  });

  it("a run whose migrations stop half-way deploys nothing, and the next run resumes where they stopped", () => {
    const { read, deploy } = setUp({ faults: [{ database: "agent-trust-shard-1", migration: SHARD[3] }] });
    const first = deploy("--domain", DOMAIN);
    expect(first.status).toBe(1);
    expect(first.stderr).toContain("The migrations of agent-trust-shard-1 (SHARD_1) stopped");
    expect(first.stderr).toContain("Migration 0003_history_chain.sql failed");
    const half = read();
    expect(half.workers[WORKER]).toBeUndefined();
    expect(database(half, "agent-trust-shard-1").tables.d1_shard_migrations).toEqual(SHARD.slice(0, 3));

    const second = deploy();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`SHARD_1 +agent-trust-shard-1 +${SHARD.length - 3} to apply: ${SHARD[3]} … ${SHARD.at(-1)}`));
    expect(second.calls.filter((call) => !reads(call))).toEqual([
      ["d1", "migrations", "apply", "SHARD_1", "--remote", "--config", "wrangler.deploy.toml"],
      ["deploy", "--config", "wrangler.deploy.toml", "--secrets-file", expect.stringMatching(/secrets\.json$/)],
    ]);
    const state = read();
    // Every migration applied once, and all of them before the Worker deployed.
    expect(database(state, "agent-trust-shard-1").history).toEqual(SHARD.map((f) => `d1_shard_migrations/${f}`));
    expect(state.workers[WORKER].deployments[0].migrations).toEqual({ DB: CONTROL, SHARD_0: SHARD, SHARD_1: SHARD });
  });

  it("reuses what the account already holds and never sets a secret that exists", () => {
    const control = { uuid: "5d6c9a55-8a41-4c11-9f0e-1b7a3c2e9d01", name: "agent-trust", created_at: "2026-01-01T00:00:00Z", version: "production", num_tables: 9, file_size: 98304, jurisdiction: null, location: null, tables: { d1_migrations: CONTROL.slice(0, 5) }, history: CONTROL.slice(0, 5).map((f) => `d1_migrations/${f}`) };
    const { read, deploy } = setUp({
      d1: [control],
      queues: [{ queue_id: "q1", queue_name: "trust-events", created_on: "2026-01-01T00:00:00Z", modified_on: "2026-01-01T00:00:00Z" }],
      buckets: [{ name: "trust-log", creation_date: "2026-01-01T00:00:00Z" }],
      workers: { [WORKER]: { secrets: { ADMIN_TOKEN: "the-operators-own-admin-token", LOG_KEY: "the-log-key-that-names-agents" }, deployments: [] } },
    });
    const run = deploy("--domain", DOMAIN);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`DB +agent-trust +exists ${control.uuid}`));
    expect(run.stdout).toMatch(new RegExp(`DB +agent-trust +${CONTROL.length - 5} to apply: ${CONTROL[5]}`));
    expect(run.stdout).toMatch(/\n {4}ADMIN_TOKEN +exists, kept\n/);
    const creates = run.calls.filter((call) => call.includes("create")).map((call) => call.filter((a) => !a.startsWith("-")).at(-1));
    expect(creates.sort()).toEqual(["agent-trust-shard-0", "agent-trust-shard-1", ...QUEUES.filter((q) => q !== "trust-events"), "trust-history", "trust-model"].sort());

    const state = read();
    expect(state.d1.filter((d) => d.name === "agent-trust")).toEqual([expect.objectContaining({ uuid: control.uuid })]);
    expect(database(state, "agent-trust").history).toEqual(CONTROL.map((f) => `d1_migrations/${f}`));
    const worker = state.workers[WORKER];
    expect(worker.secrets.ADMIN_TOKEN).toBe("the-operators-own-admin-token");
    expect(worker.secrets.LOG_KEY).toBe("the-log-key-that-names-agents");
    expect(worker.deployments[0].secretsSet.sort()).toEqual(SECRETS.filter((s) => s !== "ADMIN_TOKEN" && s !== "LOG_KEY"));
    expect(run.stdout).not.toMatch(/^ {2}(ADMIN_TOKEN|LOG_KEY)=/m);
    expect(run.stdout).toMatch(/\n {2}REPORTER_KEY=/);
  });

  it.each([
    ["RETURN_KEYS_IN_RESPONSES = true", "RETURN_KEYS_IN_RESPONSES", (toml: string) => toml.replace("[vars]\n", '[vars]\nRETURN_KEYS_IN_RESPONSES = "true"\n'), ["--domain", DOMAIN]],
    ["ALLOW_LOOPBACK_WEBHOOKS = true", "ALLOW_LOOPBACK_WEBHOOKS", (toml: string) => toml.replace("[vars]\n", '[vars]\nALLOW_LOOPBACK_WEBHOOKS = "true"\n'), ["--domain", DOMAIN]],
    ["npm start's PUBLIC_ORIGIN (no --domain)", "PUBLIC_ORIGIN", (toml: string) => toml, []],
    ["a PUBLIC_ORIGIN over http", "PUBLIC_ORIGIN", (toml: string) => toml.replace(/^PUBLIC_ORIGIN = .*$/m, 'PUBLIC_ORIGIN = "http://trust.example.com"'), []],
  ])("refuses a configuration with %s before it asks the account anything", (_, name, edit, args) => {
    const { read, deploy } = setUp({}, edit);
    const run = deploy(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(name);
    expect(run.calls).toEqual([]);
    expect(read().workers).toEqual({});
  });

  it("refuses a Worker that holds a local-only flag as a secret, having changed nothing", () => {
    const { read, deploy } = setUp({ workers: { [WORKER]: { secrets: { RETURN_KEYS_IN_RESPONSES: "true" }, deployments: [] } } });
    const run = deploy("--domain", DOMAIN);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("npx wrangler secret delete RETURN_KEYS_IN_RESPONSES");
    expect(run.calls.filter((call) => !reads(call))).toEqual([]);
    expect(read().d1).toEqual([]);
  });
});
