import { z } from "zod";

/** The Worker's bindings and variables (declared in src/types.d.ts). */
export type Env = Cloudflare.Env;

const MIN_SECRET = 12;
const MAX_PREVIOUS_MS = 7 * 86_400_000;

/** The admin interface's secrets, or why it is disabled. */
export type AdminConfig = { ok: true; current: string; previous: { token: string; until: number } | null } | { ok: false; problem: string };

/**
 * The admin secrets. Anything wrong with them disables the admin routes only (503): every other
 * route keeps serving. The previous token (rotation) must come with an end at most 7 days ahead.
 */
export function adminConfig(env: Env, now: number): AdminConfig {
  const current = env.ADMIN_TOKEN;
  if (!current) return { ok: false, problem: "ADMIN_TOKEN is not set" };
  if (current.length < MIN_SECRET) return { ok: false, problem: `ADMIN_TOKEN is shorter than ${MIN_SECRET} characters` };
  if (!env.ADMIN_TOKEN_PREVIOUS) return { ok: true, current, previous: null };
  if (env.ADMIN_TOKEN_PREVIOUS.length < MIN_SECRET) {
    return { ok: false, problem: `ADMIN_TOKEN_PREVIOUS is shorter than ${MIN_SECRET} characters` };
  }
  const until = Date.parse(env.ADMIN_TOKEN_PREVIOUS_UNTIL ?? "");
  if (!Number.isFinite(until)) return { ok: false, problem: "ADMIN_TOKEN_PREVIOUS_UNTIL must be an ISO time" };
  if (until - now > MAX_PREVIOUS_MS) return { ok: false, problem: "ADMIN_TOKEN_PREVIOUS_UNTIL is more than 7 days ahead" };
  return { ok: true, current, previous: until > now ? { token: env.ADMIN_TOKEN_PREVIOUS, until } : null };
}

/** Where keys issued by admins (approval, recovery) go: e-mail, the admin's response, or nowhere. */
export function keyDelivery(env: Env): "email" | "response" | null {
  if (env.EMAIL && env.EMAIL_FROM && z.email().safeParse(env.EMAIL_FROM).success) return "email";
  if (env.RETURN_KEYS_IN_RESPONSES === "true") return "response";
  return null;
}

/** The DNS-over-HTTPS endpoint of the callback guard, or null when the configured one is not HTTPS. */
export function dohEndpoint(env: Env): string | null {
  const endpoint = env.DOH_ENDPOINT ?? "https://cloudflare-dns.com/dns-query";
  return z.url({ protocol: /^https$/ }).safeParse(endpoint).success ? endpoint : null;
}

/** The shard databases, in order: SHARD_0 ... SHARD_{N-1} (contiguous from 0). */
export function shardDatabases(env: Env): D1Database[] {
  let shards = shardLists.get(env);
  if (shards) return shards;
  shards = [];
  for (let n = 0; env[`SHARD_${n}`]; n++) shards.push(env[`SHARD_${n}`]!);
  shardLists.set(env, shards);
  return shards;
}
/** Each env object's shards, listed once: the hot reads ask for them on every request. */
const shardLists = new WeakMap<Env, D1Database[]>();

/** The shards new agents are placed on: PLACEMENT_SHARDS ("0,2"), else every shard. */
export function placementShards(env: Env): number[] {
  const count = shardDatabases(env).length;
  const listed = (env.PLACEMENT_SHARDS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => /^[0-9]+$/.test(s))
    .map(Number)
    .filter((n) => n < count);
  return listed.length > 0 ? [...new Set(listed)] : Array.from({ length: count }, (_, n) => n);
}

/** The binding name of shard n, as bookmarks name databases. */
export const shardName = (n: number) => `SHARD_${n}`;

/**
 * How often a status list may be rebuilt (ms): STATUS_LIST_REBUILD_S, 1-60 seconds, default 60. Only
 * tests that watch a list change under `wrangler dev` set it lower.
 */
export function statusListRebuildMs(env: Env): number {
  const seconds = Number(env.STATUS_LIST_REBUILD_S ?? "60");
  return Number.isInteger(seconds) && seconds >= 1 && seconds <= 60 ? seconds * 1000 : 60_000;
}

/** The public origin when PUBLIC_ORIGIN is missing or unusable: `npm start`'s default address. */
export const DEFAULT_PUBLIC_ORIGIN = "http://127.0.0.1:8787";
const MAX_LOGS = 1024;

/** PUBLIC_ORIGIN read: an http(s) origin with nothing after it (a trailing slash is allowed), or why not. */
export function readPublicOrigin(raw: string | undefined): { ok: true; origin: string } | { ok: false; problem: string } {
  if (raw === undefined || raw.trim() === "") return { ok: false, problem: "PUBLIC_ORIGIN is not set" };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, problem: "PUBLIC_ORIGIN is not a URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, problem: "PUBLIC_ORIGIN must be an http or https URL" };
  if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return { ok: false, problem: "PUBLIC_ORIGIN must be an origin alone (scheme, host, port)" };
  }
  return { ok: true, origin: url.origin };
}

const reported = new WeakSet<object>();

/**
 * The service's one public origin, whatever Host a request came with: the issuer of its
 * attestations, credentials and promises, the base of every URL it hands out, and the name of the
 * logs it creates. PUBLIC_ORIGIN; when that is unusable, DEFAULT_PUBLIC_ORIGIN, logged once per isolate.
 */
export function publicOrigin(env: Env): string {
  const read = readPublicOrigin(env.PUBLIC_ORIGIN);
  if (read.ok) return read.origin;
  if (!reported.has(env)) {
    reported.add(env);
    console.error(JSON.stringify({ level: "error", message: `${read.problem}: the service names itself ${DEFAULT_PUBLIC_ORIGIN}`, problem: read.problem }));
  }
  return DEFAULT_PUBLIC_ORIGIN;
}

/** How many logs there are: LOG_COUNT (1 to 1024), else 1. */
export function logCount(env: Env): number {
  const n = Number(env.LOG_COUNT ?? "1");
  return Number.isInteger(n) && n >= 1 && n <= MAX_LOGS ? n : 1;
}

/**
 * The origin log n takes when it is created (`<public host>/log/<n>`): the first line of its
 * checkpoints and the name of its signing keys. The log stores it then and keeps it for good
 * (the sequencer's `origin()`); read a log's origin from there, never from here.
 */
export function logOrigin(env: Env, n: number): string {
  return `${new URL(publicOrigin(env)).host}/log/${n}`;
}
