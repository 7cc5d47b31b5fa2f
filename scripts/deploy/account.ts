// What the Cloudflare account already holds, read with wrangler and never changed here: the login,
// the D1 databases, queues and R2 buckets, the Worker's secrets, each database's applied migrations.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "smol-toml";
import type { Database } from "./config";
import { jsonOf, labelled, said, tableRows, type Output, type Wrangler } from "./wrangler";

/** A failure of the account or of a wrangler command (exit status 1). */
export class Failure extends Error {}

export interface Account {
  /** Who is logged in, and to which account the commands go. */
  login: string;
  databases: { uuid: string; name: string }[];
  queues: Set<string>;
  buckets: Set<string>;
  workerExists: boolean;
  /** The names of the Worker's secrets (wrangler never shows their values). */
  secrets: Set<string>;
}

export async function must(wrangler: Wrangler, args: string[], what: string): Promise<Output> {
  const output = await wrangler(args);
  if (output.status !== 0) throw new Failure(`${what} failed (wrangler ${args.join(" ")}):\n${said(output)}`);
  return output;
}

/** The account's resources and the Worker's secrets. `accountId`: CLOUDFLARE_ACCOUNT_ID or the configuration's. */
export async function readAccount(wrangler: Wrangler, workerName: string, accountId: string | undefined): Promise<Account> {
  const who = await wrangler(["whoami", "--json"]);
  const user = who.status === 0 ? (jsonOf(who.stdout) as { loggedIn?: boolean; email?: string; accounts?: { id: string; name: string }[] }) : null;
  if (!user?.loggedIn) {
    throw new Failure(`Not logged in to Cloudflare: run \`npx wrangler login\` first (or set CLOUDFLARE_API_TOKEN).\n${said(who)}`);
  }
  const accounts = user.accounts ?? [];
  if (!accountId && accounts.length > 1) {
    throw new Failure(
      `This login reaches ${accounts.length} accounts (${accounts.map((a) => `${a.name} ${a.id}`).join(", ")}): ` +
        "set CLOUDFLARE_ACCOUNT_ID to the one to deploy to.",
    );
  }
  const account = accountId ? accounts.find((a) => a.id === accountId) : accounts[0];
  const login = `${user.email ?? "an API token"}, account ${account ? `${account.name} (${account.id})` : accountId}`;

  const databases = jsonOf((await must(wrangler, ["d1", "list", "--json"], "Listing the D1 databases")).stdout) as { uuid: string; name: string }[];

  // `queues list` shows one page; the next pages until one brings no new name (an empty page, or the
  // same page again from an API that ignores the number).
  const queues = new Set<string>();
  for (let page = 1; page <= 100; page++) {
    const rows = tableRows((await must(wrangler, ["queues", "list", "--page", String(page)], "Listing the queues")).stdout);
    if (rows.length > 0 && !("name" in rows[0])) throw new Failure(`Cannot read the table of \`wrangler queues list\`: no "name" column`);
    const fresh = rows.map((r) => r.name).filter((name) => name && !queues.has(name));
    if (fresh.length === 0) break;
    for (const name of fresh) queues.add(name);
  }

  const buckets = new Set(labelled((await must(wrangler, ["r2", "bucket", "list"], "Listing the R2 buckets")).stdout, "name"));

  const listed = await wrangler(["secret", "list", "--name", workerName, "--format", "json"]);
  let workerExists = true;
  let secrets = new Set<string>();
  if (listed.status === 0) {
    secrets = new Set((jsonOf(listed.stdout) as { name: string }[]).map((s) => s.name));
  } else if (new RegExp(`Worker "${workerName}".* not found|\\[code: 10007\\]`).test(said(listed))) {
    workerExists = false; // a first deploy: the Worker and its secrets come with it
  } else {
    throw new Failure(`Listing the Worker's secrets failed (wrangler secret list):\n${said(listed)}`);
  }
  return { login, databases, queues, buckets, workerExists, secrets };
}

/**
 * The migrations recorded in each existing database's migrations table, read with a SELECT (`wrangler
 * d1 migrations list` would create the table: a dry run changes nothing). A database without the
 * table has none. The databases are named by binding in a throw-away configuration holding their ids.
 */
export async function appliedMigrations(
  wrangler: Wrangler,
  workerName: string,
  existing: { database: Database; id: string }[],
): Promise<Map<string, string[]>> {
  const applied = new Map<string, string[]>();
  if (existing.length === 0) return applied;
  const dir = mkdtempSync(join(tmpdir(), "deploy-read-"));
  try {
    const config = join(dir, "wrangler.toml");
    const d1_databases = existing.map(({ database, id }) => ({ binding: database.binding, database_name: database.name, database_id: id }));
    writeFileSync(config, stringify({ name: workerName, d1_databases }));
    for (const { database } of existing) {
      const table = `"${database.migrationsTable.replaceAll('"', '""')}"`;
      const args = ["d1", "execute", database.binding, "--remote", "--json", "--config", config, "--command", `SELECT name FROM ${table} ORDER BY id`];
      const output = await wrangler(args);
      if (output.status !== 0) {
        if (/no such table/i.test(said(output))) {
          applied.set(database.binding, []);
          continue;
        }
        throw new Failure(`Reading the migrations applied to ${database.name} failed (wrangler d1 execute):\n${said(output)}`);
      }
      const [first] = jsonOf(output.stdout) as { results?: { name: string }[] }[];
      applied.set(database.binding, (first?.results ?? []).map((row) => row.name));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return applied;
}
