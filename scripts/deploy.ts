// `npm run deploy [-- options]`: sets up and deploys the service to a Cloudflare account with
// wrangler, idempotently. It reads the account (the login, the D1 databases, queues and R2 buckets,
// the Worker's secrets, each database's applied migrations) and prints the plan; then it creates what
// wrangler.toml names and the account lacks, writes wrangler.deploy.toml (git-ignored: wrangler.toml
// with this account's ids and the settings below), applies each database's pending migrations,
// generates the secrets the Worker lacks (one that exists is never set again) and deploys the Worker
// with them, and with --gateway the gateway. docs/operations.md#deploy says it step by step.
//
//   --dry-run          read the account and print the plan; change nothing
//   --domain HOST      the public host: the Worker's custom domain, PUBLIC_ORIGIN https://HOST (needed once)
//   --email-from ADDR  e-mail operators' keys from this address (send_email binding EMAIL)
//   --location HINT    where the D1 databases it creates live: weur, eeur, apac, oc, wnam, enam
//   --gateway          deploy the gateway Worker (gateway/) too, trusting this deployment
//
// --domain and --email-from are kept in wrangler.deploy.toml for later runs. wrangler: DEPLOY_WRANGLER,
// else the project's. The account: wrangler's login or CLOUDFLARE_API_TOKEN (with CLOUDFLARE_ACCOUNT_ID
// where the login reaches several). Reads no standard input: it runs as it is under CI.
// Exit status: 0 deployed (or planned); 1 the account or a wrangler command failed; 2 refused (an
// option, or a setting for local development only).
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Failure, must, readAccount } from "./deploy/account";
import {
  DEPLOY_CONFIG,
  deployConfig,
  gatewayDeployConfig,
  hostName,
  localOnlySecrets,
  localOnlySettings,
  previousSettings,
  readToml,
  writeToml,
  type RawConfig,
  type Settings,
} from "./deploy/config";
import { databasesToCreate, makePlan, printPlan, type Plan } from "./deploy/plan";
import { jsonOf, wranglerAt, type Wrangler } from "./deploy/wrangler";
import { workerSecrets } from "./local-secrets.mjs";

const USAGE = "Usage: npm run deploy -- [--dry-run] [--domain HOST] [--email-from ADDRESS] [--location HINT] [--gateway]";
const LOCATIONS = ["weur", "eeur", "apac", "oc", "wnam", "enam"];
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const print = (line = "") => console.log(line);

/** A deploy refused before anything changed (exit status 2). */
class Refusal extends Error {}

interface Options {
  dryRun: boolean;
  gateway: boolean;
  settings: Settings;
  location: string | undefined;
}

function readOptions(argv: string[], previous: RawConfig | null): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        "dry-run": { type: "boolean" },
        gateway: { type: "boolean" },
        domain: { type: "string" },
        "email-from": { type: "string" },
        location: { type: "string" },
      },
    }));
  } catch (err) {
    throw new Refusal(`${(err as Error).message}\n${USAGE}`);
  }
  const before = previousSettings(previous);
  const domain = values.domain === undefined ? before.domain : hostName(values.domain);
  if (domain === null) throw new Refusal(`--domain takes a host name (trust.example.com), not "${values.domain}"`);
  const emailFrom = values["email-from"] ?? before.emailFrom;
  if (emailFrom !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(emailFrom)) throw new Refusal(`--email-from takes an address, not "${emailFrom}"`);
  if (values.location !== undefined && !LOCATIONS.includes(values.location)) {
    throw new Refusal(`--location takes one of ${LOCATIONS.join(", ")}, not "${values.location}"`);
  }
  return { dryRun: values["dry-run"] === true, gateway: values.gateway === true, settings: { domain, emailFrom }, location: values.location };
}

/** New values for the missing secrets: ADMIN_TOKEN and those `npm start` makes for .dev.vars. */
function newSecrets(names: string[]): Record<string, string> {
  const kid = `${new Date().toISOString().slice(0, 7)}-${randomBytes(2).toString("hex")}`;
  const made: Record<string, string> = { ADMIN_TOKEN: randomBytes(32).toString("hex"), ...workerSecrets(kid) };
  return Object.fromEntries(names.map((name) => [name, made[name]]));
}

