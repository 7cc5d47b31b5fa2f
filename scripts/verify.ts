// `npm run verify -- --url <service> --sid <SID> [--key <owner's key>] [--promises <file>] [--checkpoint <file>] [--log-key <verifier key>]...`
//
// Verifies an agent's history (clients/typescript/verify.ts, verifyAgent): with the owner's key, its
// chained entries (GET /agents/{sid}/entries), each entry's leaf in the agent's transparency log
// under a checkpoint signed by the log's key, and the replay of the entries to the served score;
// with --promises, a file of the `log_promise`s a reporter kept (one compact JWS a line, or a JSON
// array), that each promised leaf is in the log. --checkpoint names a file holding the last
// checkpoint you verified (a signed note): the current one must extend it; it is rewritten with the
// current one when every check held. --log-key pins the log's verifier keys (else GET /log/keys).
//
// Exit status: 0 every check held | 1 could not check (unreachable, refused, bad arguments) |
// 2 the chain is broken (an entry dropped, altered or reordered) | 3 the log disagrees with the
// entries (a leaf missing, not included, or committing to another entry or score) | 4 the checkpoint
// is not signed by the log's key | 5 the entries do not replay to the served score | 6 the checkpoint
// is older than (stale) or forks from the last one seen | 7 a promised report is missing or altered.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { VERIFY_EXIT, verifyAgent, verifyExitCode } from "../clients/typescript/verify";

const USAGE = "usage: npm run verify -- --url <service> --sid <SID> [--key <owner's API key>] [--promises <file>] [--checkpoint <file>] [--log-key <verifier key>]...";

function fail(message: string): never {
  console.error(message);
  process.exit(VERIFY_EXIT.unreachable);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        url: { type: "string" },
        sid: { type: "string" },
        key: { type: "string" },
        promises: { type: "string" },
        checkpoint: { type: "string" },
        "log-key": { type: "string", multiple: true },
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
if (!values.url || !values.sid || (!values.key && !values.promises)) fail(`--url, --sid and --key or --promises are required\n${USAGE}`);

function readPromises(file: string): string[] {
  const text = readFileSync(file, "utf8").trim();
  return text.startsWith("[") ? (JSON.parse(text) as string[]) : text.split(/\s+/).filter(Boolean);
}

const lastCheckpoint = values.checkpoint && existsSync(values.checkpoint) ? readFileSync(values.checkpoint, "utf8") : undefined;
let report;
try {
  report = await verifyAgent({
    baseUrl: values.url,
    sid: values.sid,
    key: values.key,
    promises: values.promises ? readPromises(values.promises) : undefined,
    verifierKeys: values["log-key"],
    lastCheckpoint,
  });
} catch (err) {
  fail(`could not verify: ${(err as Error).message}`);
}
console.log(JSON.stringify(report, null, 2));
const code = verifyExitCode(report);
// The checkpoint just verified becomes the one the next run must see extended.
if (code === VERIFY_EXIT.ok && values.checkpoint && report.log) writeFileSync(values.checkpoint, report.log.checkpoint);
process.exit(code);
