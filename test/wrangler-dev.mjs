// The service under `wrangler dev` for the Node-side tests (test/browser, test/node): free ports and
// throw-away state (its own persist directory with the D1 migrations applied, its own dev registry,
// a random ADMIN_TOKEN), so a developer's `npm start` and local data are never touched.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrateLocally } from "../scripts/d1.mjs";
import { secretVarArgs } from "../scripts/local-secrets.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "node_modules", ".bin");
const wrangler = join(bin, process.platform === "win32" ? "wrangler.cmd" : "wrangler");
const HOST = "127.0.0.1";
const START_TIMEOUT_MS = 90_000;

/** A port nothing listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the service; resolves to `{url, adminToken, stop}` once it answers. `label` names its
 * secrets; `script` runs another entry than wrangler.toml's main (a test entry around it), `vars`
 * sets more variables (e.g. `{ STATUS_LIST_REBUILD_S: "1" }`).
 */
export async function startService(label, { script, vars = {} } = {}) {
  const temp = mkdtempSync(join(tmpdir(), `trust-${label}-`));
  const persistTo = join(temp, "state");
  const adminToken = randomBytes(24).toString("hex");
  const env = {
    ...process.env,
    // wrangler and the Node 22 shim from node_modules/.bin, whatever `node` runs vitest.
    PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_REGISTRY_PATH: join(temp, "registry"),
    CI: "true",
    NO_COLOR: "1",
  };

  try {
    migrateLocally(wrangler, root, env, ["--persist-to", persistTo]);
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    throw err;
  }

  const more = Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const varArgs = ["--var", `ADMIN_TOKEN:${adminToken}`, "--var", "RETURN_KEYS_IN_RESPONSES:true", ...more, ...secretVarArgs(label)];
  const { url, stop } = await runWranglerDev(temp, env, ["--persist-to", persistTo, ...varArgs], true, script);
  return { url, adminToken, stop };
}

/**
 * The gateway (gateway/wrangler.toml) under `wrangler dev` on a free port, with `vars` overriding its
 * policy; resolves to `{url, stop}` once it answers. `nonceStoreDown`: its nonce store binding names
 * the objects of a Worker that is not running (as when the store cannot be reached), the rest of its
 * configuration as shipped.
 */
export async function startGateway(label, vars, { nonceStoreDown = false } = {}) {
  const temp = mkdtempSync(join(tmpdir(), `trust-gateway-${label}-`));
  const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", WRANGLER_REGISTRY_PATH: join(temp, "registry"), CI: "true", NO_COLOR: "1" };
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  let config = join(root, "gateway", "wrangler.toml");
  if (nonceStoreDown) {
    const shipped = readFileSync(config, "utf8");
    const moved = shipped
      .replace(/^main = "src\/index\.ts"$/m, `main = ${JSON.stringify(join(root, "gateway", "src", "index.ts"))}`)
      .replace(/^class_name = "NonceStore"$/m, 'class_name = "NonceStore"\nscript_name = "agent-trust-nonce-store-down"');
    if (moved === shipped || !moved.includes("script_name")) throw new Error("gateway/wrangler.toml no longer has the lines nonceStoreDown rewrites");
    config = join(temp, "wrangler.toml");
    writeFileSync(config, moved);
  }
  return runWranglerDev(temp, env, ["-c", config, "--persist-to", join(temp, "state"), ...varArgs], false);
}

/** `wrangler dev` (of `script`, else wrangler.toml's main) with `extra` arguments on free ports, until it answers `GET /` (with 2xx when `needOk`). */
async function runWranglerDev(temp, env, extra, needOk = true, script = undefined) {
  const [port, inspector] = await Promise.all([freePort(), freePort()]);
  // The service names itself by the address it serves on, as `npm start` does.
  const origin = needOk ? ["--var", `PUBLIC_ORIGIN:http://${HOST}:${port}`] : [];
  const args = ["dev", ...(script ? [script] : []), "--ip", HOST, "--port", String(port), "--inspector-port", String(inspector), ...origin, ...extra, "--log-level", "warn"];
  // Its own process group (wrangler starts workerd children), so one signal ends them all.
  const dev = spawn(wrangler, args, { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk) => (output = (output + chunk).slice(-8000));
  dev.stdout.on("data", keep);
  dev.stderr.on("data", keep);
  let exited = false;
  const gone = new Promise((resolve) => dev.on("exit", () => resolve((exited = true))));

  const stop = async () => {
    if (!exited) {
      try {
        process.kill(-dev.pid, "SIGTERM");
      } catch {}
      await Promise.race([gone, sleep(5000)]);
    }
    // Whatever of the group outlived the signal (wrangler's launcher exits before its CLI and workerd
    // children do): a straggler would hold a core through the files after this one.
    try {
      process.kill(-dev.pid, "SIGKILL");
    } catch {}
    rmSync(temp, { recursive: true, force: true });
  };

  const url = `http://${HOST}:${port}`;
  const until = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`wrangler dev exited during start-up:\n${output}`);
    }
    // Each probe bounded as a whole, its body too: the start-up's deadline holds whatever the probe meets.
    const probe = fetch(`${url}/`, { signal: AbortSignal.timeout(2000) }).then(async (res) => (await res.arrayBuffer(), res.ok || !needOk));
    if (await Promise.race([probe.catch(() => false), sleep(3000).then(() => false)])) break;
    if (Date.now() > until) {
      await stop();
      throw new Error(`wrangler dev was not ready within ${START_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    await sleep(250);
  }
  return { url, stop };
}
