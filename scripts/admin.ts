// `npm run admin -- <command> [arguments] [options]`: the service operators' CLI over the admin API.
//
//   applications [--status pending|approved|rejected] [--limit N] [--cursor C]
//   approve <application id>
//   reject <application id>
//   operators [--limit N] [--cursor C]
//   operator <operator id> [--tier free|growth|enterprise] [--verified true|false]
//                          [--per-minute N|none] [--per-day N|none]
//   keys <operator id> [--limit N] [--cursor C]      the operator's keys, by prefix
//   revoke-key <operator id> <key id>                revoke one key at once (even the last one)
//   recover <operator id> [--revoke-existing]        issue a recovery key with every scope (e-mailed,
//                                                    or printed where RETURN_KEYS_IN_RESPONSES=true)
//   agent <sid> --status active|suspended
//   waitlist [--limit N] [--cursor C]
//   disputes [--status open|escalated|resolved] [--limit N] [--cursor C]
//   decide <dispute id> --outcome withdraw|keep [--note TEXT]
//   reseal-webhooks [--limit N]                     after a WEBHOOK_SECRET_KEY rotation: seal every
//                                                    webhook secret again under the new key
//   credibility                                      the credibility job: the snapshot in force, the run
//   credibility-run [--force] [--limit PAGES]        run the job now until it publishes (or finds
//                                                    today's snapshot out); --force starts another run
//   anchors [--set ID,ID,...]                        the anchors (the operators trust starts from)
//   archive [--limit AGENTS] [--once]                the history archive (what the daily cron runs):
//                                                    history past the window to R2, pass after pass
//                                                    until the directory's end (--once: one pass)
//   backfill-status-lists [--limit N]                list the agents registered before the status lists
//                                                    (each page as its object has it)
//   erase <sid> [--transaction ID]                   erase the free text of one report, or of every
//                                                    entry of the agent, on its shard and in the archive
//   migrate-objects [--limit N]                      the sweep: every agent's object moves what its
//                                                    storage holds of the earlier contract to its shard
//   reconcile-log [--limit N]                        the log's reconciliation now: agents whose log
//                                                    lags their shard send their entries again
//
// The long ones (credibility-run, archive, backfill-status-lists, reseal-webhooks, migrate-objects,
// reconcile-log) print their
// progress to standard error: how far, of what total, and the time left (scripts/progress.ts).
// Target: --url, else TRUST_API_URL, else http://127.0.0.1:8787 (npm start).
// Token: ADMIN_TOKEN from the environment, else from .dev.vars (local development).
// Exit status: 0 done; 1 the service refused, or could not be reached; 2 a bad command line.
import { existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createTrustClient, type TrustClient } from "../clients/typescript";
import { AGENT_STATUSES } from "../src/domain/agent";
import { APPLICATION_STATUSES } from "../src/domain/applications";
import { DISPUTE_DECISIONS, DISPUTE_STATUSES } from "../src/domain/disputes";
import { SID_PATTERN } from "../src/domain/identifiers";
import { TIER_NAMES } from "../src/domain/limits";
import { progress } from "./progress";

export const DEFAULT_URL = "http://127.0.0.1:8787";
const MAX_PAGE = 200;

/** A mistake on the command line: exit status 2. */
export class UsageError extends Error {}
/** The service refused, or could not be reached: exit status 1. */
export class ServiceError extends Error {}

