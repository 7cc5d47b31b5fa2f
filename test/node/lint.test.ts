// The served OpenAPI documents, linted as a user would: Redocly CLI with redocly.yaml and Spectral
// with .spectral.yaml, offline (no telemetry, no update check).
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { service } from "./service";

const run = promisify(execFile);
const bin = (name: string) => join(process.cwd(), "node_modules", ".bin", name);
const QUIET = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_NOTIFICATIONS: "true", NO_COLOR: "1" };

/** Runs a linter that exits non-zero on problems: its output either way. */
async function lint(command: string, args: string[]) {
  try {
    return (await run(command, args, { env: QUIET, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    return (err as { stdout: string }).stdout;
  }
}

describe.each(["/openapi.json", "/openapi-b.json"])("%s", (path) => {
  it("passes Redocly CLI (recommended-strict and more) without a problem", async () => {
    const out = JSON.parse(await lint(bin("redocly"), ["lint", `${service.url}${path}`, "--config", "redocly.yaml", "--format", "json"]));
    const problems = (out.problems as { ruleId: string; severity: string; message: string }[]).map((p) => `${p.severity} ${p.ruleId}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(out.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("passes Spectral's spectral:oas without a problem", async () => {
    const out = JSON.parse(await lint(bin("spectral"), ["lint", `${service.url}${path}`, "--ruleset", ".spectral.yaml", "--format", "json", "--quiet"]));
    const problems = (out as { code: string; severity: number; message: string }[]).map((p) => `${p.severity} ${p.code}: ${p.message}`);
    expect(problems).toEqual([]);
  });
});
