// The Worker as `wrangler deploy` bundles it: within its budget (600 KiB gzipped), and each module
// wrangler.toml's [alias] replaces is imported only by the package its shim was made for
// (shims/README.md), so an alias can never swap a module of another package.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { StatusList } from "@sd-jwt/jwt-status-list";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deflate, inflate } from "../../shims/pako.mjs";

const execute = promisify(execFile);
const BUDGET_GZIP_BYTES = 600 * 1024;

const ALIASED: Record<string, string> = {
  "../locales/index.js": "node_modules/zod/",
  "../validation/ajv-provider.js": "node_modules/@modelcontextprotocol/sdk/",
  pako: "node_modules/@sd-jwt/jwt-status-list/",
};

interface Metafile {
  inputs: Record<string, { imports: { path: string; original?: string }[] }>;
  outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
}

let dir: string;
let bundle: Buffer;
let meta: Metafile;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "trust-bundle-"));
  const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true", NO_COLOR: "1" };
  await execute(join("node_modules", ".bin", "wrangler"), ["deploy", "--dry-run", "--outdir", join(dir, "out"), "--metafile", join(dir, "meta.json")], { env });
  bundle = readFileSync(join(dir, "out", "index.js"));
  meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")) as Metafile;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the Worker's bundle", () => {
  it(`stays within ${BUDGET_GZIP_BYTES / 1024} KiB gzipped`, () => {
    const gzipped = gzipSync(bundle).length;
    console.log(`bundle: ${(bundle.length / 1024).toFixed(1)} KiB raw, ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });

  it("takes each aliased import only from the package its shim replaces, and ships none of what they replace", () => {
    const importers = Object.entries(meta.inputs).flatMap(([file, input]) =>
      input.imports.filter((i) => i.original !== undefined && i.original in ALIASED).map((i) => ({ file, original: i.original! })),
    );
    expect(importers.length).toBeGreaterThanOrEqual(3);
    for (const { file, original } of importers) expect(file, original).toContain(ALIASED[original]);
    const shipped = Object.keys(Object.values(meta.outputs).find((o) => Object.keys(o.inputs).length > 0)!.inputs);
    expect(shipped.filter((f) => /node_modules\/(ajv|ajv-formats|fast-uri|pako)\//.test(f))).toEqual([]);
    expect(shipped.filter((f) => f.includes("zod/v4/locales/"))).toEqual(["node_modules/zod/v4/locales/en.js"]);
  });
});

describe("shims/pako.mjs", () => {
  it("reads and writes what @sd-jwt/jwt-status-list (with the real pako) writes and reads", () => {
    const list = new StatusList([0, 1, 2, 3, 0, 0, 2, 1], 2);
    const theirs = list.compressStatusList();
    const bytes = Uint8Array.from(atob(theirs.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const ours = deflate(inflate(bytes), { level: 9 });
    const back = StatusList.decompressStatusList(btoa(String.fromCharCode(...ours)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""), 2);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => back.getStatus(i))).toEqual([0, 1, 2, 3, 0, 0, 2, 1]);
  });
});