const OPTIONS = {
  url: { type: "string" },
  status: { type: "string" },
  tier: { type: "string" },
  verified: { type: "string" },
  "per-minute": { type: "string" },
  "per-day": { type: "string" },
  "revoke-existing": { type: "boolean" },
  outcome: { type: "string" },
  note: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  force: { type: "boolean" },
  once: { type: "boolean" },
  set: { type: "string" },
  transaction: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;
type Flag = Exclude<keyof typeof OPTIONS, "url" | "help">;

/** Each command's positional arguments and the options it takes (beyond --url and --help). */
const COMMANDS: Record<string, { args: string[]; flags: Flag[] }> = {
  applications: { args: [], flags: ["status", "limit", "cursor"] },
  approve: { args: ["application id"], flags: [] },
  reject: { args: ["application id"], flags: [] },
  operators: { args: [], flags: ["limit", "cursor"] },
  operator: { args: ["operator id"], flags: ["tier", "verified", "per-minute", "per-day"] },
  keys: { args: ["operator id"], flags: ["limit", "cursor"] },
  "revoke-key": { args: ["operator id", "key id"], flags: [] },
  recover: { args: ["operator id"], flags: ["revoke-existing"] },
  agent: { args: ["sid"], flags: ["status"] },
  waitlist: { args: [], flags: ["limit", "cursor"] },
  disputes: { args: [], flags: ["status", "limit", "cursor"] },
  decide: { args: ["dispute id"], flags: ["outcome", "note"] },
  "reseal-webhooks": { args: [], flags: ["limit"] },
  credibility: { args: [], flags: [] },
  "credibility-run": { args: [], flags: ["force", "limit"] },
  anchors: { args: [], flags: ["set"] },
  archive: { args: [], flags: ["limit", "once"] },
  "backfill-status-lists": { args: [], flags: ["limit"] },
  "migrate-objects": { args: [], flags: ["limit"] },
  "reconcile-log": { args: [], flags: ["limit"] },
  erase: { args: ["sid"], flags: ["transaction"] },
};

/** The comment this file opens with. */
export function usage() {
  const lines = readFileSync(new URL(import.meta.url), "utf8").split("\n");
  const end = lines.findIndex((l) => !l.startsWith("//"));
  return lines
    .slice(0, end)
    .map((l) => l.slice(3))
    .join("\n");
}

// Values are checked here, before anything is sent: a typo must never reach the service as
// something else (`--verified yes` used to un-verify an operator).

function id(value: string, what: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) throw new UsageError(`The ${what} must be a positive whole number, not "${value}"`);
  return Number(value);
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}, not "${value}"`);
  return value as T;
}

function limitOrNone(flag: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "none") return null;
  if (!/^[1-9][0-9]{0,9}$/.test(value)) throw new UsageError(`--${flag} must be a positive whole number, or none to drop the custom limit; not "${value}"`);
  return Number(value);
}

function page(values: Partial<Record<Flag, string | boolean>>) {
  const limit = values.limit as string | undefined;
  if (limit !== undefined && !(/^[0-9]{1,3}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_PAGE)) {
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_PAGE}, not "${limit}"`);
  }
  return { limit: limit === undefined ? undefined : Number(limit), cursor: values.cursor as string | undefined };
}

export interface Invocation {
  command: string;
  args: string[];
  values: Partial<Record<Flag, string | boolean>>;
  url: string;
}

/** The command line, checked: which command, its arguments and options. Throws UsageError. */
export function parseCommandLine(argv: string[], env: Record<string, string | undefined> = process.env): Invocation | "help" {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return "help";
  const [command, ...args] = positionals;
  if (!command) throw new UsageError("Name a command");
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`Unknown command "${command}"`);
  if (args.length !== spec.args.length) {
    const wanted = spec.args.length === 0 ? "no arguments" : spec.args.map((a) => `<${a}>`).join(" ");
    throw new UsageError(`${command} takes ${wanted}; got ${args.length === 0 ? "none" : args.map((a) => `"${a}"`).join(" ")}`);
  }
  const given = Object.keys(values).filter((k) => k !== "url" && k !== "help") as Flag[];
  const foreign = given.find((flag) => !spec.flags.includes(flag));
  if (foreign) throw new UsageError(`${command} takes no --${foreign}${spec.flags.length ? ` (it takes ${spec.flags.map((f) => `--${f}`).join(", ")})` : ""}`);
  const url = values.url ?? env.TRUST_API_URL ?? DEFAULT_URL;
  let parsedUrl: URL | null = null;
  try {
    parsedUrl = new URL(url);
  } catch {
    // refused below
  }
  if (!parsedUrl || !["http:", "https:"].includes(parsedUrl.protocol)) throw new UsageError(`--url must be an http(s) URL such as ${DEFAULT_URL}, not "${url}"`);
  // The admin token goes with every request: in the clear only to this machine.
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(parsedUrl.hostname) || parsedUrl.hostname.endsWith(".localhost");
  if (parsedUrl.protocol === "http:" && !loopback) throw new UsageError(`--url must use https for another host (the admin token would travel in the clear), not "${url}"`);
  return { command, args, values, url };
}

