// A stand-in for wrangler 4 in the deploy script's test (test/node/deploy.test.ts). It answers the
// commands `npm run deploy` runs, printing what wrangler prints (formats read from wrangler's own
// source: JSON where it has --json, cli-table3 tables, "label: value" lines, "✘ [ERROR]" messages on
// stderr), against an account kept in the JSON file named by WRANGLER_STUB_STATE, and records every
// command there (`calls`). `faults`: [{database, migration}] makes that migration fail once.
// Like wrangler, `d1 migrations apply` and `deploy` read the configuration given with --config,
// and a deploy fails when a binding names something the account lacks or a required secret is unset.
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import Table from "cli-table3";
import { parse } from "smol-toml";

const VERSION = "4.164.0";
const statePath = process.env.WRANGLER_STUB_STATE;
const state = JSON.parse(readFileSync(statePath, "utf8"));
const argv = process.argv.slice(2);
state.calls.push(argv);

const BOOLEAN = new Set(["--json", "--remote", "--local", "--preview", "--dry-run", "--keep-vars"]);
const positional = [];
const flags = {};
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg.startsWith("-")) {
    const name = arg === "-c" ? "--config" : arg.split("=")[0];
    if (arg.includes("=")) flags[name] = arg.slice(arg.indexOf("=") + 1);
    else if (BOOLEAN.has(name)) flags[name] = true;
    else flags[name] = argv[++i];
  } else positional.push(arg);
}
const command = positional.slice(0, 3).join(" ");
const now = () => new Date().toISOString();

let out = "";
let err = "";
const log = (text = "") => (out += `${text}\n`);
const banner = () => {
  const text = ` \u26C5\uFE0F wrangler ${VERSION}`;
  log(`\n${text}\n${"\u2500".repeat(text.length)}`);
};
const table = (rows) => {
  const head = rows.length === 0 ? [] : Object.keys(rows[0]);
  const t = new Table({ style: { head: [], border: [] }, wordWrap: false, head });
  t.push(...rows.map((row) => head.map((k) => row[k])));
  log(t.toString());
};
class UserError extends Error {}
const fail = (message) => {
  throw new UserError(message);
};

/** The configuration given with --config (wrangler.toml in the working directory otherwise), and its folder. */
function config() {
  const path = resolve(flags["--config"] ?? "wrangler.toml");
  return { config: parse(readFileSync(path, "utf8")), dir: dirname(path) };
}
const database = (predicate, what) => state.d1.find(predicate) ?? fail(`Couldn't find DB with name or ID '${what}'`);
function configuredDatabase(nameOrBinding) {
  const { config: c, dir } = config();
  const entry = (c.d1_databases ?? []).find((d) => d.binding === nameOrBinding || d.database_name === nameOrBinding);
  if (!entry) fail(`Couldn't find a D1 DB with the name or binding '${nameOrBinding}' in your wrangler.toml file.`);
  const db = entry.database_id ? database((d) => d.uuid === entry.database_id, entry.database_id) : database((d) => d.name === entry.database_name, entry.database_name);
  const folder = entry.migrations_dir ?? "migrations";
  return { db, table: entry.migrations_table ?? "d1_migrations", folder: isAbsolute(folder) ? folder : join(dir, folder) };
}
const worker = (name) => state.workers[name];

