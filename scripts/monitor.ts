// `npm run monitor -- --url <service> --log <n> [--state <file>] [--interval <s>] [--once] [--key <verifier key>]...
//    [--sid <SID> --owner-key <API key>]`
//
// Follows a transparency log's checkpoints: verifies each one's signature with the pinned keys and
// its consistency with the last one seen (a proof computed from the log's tiles), and keeps the
// last one in the state file (default: ./log-monitor-<n>.json). The keys are the --key arguments,
// else those of the state file, else the service's GET /log/keys at the first run (printed: check
// them out of band, or pin your own with --key).
//
// Owner mode (--sid and --owner-key, the owner's API key with scope agents:read; the agent's log must
// be --log): after each consistent checkpoint it reads the owner's keys (GET /agents/{sid}/log-keys)
// and the entries' times (GET /agents/{sid}/entries), finds the agent's leaves in the checkpoint's
// tree, and prints how many of its entries from the cut-over on are in the log and which are not. An
// entry up to the keys' `seq` older than the log's maximum delay (5 minutes) when the checkpoint was
// fetched, and not in the tree, is missing.
//
// Exit status: 0 all checks held (--once) | 1 could not check (unreachable, bad arguments) |
// 2 fork: two checkpoints of one size with different roots, or no consistency proof between two |
// 3 shrink: a tree older than one already seen (its prefix: a rollback or a stale view, not newer) |
// 4 a checkpoint whose signature does not verify with the pinned keys, or of another origin |
// 5 (owner mode) an entry of the agent missing from the log longer than the maximum delay.
// On 2 and 3 both signed checkpoints are printed: together they are the evidence.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createLogClient } from "../clients/typescript/log";
import { exitCode, MONITOR_EXIT, monitorStep, ownerCheck, type MonitorState, type Verdict } from "../clients/typescript/log-monitor";
import type { ListedEntry, OwnerLogKeys } from "../clients/typescript/verify";
import type { Checkpoint } from "../src/domain/log/index";

const USAGE =
  "usage: npm run monitor -- --url <service> --log <n> [--state <file>] [--interval <seconds>] [--once] [--key <verifier key>]... [--sid <SID> --owner-key <API key>]";

interface StateFile extends MonitorState {
  url: string;
  log: number;
  checked_at: string;
}

