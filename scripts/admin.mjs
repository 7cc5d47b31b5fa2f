#!/usr/bin/env node
// `npm run admin -- <command>`: the service operators' CLI over the admin API.
//   applications [--status pending|approved|rejected]
//   approve <application id>
//   reject <application id>
//   operator <operator id> [--tier free|growth|enterprise] [--verified true|false]
//                          [--per-minute N|none] [--per-day N|none]
//   agent <sid> --status active|suspended
//   recover <operator id> [--revoke-existing]   issue a recovery key with every scope (e-mailed,
//                                               or printed where RETURN_KEYS_IN_RESPONSES=true)
// Target: --url, else TRUST_API_URL, else http://127.0.0.1:8787 (npm start).
// Token: ADMIN_TOKEN from the environment, else from .dev.vars (local development).
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: "string" },
    status: { type: "string" },
    tier: { type: "string" },
    verified: { type: "string" },
    "per-minute": { type: "string" },
    "per-day": { type: "string" },
    "revoke-existing": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
});

const usage = readFileSync(new URL(import.meta.url), "utf8")
  .split("\n")
  .filter((l) => l.startsWith("//"))
  .map((l) => l.slice(3))
  .join("\n");

function adminToken() {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  if (existsSync(".dev.vars")) {
    const line = readFileSync(".dev.vars", "utf8").split("\n").find((l) => l.startsWith("ADMIN_TOKEN="));
    if (line) return line.slice("ADMIN_TOKEN=".length).trim();
  }
  throw new Error("Set ADMIN_TOKEN (or run from the project folder with a .dev.vars)");
}

const limit = (v) => (v === undefined ? undefined : v === "none" ? null : Number(v));

async function main() {
  const [command, target] = positionals;
  if (values.help || !command) return console.log(usage);
  const base = (values.url ?? process.env.TRUST_API_URL ?? "http://127.0.0.1:8787").replace(/\/$/, "");
  const request = async (method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${adminToken()}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return JSON.parse(text);
  };
  const need = (what) => {
    if (!target) throw new Error(`${command} needs ${what}`);
    return target;
  };

  let result;
  switch (command) {
    case "applications": {
      const { applications } = await request("GET", `/admin/applications${values.status ? `?status=${values.status}` : ""}`);
      if (applications.length === 0) return console.log("No applications.");
      return console.table(applications.map(({ id, name, email, company, status, created_at }) => ({ id, name, email, company, status, created_at })));
    }
    case "approve":
      result = await request("POST", `/admin/applications/${need("an application id")}/approve`);
      if (result.api_key) console.log(`API key (shown once, hand it to the operator securely):\n${result.api_key}\n`);
      break;
    case "reject":
      result = await request("POST", `/admin/applications/${need("an application id")}/reject`);
      break;
    case "operator": {
      const body = {
        tier: values.tier,
        verified: values.verified === undefined ? undefined : values.verified === "true",
        rate_limit_per_minute: limit(values["per-minute"]),
        rate_limit_per_day: limit(values["per-day"]),
      };
      result = await request("POST", `/admin/operators/${need("an operator id")}`, body);
      break;
    }
    case "agent":
      if (!values.status) throw new Error("agent needs --status active|suspended");
      result = await request("POST", `/admin/agents/${need("a sid")}`, { status: values.status });
      break;
    case "recover":
      result = await request("POST", `/admin/operators/${need("an operator id")}/keys`, { revoke_existing: values["revoke-existing"] ?? false });
      if (result.api_key) console.log(`Recovery key (shown once, hand it to the operator securely):\n${result.api_key}\n`);
      break;
    default:
      throw new Error(`Unknown command ${command}\n\n${usage}`);
  }
  console.log(JSON.stringify(result, null, 2));
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
