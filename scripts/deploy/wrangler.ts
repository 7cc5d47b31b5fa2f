// Running wrangler for the deploy, and reading what it prints. JSON where wrangler offers it
// (`whoami --json`, `d1 list --json`, `d1 execute --json`, `secret list`, JSON by default); `queues
// list` and `r2 bucket list` print only for people: a table (cli-table3) and "label: value" lines.
import { spawn } from "node:child_process";
import { stripVTControlCharacters } from "node:util";

export interface Output {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs one wrangler command; `echo`: its output also goes to ours as it comes (long commands). */
export type Wrangler = (args: string[], options?: { echo?: boolean }) => Promise<Output>;

/**
 * wrangler at `command`, run in `cwd` with no standard input: it never prompts (a confirmation it
 * would ask takes its non-interactive answer), as under CI.
 */
export function wranglerAt(command: string, cwd: string, env: NodeJS.ProcessEnv): Wrangler {
  return (args, options = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (text: string) => {
        stdout += text;
        if (options.echo) process.stdout.write(text);
      });
      child.stderr.setEncoding("utf8").on("data", (text: string) => {
        stderr += text;
        if (options.echo) process.stderr.write(text);
      });
      child.on("error", (err) => reject(new Error(`cannot run wrangler (${command}): ${err.message}; run npm install first`)));
      child.on("close", (code) => resolve({ status: code ?? 1, stdout, stderr }));
    });
}

/** The JSON a command printed: from its first line that opens an array or an object (a notice may come first). */
export function jsonOf(stdout: string): unknown {
  const start = stripVTControlCharacters(stdout).search(/^\s*[[{]/m);
  if (start < 0) throw new Error(`expected JSON from wrangler, got: ${stdout.slice(0, 300)}`);
  return JSON.parse(stripVTControlCharacters(stdout).slice(start));
}

/** The rows of the first table wrangler printed (cli-table3: "│ a │ b │" lines, the first the header). */
export function tableRows(stdout: string): Record<string, string>[] {
  const lines = stripVTControlCharacters(stdout)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("│"));
  const cells = (line: string) => line.slice(1, line.lastIndexOf("│")).split("│").map((c) => c.trim());
  if (lines.length === 0) return [];
  const head = cells(lines[0]);
  return lines.slice(1).map((line) => Object.fromEntries(cells(line).map((value, i) => [head[i], value])));
}

/** The values of every "label: value" line with this label (`r2 bucket list`: "name:  trust-log"). */
export const labelled = (stdout: string, label: string): string[] =>
  [...stripVTControlCharacters(stdout).matchAll(new RegExp(`^\\s*${label}:\\s+(\\S+)\\s*$`, "gm"))].map((m) => m[1]);

/** What a failed command said, for a message of ours. */
export const said = (output: Output): string => stripVTControlCharacters(`${output.stderr}\n${output.stdout}`).trim();