/** ADMIN_TOKEN from the environment, else from the project's .dev.vars (local development). */
export function adminToken(env: Record<string, string | undefined> = process.env): string {
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  if (existsSync(".dev.vars")) {
    const line = readFileSync(".dev.vars", "utf8").split("\n").find((l) => l.startsWith("ADMIN_TOKEN="));
    if (line) return line.slice("ADMIN_TOKEN=".length).trim();
  }
  throw new ServiceError("No admin token: set ADMIN_TOKEN, or run from the project folder with a .dev.vars (npm start makes one)");
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The answer's data, or the service's refusal as a ServiceError. */
function ok<T>(what: string, answer: Answer<T>): T {
  if (answer.data !== undefined) return answer.data;
  const body = answer.error as { error?: unknown } | undefined;
  const message = typeof body?.error === "string" ? body.error : JSON.stringify(answer.error ?? null);
  throw new ServiceError(`${what}: the service answered ${answer.response.status}: ${message}`);
}

type Row = Record<string, unknown>;
function table(rows: Row[], empty: string, nextCursor: string | null, print: (line: string) => void) {
  if (rows.length === 0) print(empty);
  else console.table(rows);
  if (nextCursor) print(`More: add --cursor ${nextCursor}`);
}

/**
 * Runs one command against the service, printing with `print`. Every value is checked before
 * `connect` is called, so a bad one is refused (UsageError) without a token or a request.
 */
export async function run(
  inv: Invocation,
  connect: () => TrustClient,
  print: (line: string) => void = console.log,
  // Progress goes to standard error, so standard output stays the command's answer.
  { now = Date.now, report = console.error }: { now?: () => number; report?: (line: string) => void } = {},
): Promise<void> {
  const { command, args, values } = inv;
  const bar = (label: string, unit: string, total: number | null) => progress(label, { unit, total, print: report, now });
  const str = (flag: Flag) => values[flag] as string | undefined;
  // With no anchor named, no reporter earns credibility and nothing can be clear: said on standard error.
  const warnAnchors = (anchors: number) => {
    if (anchors === 0) report("warning: no anchor is named (npm run admin -- anchors --set ID,...): no reporter earns credibility and nothing can be clear");
  };
  switch (command) {
    case "applications": {
      const status = str("status") === undefined ? undefined : oneOf("status", str("status")!, APPLICATION_STATUSES);
      const query = { status, ...page(values) };
      const { applications, next_cursor } = ok("applications", await connect().GET("/admin/applications", { params: { query } }));
      return table(applications.map(({ id, name, email, company, status, created_at }) => ({ id, name, email, company, status, created_at })), "No applications.", next_cursor, print);
    }
    case "approve": {
      const path = { id: id(args[0], "application id") };
      const approved = ok("approve", await connect().POST("/admin/applications/{id}/approve", { params: { path } }));
      if (approved.api_key) print(`API key (shown once, hand it to the operator securely):\n${approved.api_key}\n`);
      else print(`The API key was e-mailed to ${approved.operator.email}.`);
      return print(JSON.stringify(approved.operator, null, 2));
    }
    case "reject": {
      const path = { id: id(args[0], "application id") };
      const rejected = ok("reject", await connect().POST("/admin/applications/{id}/reject", { params: { path } }));
      return print(JSON.stringify(rejected.application, null, 2));
    }
    case "operators": {
      const query = page(values);
      const { operators, next_cursor } = ok("operators", await connect().GET("/admin/operators", { params: { query } }));
      const rows = operators.map((o) => ({
        id: o.id,
        name: o.name,
        email: o.email,
        tier: o.tier,
        verified: o.verified,
        per_minute: o.rate_limit_per_minute ?? "tier",
        per_day: o.rate_limit_per_day ?? "tier",
        created_at: o.created_at,
      }));
      return table(rows, "No operators.", next_cursor, print);
    }
    case "operator": {
      const verified = str("verified");
      const path = { id: id(args[0], "operator id") };
      const body = {
        tier: str("tier") === undefined ? undefined : oneOf("tier", str("tier")!, TIER_NAMES),
        verified: verified === undefined ? undefined : oneOf("verified", verified, ["true", "false"]) === "true",
        rate_limit_per_minute: limitOrNone("per-minute", str("per-minute")),
        rate_limit_per_day: limitOrNone("per-day", str("per-day")),
      };
      const updated = ok("operator", await connect().POST("/admin/operators/{id}", { params: { path }, body }));
      return print(JSON.stringify(updated.operator, null, 2));
    }
    case "keys": {
      const operatorId = id(args[0], "operator id");
      const query = page(values);
      const { keys, next_cursor } = ok("keys", await connect().GET("/admin/operators/{id}/keys", { params: { path: { id: operatorId }, query } }));
      const rows = keys.map((k) => ({ id: k.id, prefix: k.prefix, status: k.status, scopes: k.scopes.join(" "), created_at: k.created_at, ends: k.revoked_at ?? k.expires_at }));
      return table(rows, `Operator ${operatorId} has no keys.`, next_cursor, print);
    }
    case "revoke-key": {
      const operatorId = id(args[0], "operator id");
      const keyId = id(args[1], "key id");
      const done = ok("revoke-key", await connect().DELETE("/admin/operators/{id}/keys/{keyId}", { params: { path: { id: operatorId, keyId } } }));
      print(`Revoked key ${done.key.id} (${done.key.prefix}...) of operator ${operatorId}; ${done.valid_keys} valid key(s) left.`);
      if (done.valid_keys === 0) print(`The operator can no longer authenticate: issue a key with \`npm run admin -- recover ${operatorId}\`.`);
      return;
    }
    case "recover": {
      const path = { id: id(args[0], "operator id") };
      const body = { revoke_existing: values["revoke-existing"] === true };
      const issued = ok("recover", await connect().POST("/admin/operators/{id}/keys", { params: { path }, body }));
      if (issued.api_key) print(`Recovery key (shown once, hand it to the operator securely):\n${issued.api_key}\n`);
      else print("The recovery key was e-mailed to the operator.");
      return print(JSON.stringify({ operator_id: issued.operator_id, key_prefix: issued.key_prefix, revoked: issued.revoked, delivery: issued.delivery }, null, 2));
    }
    case "agent": {
      if (!SID_PATTERN.test(args[0])) throw new UsageError(`The sid must look like SID-0x followed by 16 hex characters, not "${args[0]}"`);
      if (str("status") === undefined) throw new UsageError(`agent needs --status ${AGENT_STATUSES.join("|")}`);
      const status = oneOf("status", str("status")!, AGENT_STATUSES);
      return print(JSON.stringify(ok("agent", await connect().POST("/admin/agents/{sid}", { params: { path: { sid: args[0] } }, body: { status } })), null, 2));
    }
    case "waitlist": {
      const query = page(values);
      const { waitlist, next_cursor } = ok("waitlist", await connect().GET("/admin/waitlist", { params: { query } }));
      return table(waitlist, "The waitlist is empty.", next_cursor, print);
    }
    case "disputes": {
      const status = str("status") === undefined ? undefined : oneOf("status", str("status")!, DISPUTE_STATUSES);
      const query = { status, ...page(values) };
      const { disputes, next_cursor } = ok("disputes", await connect().GET("/admin/disputes", { params: { query } }));
      const rows = disputes.map((d) => ({ id: d.id, sid: d.sid, status: d.status, reason: d.reason, opened_at: d.opened_at, respond_by: d.respond_by, outcome: d.outcome }));
      return table(rows, "No disputes.", next_cursor, print);
    }
    case "decide": {
      if (str("outcome") === undefined) throw new UsageError(`decide needs --outcome ${DISPUTE_DECISIONS.join("|")}`);
      const outcome = oneOf("outcome", str("outcome")!, DISPUTE_DECISIONS);
      const path = { id: id(args[0], "dispute id") };
      const body = { outcome, note: str("note") };
      const decided = ok("decide", await connect().POST("/admin/disputes/{id}/decide", { params: { path }, body }));
      return print(JSON.stringify(decided.dispute, null, 2));
    }
    case "credibility": {
      const job = ok("credibility", await connect().GET("/admin/model/credibility"));
      warnAnchors(job.anchors);
      return print(JSON.stringify(job, null, 2));
    }
    case "credibility-run": {
      // Call after call, each reading up to --limit pages, until the run publishes (or there is none to do).
      const pages = values.limit === undefined ? undefined : Number(values.limit as string);
      if (pages !== undefined && !(Number.isInteger(pages) && pages >= 1 && pages <= 1000)) throw new UsageError("--limit must be a whole number of pages from 1 to 1000");
      const client = connect();
      let force = values.force === true;
      // The total is an estimate: the pairs of the last snapshot.
      const read = bar("credibility run", "pairs", null);
      let reading = false;
      for (;;) {
        const job = ok("credibility-run", await client.POST("/admin/model/credibility/run", { body: { force, ...(pages === undefined ? {} : { max_pages: pages }) } }));
        force = false;
        if (job.status === "in_progress") {
          read.update(job.run!.pairs, reading ? undefined : (job.snapshot?.pairs ?? null));
          reading = true;
          continue;
        }
        if (job.status === "busy") throw new ServiceError("another run of the job moved first: try again shortly");
        if (job.status === "too_large" || job.status === "failed") throw new ServiceError(`${job.health.problem ?? job.status}: the snapshot in force stays (docs/operations.md)`);
        warnAnchors(job.anchors);
        if (reading && job.status === "published") {
          read.update(job.snapshot!.pairs);
          read.done(`snapshot ${job.snapshot!.id} published`);
        }
        return print(JSON.stringify(job, null, 2));
      }
    }
    case "anchors": {
      const set = values.set as string | undefined;
      const ids = set === undefined || set === "" ? [] : set.split(",").map((x) => Number(x.trim()));
      if (ids.some((id) => !(Number.isInteger(id) && id >= 1))) throw new UsageError("--set takes operator ids separated by commas");
      const client = connect();
      const anchors = set === undefined ? ok("anchors", await client.GET("/admin/model/anchors")) : ok("anchors", await client.PUT("/admin/model/anchors", { body: { operators: ids } }));
      warnAnchors(anchors.operators.length);
      return print(JSON.stringify(anchors, null, 2));
    }
    case "archive": {
      const limit = values.limit === undefined ? undefined : Number(values.limit as string);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 500)) throw new UsageError("--limit must be a whole number of agents from 1 to 500");
      // Pass after pass (each bounded, each going on where the last stopped) until the directory's end.
      const client = connect();
      const moved = { agents: 0, entries: 0, pages: 0, bytes: 0, failed: 0 };
      const visited = bar("archive", "agents", null);
      let pass;
      do {
        pass = ok("archive", await client.POST("/admin/history/archive", { body: limit === undefined ? {} : { limit } }));
        for (const key of Object.keys(moved) as (keyof typeof moved)[]) moved[key] += pass[key];
        visited.update(pass.progress.done, pass.progress.total);
      } while (!pass.complete && values.once !== true);
      visited.done(`${moved.entries} entries moved in ${moved.pages} archive pages, ${moved.failed} agents failed`);
      return print(JSON.stringify({ cutoff: pass.cutoff, ...moved, complete: pass.complete }, null, 2));
    }
    case "erase": {
      if (!SID_PATTERN.test(args[0])) throw new UsageError(`The sid must look like SID-0x followed by 16 hex characters, not "${args[0]}"`);
      const transaction = values.transaction === undefined ? undefined : id(values.transaction as string, "transaction id");
      const body = { sid: args[0], ...(transaction === undefined ? {} : { transaction_id: transaction }) };
      return print(JSON.stringify(ok("erase", await connect().POST("/admin/history/erase", { body })), null, 2));
    }
    case "migrate-objects": {
      // Every agent's object, a page at a time: each moves what its storage holds of the earlier
      // contract to its shard. Run it again until it moves nothing and fails none.
      const limit = values.limit === undefined ? undefined : Number(values.limit as string);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 200)) throw new UsageError("--limit must be a whole number of agents from 1 to 200");
      const client = connect();
      const sweep = bar("migrate-objects", "agents", null);
      const total = { visited: 0, moved: 0, failed: [] as string[] };
      let after = 0;
      for (;;) {
        const done = ok("migrate-objects", await client.POST("/admin/migrate-objects", { body: { after, ...(limit === undefined ? {} : { limit }) } }));
        total.visited += done.visited;
        total.moved += done.moved;
        total.failed.push(...done.failed);
        sweep.update(total.visited, done.total);
        if (done.next === null) break;
        after = done.next;
      }
      sweep.done(`${total.moved} moved to the record's contract, ${total.failed.length} failed`);
      if (total.failed.length > 0) print(`Failed (run the sweep again; docs/operations.md): ${total.failed.slice(0, 20).join(", ")}${total.failed.length > 20 ? ", …" : ""}`);
      return print(JSON.stringify({ visited: total.visited, moved: total.moved, failed: total.failed.length }, null, 2));
    }
    case "reconcile-log": {
      // The daily reconciliation, every page of it now: agents whose log lags their shard send again.
      const limit = values.limit === undefined ? undefined : Number(values.limit as string);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 500)) throw new UsageError("--limit must be a whole number of agents from 1 to 500");
      const client = connect();
      const pass = bar("reconcile-log", "agents", null);
      const total = { visited: 0, republished: 0, entries: 0, failed: 0 };
      let after = 0;
      for (;;) {
        const done = ok("reconcile-log", await client.POST("/admin/log/reconcile", { body: { after, ...(limit === undefined ? {} : { limit }) } }));
        for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += done[key];
        pass.update(total.visited, done.total);
        if (done.complete) break;
        after = done.next;
      }
      pass.done(`${total.republished} agents sent ${total.entries} entries again, ${total.failed} failed`);
      return print(JSON.stringify(total, null, 2));
    }
    case "backfill-status-lists": {
      const { limit } = page(values);
      const client = connect();
      const seen = { listed: 0, skipped: 0 };
      // The total: the unlisted agents the first page counted (itself and those after it).
      const listing = bar("status-list backfill", "agents", null);
      let cursor: string | undefined;
      do {
        const done = ok("backfill-status-lists", await client.POST("/admin/status-lists/backfill", { body: { limit, cursor } }));
        const first = cursor === undefined;
        seen.listed += done.listed;
        seen.skipped += done.skipped;
        listing.update(seen.listed + seen.skipped, first ? done.listed + done.skipped + done.remaining : undefined);
        cursor = done.next_cursor ?? undefined;
      } while (cursor);
      listing.done(`${seen.listed} listed, ${seen.skipped} skipped`);
      if (seen.skipped > 0) print("Skipped agents (their object or the lists could not be reached) are listed by the next run, or on their first attestation.");
      return;
    }
    case "reseal-webhooks": {
      // Every page, from the first: a page only ever seals again what the previous key opens.
      const { limit } = page(values);
      const client = connect();
      const total = { checked: 0, resealed: 0, unreadable: 0 };
      const sealing = bar("reseal-webhooks", "webhook secrets", null);
      let cursor: string | undefined;
      do {
        const done = ok("reseal-webhooks", await client.POST("/admin/webhooks/reseal", { params: { query: { limit, cursor } } }));
        total.checked += done.checked;
        total.resealed += done.resealed;
        total.unreadable += done.unreadable;
        sealing.update(total.checked);
        cursor = done.next_cursor ?? undefined;
      } while (cursor);
      print(`Checked ${total.checked} webhook secret(s): ${total.resealed} sealed again under WEBHOOK_SECRET_KEY, ${total.unreadable} unreadable.`);
      if (total.unreadable > 0) print("Unreadable secrets open under neither key: their operators must delete and re-create those webhooks.");
      else print("No secret needs WEBHOOK_SECRET_KEY_PREVIOUS any more: it can be deleted.");
      return;
    }
  }
}

/** The whole CLI: its exit status. */
export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  let inv: Invocation | "help";
  try {
    inv = parseCommandLine(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\nRun \`npm run admin -- --help\` for the commands and their options.`);
    return 2;
  }
  if (inv === "help") {
    console.log(usage());
    return 0;
  }
  try {
    const url = inv.url;
    await run(inv, () => createTrustClient({ baseUrl: url, token: adminToken(env) }));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\nRun \`npm run admin -- --help\` for the commands and their options.`);
      return 2;
    }
    if (err instanceof ServiceError) {
      console.error(err.message);
      return 1;
    }
    // fetch() fails with a TypeError whose cause names the network error (ECONNREFUSED, ENOTFOUND, ...).
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (err instanceof TypeError && cause) {
      console.error(
        `Could not reach the service at ${inv.url} (${cause.code ?? cause.message}).\n` +
          `Is it running (npm start)? Pass --url <service URL> or set TRUST_API_URL.`,
      );
      return 1;
    }
    throw err;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await main(process.argv.slice(2));
}