async function main(): Promise<void> {
  const dir = process.cwd();
  if (!existsSync(join(dir, "wrangler.toml"))) throw new Refusal("No wrangler.toml here: run npm run deploy in the project's folder");
  const config = readToml(join(dir, "wrangler.toml"));
  const previous = existsSync(join(dir, DEPLOY_CONFIG)) ? readToml(join(dir, DEPLOY_CONFIG)) : null;
  const options = readOptions(process.argv.slice(2), previous);
  const secretNames = ["ADMIN_TOKEN", ...Object.keys(workerSecrets())];

  const intended = deployConfig(config, new Map(), options.settings, secretNames);
  const refused = localOnlySettings(intended);
  if (refused.length > 0) throw new Refusal(`Refused: settings for local development only:\n${refused.map((p) => `  - ${p}`).join("\n")}`);
  // The origin is the service's name: a run that would rename a deployment stops (a mistyped --domain).
  const origin = String(intended.vars.PUBLIC_ORIGIN);
  if (previous?.vars?.PUBLIC_ORIGIN !== undefined && previous.vars.PUBLIC_ORIGIN !== origin) {
    throw new Refusal(
      `Refused: PUBLIC_ORIGIN would change from ${previous.vars.PUBLIC_ORIGIN} to ${origin}, the name relying parties and ` +
        `gateways know the service by (the issuer of its attestations). To move it on purpose, delete ${DEPLOY_CONFIG} first.`,
    );
  }
  const gatewayFile = join(dir, "gateway", "wrangler.toml");
  if (options.gateway && !existsSync(gatewayFile)) throw new Refusal("--gateway: no gateway/wrangler.toml here");
  const gateway = options.gateway ? readToml(gatewayFile) : null;

  const wrangler = wranglerAt(process.env.DEPLOY_WRANGLER ?? join(root, "node_modules", ".bin", "wrangler"), dir, process.env);
  print(`Reading the Cloudflare account with wrangler${options.dryRun ? " (dry run: nothing will change)" : ""} ...`);
  const account = await readAccount(wrangler, config.name, process.env.CLOUDFLARE_ACCOUNT_ID ?? config.account_id);
  const flagged = localOnlySecrets(account.secrets);
  if (flagged.length > 0) throw new Refusal(`Refused: ${flagged.join("\n")}`);
  const plan = await makePlan(wrangler, dir, config, account, secretNames, { ...options, origin, gateway });
  print();
  printPlan(plan, print);
  print();
  if (options.dryRun) {
    print("Dry run: nothing was changed. Run npm run deploy (with the same options) to carry it out.");
    return;
  }
  await carryOut(wrangler, dir, plan, config, gateway, secretNames);
}