const commands = {
  whoami() {
    if (!state.login) {
      log(JSON.stringify({ loggedIn: false }));
      return 1;
    }
    log(JSON.stringify({ loggedIn: true, authType: "OAuth Token", email: state.login.email, accounts: state.login.accounts, tokenPermissions: ["account:read", "d1:write", "workers_scripts:write", "queues:write"] }, null, 2));
  },
  "d1 list"() {
    log(JSON.stringify(state.d1.map(({ uuid, name, created_at, version, num_tables, file_size, jurisdiction }) => ({ uuid, name, created_at, version, num_tables, file_size, jurisdiction })), null, 2));
  },
  "d1 create"() {
    const name = positional[2];
    banner();
    if (state.d1.some((d) => d.name === name)) fail(`A request to the Cloudflare API (/accounts/${state.login.accounts[0].id}/d1/database) failed.\n\n  A database with that name already exists. [code: 7502]`);
    const db = { uuid: randomUUID(), name, created_at: now(), version: "production", num_tables: 0, file_size: 0, jurisdiction: null, location: flags["--location"] ?? null, tables: {}, history: [] };
    state.d1.push(db);
    log(`\u2705 Successfully created DB '${name}'${db.location ? ` using primary location hint ${db.location}` : ""}`);
    log("Created your new D1 database.\n");
    log("To access your new D1 Database in your Worker, add the following snippet to your configuration file:");
    log(`[[d1_databases]]\nbinding = "${name.replace(/\W/g, "_")}"\ndatabase_name = "${name}"\ndatabase_id = "${db.uuid}"`);
  },
  "d1 execute"() {
    if (!flags["--remote"]) fail("The stub runs remote D1 commands only");
    const { db } = configuredDatabase(positional[2]);
    const sql = flags["--command"] ?? "";
    const read = /^SELECT name FROM "?(\w+)"? ORDER BY id$/.exec(sql.trim());
    if (!read) fail(`The stub does not run ${sql}`);
    if (!db.tables[read[1]]) {
      const message = { text: `A request to the Cloudflare API (/accounts/${state.login.accounts[0].id}/d1/database/${db.uuid}/query) failed.`, notes: [{ text: `no such table: ${read[1]}: SQLITE_ERROR [code: 7500]` }], kind: "error", name: "APIError", code: 7500 };
      log(JSON.stringify({ error: message }, null, 2));
      return 1;
    }
    const results = db.tables[read[1]].map((name) => ({ name }));
    log(JSON.stringify([{ results, success: true, meta: { served_by: "v3-prod", served_by_region: "WEUR", duration: 0.2, changes: 0, last_row_id: 0, changed_db: false, size_after: 16384, rows_read: results.length, rows_written: 0 } }], null, 2));
  },
  "d1 migrations apply"() {
    if (!flags["--remote"]) fail("The stub runs remote D1 commands only");
    const { db, table: migrationsTable, folder } = configuredDatabase(positional[3]);
    banner();
    log(`Resource location: remote \n`);
    db.tables[migrationsTable] ??= [];
    const applied = db.tables[migrationsTable];
    const pending = readdirSync(folder).filter((f) => f.endsWith(".sql")).sort().filter((f) => !applied.includes(f));
    if (pending.length === 0) {
      log("\u2705 No migrations to apply!");
      return;
    }
    log("Migrations to be applied:");
    table(pending.map((name) => ({ name })));
    const status = Object.fromEntries(pending.map((name) => [name, "\u{1F552}\uFE0F"]));
    for (const name of pending) {
      const fault = state.faults.findIndex((f) => f.database === db.name && f.migration === name);
      log(`\u{1F300} Executing on remote database ${db.name} (${db.uuid}):`);
      if (fault >= 0) {
        state.faults.splice(fault, 1);
        status[name] = "\u274C";
        table(pending.map((n) => ({ name: n, status: status[n] })));
        err += `\n\u2718 [ERROR] Migration ${name} failed with the following errors:\n\n`;
        fail(`A request to the Cloudflare API (/accounts/${state.login.accounts[0].id}/d1/database/${db.uuid}/query) failed.\n\n  D1_ERROR: Network connection lost.`);
      }
      applied.push(name);
      db.history.push(`${migrationsTable}/${name}`);
      db.num_tables += 1;
      log("\u{1F6A3} Executed 3 commands in 1.23ms");
      status[name] = "\u2705";
      table(pending.map((n) => ({ name: n, status: status[n] })));
    }
  },
  "queues list"() {
    banner();
    const size = state.queuePageSize ?? 20;
    const page = Number(flags["--page"] ?? 1);
    const rows = state.queues.slice((page - 1) * size, page * size);
    table(rows.map((q) => ({ id: q.queue_id, name: q.queue_name, created_on: q.created_on, modified_on: q.modified_on, producers: "0", consumers: "0" })));
  },
  "queues create"() {
    const name = positional[2];
    banner();
    log(`\u{1F300} Creating queue '${name}'`);
    if (state.queues.some((q) => q.queue_name === name)) fail(`A request to the Cloudflare API (/accounts/${state.login.accounts[0].id}/queues) failed.\n\n  Queue name '${name}' is already taken. Please use a different name and try again. [code: 11009]`);
    state.queues.push({ queue_id: randomUUID().replaceAll("-", ""), queue_name: name, created_on: now(), modified_on: now() });
    log(`\u2705 Created queue '${name}'\n\nConfigure your Worker to send messages to this queue:\n\n[[queues.producers]]\nqueue = "${name}"\nbinding = "${name.replace(/\W/g, "_")}"`);
  },
  "r2 bucket list"() {
    banner();
    log("Listing buckets...");
    const width = "creation_date:".length + 2;
    log(state.buckets.map((b) => `${"name:".padEnd(width)}${b.name}\n${"creation_date:".padEnd(width)}${b.creation_date}`).join("\n\n"));
  },
  "r2 bucket create"() {
    const name = positional[3];
    banner();
    log(`Creating bucket '${name}'...`);
    if (state.buckets.some((b) => b.name === name)) fail(`A request to the Cloudflare API (/accounts/${state.login.accounts[0].id}/r2/buckets) failed.\n\n  The bucket you tried to create already exists, and you own it. [code: 10004]`);
    state.buckets.push({ name, creation_date: now() });
    log(`\u2705 Created bucket '${name}' with default storage class of Standard.`);
  },
  "secret list"() {
    const name = flags["--name"] ?? config().config.name;
    if (!worker(name)) {
      fail(`Worker "${name}" not found.\n\nIf this is a new Worker, run \`wrangler deploy\` first to create it.\nOtherwise, check that the Worker name is correct and you're logged into the right account.`);
    }
    log(JSON.stringify(Object.keys(worker(name).secrets).map((s) => ({ name: s, type: "secret_text" })), null, "  "));
  },
  deploy() {
    const { config: c } = config();
    banner();
    const lacking = [
      ...(c.d1_databases ?? []).filter((d) => !state.d1.some((db) => db.uuid === d.database_id)).map((d) => `D1 database ${d.database_name} (${d.database_id})`),
      ...[...(c.queues?.producers ?? []), ...(c.queues?.consumers ?? [])].flatMap((q) => [q.queue, q.dead_letter_queue]).filter((q) => q && !state.queues.some((s) => s.queue_name === q)).map((q) => `queue ${q}`),
      ...(c.r2_buckets ?? []).filter((b) => !state.buckets.some((s) => s.name === b.bucket_name)).map((b) => `R2 bucket ${b.bucket_name}`),
    ];
    if (lacking.length > 0) fail(`A request to the Cloudflare API (/accounts/${state.login.accounts[0].id}/workers/scripts/${c.name}) failed.\n\n  binding to a missing resource: ${lacking.join(", ")} [code: 10021]`);
    const added = flags["--secrets-file"] ? JSON.parse(readFileSync(flags["--secrets-file"], "utf8")) : {};
    const current = worker(c.name)?.secrets ?? {};
    const unset = (c.secrets?.required ?? []).filter((s) => !(s in current) && !(s in added));
    if (unset.length > 0) {
      fail(`The following required secrets have not been set: ${unset.join(", ")}\nUse \`wrangler secret put <NAME>\` to set secrets before deploying,\nor supply them when deploying with \`wrangler deploy --secrets-file <path-to-file>\`.`);
    }
    state.workers[c.name] ??= { secrets: {}, deployments: [] };
    const w = state.workers[c.name];
    Object.assign(w.secrets, added);
    w.deployments.push({
      vars: c.vars ?? {},
      routes: c.routes ?? [],
      send_email: c.send_email ?? [],
      secretsSet: Object.keys(added),
      // Each database's migrations as the deploy found them.
      migrations: Object.fromEntries((c.d1_databases ?? []).map((d) => [d.binding, state.d1.find((db) => db.uuid === d.database_id).tables[d.migrations_table ?? "d1_migrations"] ?? []])),
    });
    log("Total Upload: 1520.33 KiB / gzip: 301.12 KiB");
    log("Worker Startup Time: 31 ms");
    log(`Uploaded ${c.name} (4.20 sec)`);
    log(`Deployed ${c.name} triggers (1.10 sec)`);
    for (const r of c.routes ?? []) log(`  ${r.pattern} (custom domain)`);
    for (const cron of c.triggers?.crons ?? []) log(`  schedule: ${cron}`);
    log(`Current Version ID: ${randomUUID()}`);
  },
};

let status = 0;
try {
  const handler = commands[command] ?? commands[positional.slice(0, 2).join(" ")] ?? commands[positional[0]];
  if (!handler) fail(`The stub does not know \`wrangler ${argv.join(" ")}\``);
  status = handler() ?? 0;
} catch (e) {
  if (!(e instanceof UserError)) throw e;
  err += `\n\u2718 [ERROR] ${e.message}\n\n`;
  status = 1;
}
writeFileSync(statePath, JSON.stringify(state, null, 2));
process.stdout.write(out);
process.stderr.write(err);
process.exitCode = status;
