// The deploy's view of the wrangler configuration: the resources its bindings name, the settings a
// deploy refuses, and the git-ignored wrangler.deploy.toml written from the tracked wrangler.toml
// with the account's resource ids (the tracked file keeps its placeholders and local settings).
import { readFileSync, writeFileSync } from "node:fs";
import ipaddr from "ipaddr.js";
import { parse, stringify } from "smol-toml";

/** A wrangler configuration as its TOML reads (wrangler's raw configuration, before its defaults). */
export type RawConfig = { [key: string]: any };

export const DEPLOY_CONFIG = "wrangler.deploy.toml";

export const readToml = (path: string): RawConfig => parse(readFileSync(path, "utf8")) as RawConfig;

/** A D1 binding: wrangler's defaults for the migrations' folder and table. */
export interface Database {
  binding: string;
  name: string;
  configuredId: string | undefined;
  migrationsDir: string;
  migrationsTable: string;
}

export const databases = (config: RawConfig): Database[] =>
  (config.d1_databases ?? []).map((d: RawConfig) => ({
    binding: d.binding,
    name: d.database_name,
    configuredId: d.database_id,
    migrationsDir: d.migrations_dir ?? "migrations",
    migrationsTable: d.migrations_table ?? "d1_migrations",
  }));

const unique = (names: (string | undefined)[]) => [...new Set(names.filter((n): n is string => typeof n === "string" && n !== ""))];

/** Every queue the Worker sends to, consumes or dead-letters to. */
export const queueNames = (config: RawConfig): string[] =>
  unique([
    ...(config.queues?.producers ?? []).map((p: RawConfig) => p.queue),
    ...(config.queues?.consumers ?? []).flatMap((c: RawConfig) => [c.queue, c.dead_letter_queue]),
  ]);

export const bucketNames = (config: RawConfig): string[] => unique((config.r2_buckets ?? []).map((b: RawConfig) => b.bucket_name));

/** What a deploy adds to the tracked configuration; given once, read back from wrangler.deploy.toml. */
export interface Settings {
  /** The public host: the Worker's custom domain, and PUBLIC_ORIGIN https://<domain>. */
  domain?: string;
  /** The sender of keys' e-mails (a `send_email` binding EMAIL restricted to it). */
  emailFrom?: string;
}

/** The settings an earlier run wrote into wrangler.deploy.toml. */
export function previousSettings(previous: RawConfig | null): Settings {
  if (!previous) return {};
  const route = (previous.routes ?? []).find((r: RawConfig) => r?.custom_domain === true);
  return {
    domain: typeof route?.pattern === "string" ? route.pattern : undefined,
    emailFrom: (previous.send_email ?? []).some((b: RawConfig) => b.name === "EMAIL") ? previous.vars?.EMAIL_FROM : undefined,
  };
}

/** A host name as --domain takes it (a scheme or a trailing slash is dropped), or null. */
export function hostName(value: string): string | null {
  const host = value.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/\/+$/, "");
  return /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(host) ? host : null;
}

/**
 * The configuration wrangler deploys: the tracked one with each database's id in this account, the
 * settings, and the secrets the Worker requires (wrangler then refuses a deploy that would lack one).
 */
export function deployConfig(config: RawConfig, ids: Map<string, string>, settings: Settings, secrets: string[]): RawConfig {
  const out: RawConfig = structuredClone(config);
  out.d1_databases = (out.d1_databases ?? []).map((d: RawConfig) => ({ ...d, database_id: ids.get(d.database_name) ?? d.database_id }));
  out.vars = { ...out.vars };
  if (settings.domain) {
    out.vars.PUBLIC_ORIGIN = `https://${settings.domain}`;
    const routes = (out.routes ?? []).filter((r: RawConfig) => r?.pattern !== settings.domain);
    out.routes = [...routes, { pattern: settings.domain, custom_domain: true }];
  }
  if (settings.emailFrom) {
    out.vars.EMAIL_FROM = settings.emailFrom;
    const others = (out.send_email ?? []).filter((b: RawConfig) => b.name !== "EMAIL");
    out.send_email = [...others, { name: "EMAIL", allowed_sender_addresses: [settings.emailFrom] }];
  }
  out.secrets = { ...out.secrets, required: unique([...(out.secrets?.required ?? []), ...secrets]) };
  return out;
}

