// `npm start [-- --port N]`: local development with workerd, local D1 and Durable Objects.
// Creates .dev.vars from the example when missing, applies D1 migrations locally, then runs
// `wrangler dev` on 127.0.0.1 (port 8787 unless --port is given), its public origin that address.
// Extra arguments go to wrangler.
import { spawn } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrateLocally } from "./d1.mjs";
import { generatedSecrets } from "./local-secrets.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const wrangler = join(root, "node_modules", ".bin", process.platform === "win32" ? "wrangler.cmd" : "wrangler");
// wrangler dev would otherwise fetch Request.cf data from the internet at start-up.
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" };

const devVars = join(root, ".dev.vars");
if (!existsSync(devVars)) {
  copyFileSync(join(root, ".dev.vars.example"), devVars);
  console.log("Created .dev.vars from .dev.vars.example");
} else {
  // An older .dev.vars keeps its values and gains the variables added to the example since.
  const names = (text) => new Set(text.split("\n").filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l)).map((l) => l.slice(0, l.indexOf("="))));
  const have = names(readFileSync(devVars, "utf8"));
  const missing = readFileSync(join(root, ".dev.vars.example"), "utf8")
    .split("\n")
    .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l) && !have.has(l.slice(0, l.indexOf("="))));
  if (missing.length > 0) {
    appendFileSync(devVars, `\n${missing.join("\n")}\n`);
    console.log(`Added to .dev.vars: ${missing.map((l) => l.slice(0, l.indexOf("="))).join(", ")}`);
  }
}

// Local secrets, made once per checkout (never committed: .dev.vars is ignored).
for (const [name, value] of Object.entries(generatedSecrets())) {
  if (new RegExp(`^${name}=`, "m").test(readFileSync(devVars, "utf8"))) continue;
  appendFileSync(devVars, `\n# Made by npm start for local development\n${name}=${value}\n`);
  console.log(`Added ${name} to .dev.vars`);
}

const args = process.argv.slice(2);
// Every D1 database of wrangler.toml: the control database and each shard, in the state directory
// wrangler dev will use (its default, or the one given with --persist-to).
const persistAt = args.indexOf("--persist-to");
const persist = persistAt >= 0 && args[persistAt + 1] ? ["--persist-to", args[persistAt + 1]] : [];
try {
  migrateLocally(wrangler, root, env, persist, "inherit");
} catch (err) {
  console.error(err.message);
  process.exit(1);
}

const defaults = [];
if (!args.includes("--port")) defaults.push("--port", "8787");
if (!args.includes("--ip")) defaults.push("--ip", "127.0.0.1");
// One name for the service, whatever host a client calls it by: the address it serves on (a
// wildcard address is reached as 127.0.0.1), unless .dev.vars or the arguments name one.
const given = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
const setsOrigin = /^PUBLIC_ORIGIN=/m.test(readFileSync(devVars, "utf8")) || args.some((a) => a.startsWith("PUBLIC_ORIGIN:"));
if (!setsOrigin) {
  const ip = given("--ip", "127.0.0.1");
  const host = ip === "0.0.0.0" || ip === "::" || ip === "*" ? "127.0.0.1" : ip.includes(":") ? `[${ip}]` : ip;
  defaults.push("--var", `PUBLIC_ORIGIN:http://${host}:${given("--port", "8787")}`);
}
const dev = spawn(wrangler, ["dev", ...defaults, ...args], { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