async function carryOut(wrangler: Wrangler, dir: string, plan: Plan, config: RawConfig, gateway: RawConfig | null, secretNames: string[]) {
  // 1. What the account lacks. A run stopped half-way finds what it made and goes on from there.
  const created = databasesToCreate(plan);
  for (const name of created) {
    await must(wrangler, ["d1", "create", name, ...(plan.location ? ["--location", plan.location] : [])], `Creating the D1 database ${name}`);
    print(`Created the D1 database ${name}${plan.location ? ` (location hint ${plan.location})` : ""}`);
  }
  for (const { name } of plan.queues.filter((q) => !q.exists)) {
    await must(wrangler, ["queues", "create", name], `Creating the queue ${name}`);
    print(`Created the queue ${name}`);
  }
  for (const { name } of plan.buckets.filter((b) => !b.exists)) {
    await must(wrangler, ["r2", "bucket", "create", name], `Creating the R2 bucket ${name}`);
    print(`Created the R2 bucket ${name}`);
  }

  // 2. The ids, into the git-ignored configuration every later command and the deploy use.
  const ids = new Map(plan.databases.filter((d) => d.id).map((d) => [d.name, d.id as string]));
  if (created.length > 0) {
    const listed = jsonOf((await must(wrangler, ["d1", "list", "--json"], "Listing the D1 databases")).stdout) as { uuid: string; name: string }[];
    for (const name of created) {
      const database = listed.find((d) => d.name === name);
      if (!database) throw new Failure(`The D1 database ${name} was created but is not listed: run npm run deploy again`);
      ids.set(name, database.uuid);
    }
  }
  const settings = "this account's resource ids and the settings --domain and --email-from (read back from here when not given again)";
  writeToml(join(dir, DEPLOY_CONFIG), deployConfig(config, ids, plan.settings, secretNames), "wrangler.toml", settings);
  print(`Wrote ${DEPLOY_CONFIG}`);
  if (gateway) {
    writeToml(join(dir, "gateway", DEPLOY_CONFIG), gatewayDeployConfig(gateway, plan.origin), "gateway/wrangler.toml", "TRUST_SERVICE this deployment's origin");
    print(`Wrote gateway/${DEPLOY_CONFIG}`);
  }

  // 3. Migrations, every database before the Worker. D1 records each applied migration in the
  // database: a run after a failure applies only those still missing.
  for (const d of plan.databases.filter((db) => db.pending.length > 0)) {
    print(`Applying ${d.pending.length} migration(s) to ${d.name} (${d.binding}) ...`);
    const applied = await wrangler(["d1", "migrations", "apply", d.binding, "--remote", "--config", DEPLOY_CONFIG], { echo: true });
    if (applied.status !== 0) {
      throw new Failure(
        `The migrations of ${d.name} (${d.binding}) stopped (above); the Worker was not deployed. ` +
          "Run npm run deploy again once the cause is fixed: it applies only the migrations not yet recorded.",
      );
    }
  }

  // 4. The secrets the Worker lacks go up with the deploy itself (wrangler deploy --secrets-file adds
  // them and keeps every other secret), so a new Worker never runs without them.
  const missing = plan.secrets.filter((s) => !s.exists).map((s) => s.name);
  const secrets = newSecrets(missing);
  const scratch = mkdtempSync(join(tmpdir(), "deploy-secrets-"));
  try {
    const secretsFile = join(scratch, "secrets.json");
    if (missing.length > 0) {
      writeFileSync(secretsFile, JSON.stringify(secrets), { mode: 0o600 });
      print();
      print("New secrets, set with this deploy and shown this once (wrangler cannot read them back). Keep them in");
      print("your secret manager: ADMIN_TOKEN is the admin CLI's token, and the rotations of ATTESTATION_KEYS and");
      print("LOG_SIGNING_KEYS start from their current values (docs/operations.md#rotating-secrets).");
      for (const [name, value] of Object.entries(secrets)) print(`  ${name}=${value}`);
      print();
    }
    print(`Deploying the Worker ${plan.worker.name}${missing.length > 0 ? ` with ${missing.length} new secret(s)` : ""} ...`);
    const args = ["deploy", "--config", DEPLOY_CONFIG, ...(missing.length > 0 ? ["--secrets-file", secretsFile] : [])];
    if ((await wrangler(args, { echo: true })).status !== 0) {
      throw new Failure(
        "The deploy failed (above). What was created and migrated stays; run npm run deploy again. If it failed after " +
          "the upload, the secrets above may be set: the next run lists them and keeps those that exist.",
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  // 5. The gateway.
  if (gateway) {
    print("Deploying the gateway ...");
    const deployed = await wrangler(["deploy", "--config", join("gateway", DEPLOY_CONFIG)], { echo: true });
    if (deployed.status !== 0) throw new Failure("The gateway's deploy failed (above); the service is deployed. Run npm run deploy -- --gateway again.");
  }
  print();
  print(`Deployed. Check it: curl -s ${plan.origin}/health`);
  print(`Admin CLI: ADMIN_TOKEN=<the token> npm run admin -- --url ${plan.origin} applications`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Refusal || err instanceof Failure ? err.message : err);
  process.exit(err instanceof Refusal ? 2 : 1);
});