function fail(message: string, code: number = MONITOR_EXIT.unreachable): never {
  console.error(message);
  process.exit(code);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        url: { type: "string" },
        log: { type: "string" },
        state: { type: "string" },
        interval: { type: "string" },
        once: { type: "boolean" },
        key: { type: "string", multiple: true },
        sid: { type: "string" },
        "owner-key": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!values.url || !/^https?:\/\//.test(values.url)) fail(`--url must be the service's http(s) address\n${USAGE}`);
if (!values.log || !/^(0|[1-9][0-9]*)$/.test(values.log)) fail(`--log must be a log number\n${USAGE}`);
const interval = Number(values.interval ?? "60");
if (!(interval >= 1)) fail("--interval is in seconds, at least 1");
if (!values.sid !== !values["owner-key"]) fail(`--sid and --owner-key go together\n${USAGE}`);
const url = values.url.replace(/\/+$/, "");
const log = Number(values.log);
const statePath = values.state ?? `log-monitor-${log}.json`;
const client = createLogClient({ baseUrl: url, log });

function say(verdict: Verdict, origin: string) {
  const at = new Date().toISOString();
  switch (verdict.kind) {
    case "first":
      return console.log(`${at} ${origin}: first checkpoint, ${verdict.size} leaves`);
    case "same":
      return console.log(`${at} ${origin}: unchanged, ${verdict.size} leaves`);
    case "newer":
      return console.log(`${at} ${origin}: ${verdict.from} → ${verdict.to} leaves, consistent`);
    case "bad-signature":
      return console.error(`${at} ${origin}: ALERT bad checkpoint: ${verdict.reason}`);
    case "shrink":
    case "fork": {
      const what =
        verdict.kind === "fork"
          ? `FORK: the checkpoint of ${verdict.seen} leaves is not consistent with the one of ${verdict.last} seen before`
          : `SHRINK: a checkpoint of ${verdict.seen} leaves after one of ${verdict.last} (its prefix: the log shows an older tree than it showed before)`;
      return console.error(`${at} ${origin}: ALERT ${what}\n--- last seen ---\n${verdict.evidence[0]}--- now ---\n${verdict.evidence[1]}`);
    }
  }
}

/** GET on the service with the owner's key; a failure throws (the step could not check). */
async function ownerGet<T>(path: string): Promise<T> {
  const res = await fetch(`${url}${path}`, { headers: { accept: "application/json", authorization: `Bearer ${values["owner-key"]}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${(await res.text()).slice(0, 200)}`);
  return (await res.json()) as T;
}

/** The owner's check against the checkpoint kept (verified by the step), fetched at `at`: the exit code it calls for. */
async function checkOwner(state: StateFile, checkpoint: Checkpoint, at: number): Promise<number> {
  const sid = encodeURIComponent(values.sid!);
  // The keys before the listing: every entry up to their seq is listed.
  const keys = await ownerGet<OwnerLogKeys>(`/agents/${sid}/log-keys`);
  if (keys.log.log !== log) fail(`${values.sid} is in log ${keys.log.log}, not ${log}`);
  const times = new Map<number, number>();
  let cursor: string | null = null;
  do {
    const page: { entries: ListedEntry[]; next_cursor: string | null } = await ownerGet(`/agents/${sid}/entries?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    for (const e of page.entries) times.set(e.n, Date.parse((JSON.parse(e.entry) as { at: string }).at));
    cursor = page.next_cursor;
  } while (cursor);
  const check = await ownerCheck(client, checkpoint, keys, times, at);
  const where = `${new Date().toISOString()} ${state.origin}: ${keys.sid}`;
  const counts = `${check.found} of ${check.entries} entries (from the cut-over on) in the tree of ${checkpoint.size} leaves`;
  const pending = check.pending.length ? `, not yet (within 5 minutes): ${check.pending.join(", ")}` : "";
  if (check.missing.length === 0) {
    console.log(`${where}: ${counts}${pending}`);
    return MONITOR_EXIT.ok;
  }
  console.error(`${where}: ALERT ${counts}; MISSING past the maximum delay: ${check.missing.join(", ")}${pending}`);
  return MONITOR_EXIT.missing;
}

async function initialState(): Promise<StateFile> {
  if (existsSync(statePath)) {
    const saved = JSON.parse(readFileSync(statePath, "utf8")) as StateFile;
    if (saved.url !== url || saved.log !== log) fail(`${statePath} is the state of ${saved.url} log ${saved.log}, not of ${url} log ${log}`);
    return values.key ? { ...saved, keys: values.key } : saved;
  }
  const info = await client.keys();
  if (!values.key) console.log(`Pinned the keys the service publishes for ${info.origin} (check them out of band):\n  ${info.verifier_keys.join("\n  ")}`);
  return { url, log, origin: info.origin, keys: values.key ?? info.verifier_keys, checkpoint: null, checked_at: new Date().toISOString() };
}

function save(state: StateFile) {
  // Written aside and renamed: a crash never leaves half a state file.
  writeFileSync(`${statePath}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${statePath}.tmp`, statePath);
}

let state: StateFile;
try {
  state = await initialState();
} catch (err) {
  fail(`could not reach ${url}: ${(err as Error).message}`);
}
for (;;) {
  try {
    const fetchedAt = Date.now();
    const { verdict, state: next, kept } = await monitorStep(client, state);
    say(verdict, state.origin);
    state = { ...state, ...next, checked_at: new Date().toISOString() };
    save(state);
    const code = exitCode(verdict);
    if (code !== MONITOR_EXIT.ok) process.exit(code);
    if (values.sid && kept) {
      const owner = await checkOwner(state, kept, fetchedAt);
      if (owner !== MONITOR_EXIT.ok) process.exit(owner);
    }
  } catch (err) {
    console.error(`${new Date().toISOString()} ${state.origin}: could not check: ${(err as Error).message}`);
    if (values.once) process.exit(MONITOR_EXIT.unreachable);
  }
  if (values.once) process.exit(MONITOR_EXIT.ok);
  await new Promise((resolve) => setTimeout(resolve, interval * 1000));
}