/** The gateway's configuration: it accepts the attestations of this deployment (`origin`: PUBLIC_ORIGIN). */
export function gatewayDeployConfig(gateway: RawConfig, origin: string): RawConfig {
  return { ...structuredClone(gateway), vars: { ...gateway.vars, TRUST_SERVICE: origin } };
}

/** PUBLIC_ORIGIN as a URL, or null when it is not one. */
function publicOrigin(config: RawConfig): URL | null {
  try {
    return new URL(String(config.vars?.PUBLIC_ORIGIN ?? ""));
  } catch {
    return null;
  }
}

const isOn = (value: unknown) => value !== undefined && !["", "false", "0"].includes(String(value).trim().toLowerCase());

/** Hosts a public service cannot be named by: loopback, unspecified, private or link-local addresses, localhost. */
function isLocalHost(host: string): boolean {
  if (host === "" || host === "localhost" || host.endsWith(".localhost")) return true;
  if (!ipaddr.isValid(host)) return false;
  return ["loopback", "unspecified", "private", "linkLocal", "uniqueLocal"].includes(ipaddr.process(host).range());
}

/** The settings of a configuration meant for local development or tests only, with why each is refused. */
export function localOnlySettings(config: RawConfig): string[] {
  const vars: RawConfig = config.vars ?? {};
  const problems: string[] = [];
  if (isOn(vars.RETURN_KEYS_IN_RESPONSES)) {
    problems.push(`RETURN_KEYS_IN_RESPONSES = "${vars.RETURN_KEYS_IN_RESPONSES}": admin approval and recovery answers would carry operators' API keys (local development only)`);
  }
  for (const [name, value] of Object.entries(vars)) {
    if (/LOOPBACK/i.test(name) && isOn(value)) problems.push(`${name} = "${value}": webhooks and callbacks to loopback addresses (local development only)`);
  }
  if (isOn(vars.D1_METER)) problems.push(`D1_METER = "${vars.D1_METER}": every D1 call counted, for benchmarks only`);
  const origin = publicOrigin(config);
  const host = origin?.hostname.replace(/^\[(.*)\]$/, "$1") ?? "";
  if (!origin || origin.protocol !== "https:" || isLocalHost(host)) {
    problems.push(
      `PUBLIC_ORIGIN = "${vars.PUBLIC_ORIGIN ?? ""}" is not a public https origin, and it is the service's name (the issuer of ` +
        "its attestations, the host of its logs): pass --domain <your public host> (or set PUBLIC_ORIGIN in wrangler.toml)",
    );
  }
  return problems;
}

/** The same flags set as secrets of the deployed Worker (a deploy keeps secrets: they would stay in force). */
export const localOnlySecrets = (names: Iterable<string>): string[] =>
  [...names]
    .filter((name) => name === "RETURN_KEYS_IN_RESPONSES" || name === "D1_METER" || /LOOPBACK/i.test(name))
    .map((name) => `the Worker has a secret ${name} (local development only): remove it with \`npx wrangler secret delete ${name}\``);

/** Writes a configuration wrangler deploys, under a header saying where it came from (`what`: what was added). */
export function writeToml(path: string, config: RawConfig, source: string, what: string): void {
  const header = [
    `# Written by \`npm run deploy\` from ${source}, with ${what}.`,
    `# Do not edit: every run writes it anew; change ${source} instead. Not tracked by git.`,
  ];
  writeFileSync(path, `${header.join("\n")}\n\n${stringify(config)}\n`);
}
