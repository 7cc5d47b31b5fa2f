import { createExecutionContext, evictDurableObject, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { BUCKET_IDS, forgetSnapshot, MANIFEST_KEY, writeSnapshot } from "../src/db/snapshot";
import { createApp } from "../src/app";
import { unpackText, type StoredText } from "../src/db/entry-text";
import { shardDatabases, type Env } from "../src/env";
import type { Deps } from "../src/http/context";

export const ADMIN = { authorization: "Bearer test-admin-token" };
let ipCounter = 0;
/** A fresh client address, so public per-IP limits of one test never touch another's. */
export const freshIp = () => `198.51.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

/**
 * The instant every `call` happens at. Frozen, in the middle of an hour and of a minute, so that no
 * test's windowed limit (per minute, per hour, per day) can straddle a window boundary.
 */
export const T_CALL = Date.parse("2026-11-21T10:20:30Z");

let shared: ReturnType<typeof testApp> | undefined;

/** A request to the app at the frozen instant T_CALL. */
export function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  shared ??= testApp({ now: T_CALL });
  return shared.request(path, init);
}

export const bearer = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });

let operatorCounter = 0;
/** Applies, approves through the admin API, and returns the operator's id and first key. */
export async function createOperator(options: { verified?: boolean; name?: string } = {}) {
  const n = ++operatorCounter;
  const email = `op${n}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const applied = await call("/apply", { body: { name: options.name ?? `Operator ${n}`, email }, headers: { "cf-connecting-ip": freshIp() } });
  if (applied.status !== 201) throw new Error(`apply failed: ${applied.status} ${await applied.text()}`);
  const list = (await (await call("/admin/applications?status=pending", { headers: ADMIN })).json()) as {
    applications: { id: number; email: string }[];
  };
  const app = list.applications.find((a) => a.email === email)!;
  const approved = (await (await call(`/admin/applications/${app.id}/approve`, { method: "POST", headers: ADMIN })).json()) as {
    operator: { id: number };
    api_key: string;
  };
  if (options.verified) {
    await call(`/admin/operators/${approved.operator.id}`, { headers: ADMIN, body: { verified: true } });
  }
  return { id: approved.operator.id, key: approved.api_key, email };
}

export const agentConfig = {
  modelProvider: "anthropic",
  modelName: "claude-sonnet",
  systemPromptHash: "a".repeat(64),
  tools: ["search", "email"],
  memoryConfig: { type: "vector", size: 10 },
};

export async function registerAgent(key: string, overrides: Record<string, unknown> = {}) {
  const res = await call("/register", { headers: bearer(key), body: { name: "Agent", ...agentConfig, ...overrides } });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { sid: string; fingerprint: string };
}

export interface TestAppOptions {
  /** The frozen clock's start (ms); move it with `clock.now`. */
  now?: number;
  resolve?: Deps["resolve"];
  fetchOutbound?: Deps["fetchOutbound"];
  /** Bindings that replace the test environment's (e.g. an e-mail binding, another admin token). */
  env?: Record<string, unknown>;
  /** Each answer waits for the work its request left in waitUntil (edge cache writes and purges). */
  awaitBackground?: boolean;
}

/**
 * The app with a frozen clock and controlled outbound calls, answering like `call`: the one test-app
 * helper of every test that needs a clock, a resolver, a callback or other bindings.
 */
export function testApp(options: TestAppOptions = {}) {
  const clock = { now: options.now ?? Date.parse("2026-11-21T10:00:30Z") };
  const app = createApp({ now: () => clock.now, resolve: options.resolve, fetchOutbound: options.fetchOutbound });
  const bindings = { ...env, ...options.env } as Env;
  const request = (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
    const headers: Record<string, string> = { "cf-connecting-ip": "203.0.113.7", ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === "string" ? init.body : JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    const req = new Request(`http://trust.test${path}`, { method: init.method ?? (body ? "POST" : "GET"), headers, body });
    const ctx = createExecutionContext();
    unsettled.push(ctx);
    const answered = Promise.resolve(app.fetch(req, bindings, ctx));
    return options.awaitBackground ? answered.then(async (res) => (await waitOnExecutionContext(ctx), res)) : answered;
  };
  return { app, clock, request, env: bindings };
}

const unsettled: ExecutionContext[] = [];

/**
 * Waits for the work every request so far left in `waitUntil` (edge-cache writes, badge purges):
 * the runtime's own wait, never a sleep.
 */
export async function settled(): Promise<void> {
  await Promise.all(unsettled.splice(0).map((ctx) => waitOnExecutionContext(ctx)));
}

/** The shard database an agent lives on (from the control database's directory). */
export async function shardOf(sid: string): Promise<D1Database> {
  const entry = await env.DB.prepare("SELECT shard FROM agent_directory WHERE sid = ?").bind(sid).first<{ shard: number }>();
  if (!entry) throw new Error(`no directory entry for ${sid}`);
  return shardDatabases(env)[entry.shard];
}

/**
 * Empties an agent's object as a lost storage would leave it: no tables' rows, no alarm, and the
 * object starting as a new one would (its tables created, nothing in memory). Its next call rebuilds
 * the agent from the shard.
 */
export async function emptyAgentObject(sid: string): Promise<void> {
  const stub = env.AGENT.getByName(sid);
  await runInDurableObject(stub, async (_o, state) => {
    await state.storage.deleteAll();
    await state.storage.deleteAlarm();
  });
  await evictDurableObject(stub);
}

/** An agent's reports as its chain of entries on its shard holds them, in order (never the API's view). */
export async function reportRows(sid: string) {
  const shard = await shardOf(sid);
  const dir = await env.DB.prepare("SELECT num FROM agent_directory WHERE sid = ?").bind(sid).first<{ num: number }>();
  const rows = await shard
    .prepare("SELECT n, operator, status, ref, body, private FROM entries WHERE sid = ? AND kind = 'report' ORDER BY n")
    .bind(sid)
    .all<{ n: number; operator: number; status: string; ref: number | null; body: StoredText; private: StoredText | null }>();
  return rows.results.map((r) => {
    const e = JSON.parse(unpackText(r.body)) as { receipt: boolean; outcome: string };
    const clear = r.private === null ? null : (JSON.parse(unpackText(r.private)) as { type?: string; metadata?: unknown });
    return {
      id: r.ref ?? dir!.num * 2 ** 22 + r.n,
      n: r.n,
      reporter: r.operator,
      status: r.status,
      outcome: e.outcome,
      receipt: e.receipt,
      type: clear?.type ?? null,
      metadata: clear?.metadata ?? null,
    };
  });
}

/** One report's row by its transaction id, or null. */
export const reportRow = async (sid: string, id: number) => (await reportRows(sid)).find((r) => r.id === id) ?? null;

/**
 * Puts a credibility snapshot in force, as the credibility job publishes one: c per operator id
 * (multiples of 0.05), every other operator 0. Objects take it up at their agent's next change.
 */
export async function publishCredibility(values: Record<number, number>, now: number, id = `${new Date(now).toISOString().slice(0, 10)}.${++snapshots}`): Promise<string> {
  const top = Math.max(0, ...Object.keys(values).map(Number));
  const levels = new Uint8Array(top + 1);
  for (const [op, c] of Object.entries(values)) levels[Number(op)] = Math.round(c * 20);
  const manifest = await writeSnapshot(env.MODEL_BUCKET, { id, day: Math.floor(now / 86_400_000), publishedAt: now, bucketIds: BUCKET_IDS, credible: Object.values(values).filter((c) => c > 0).length, pairs: 0, anchors: 0 }, levels);
  await env.MODEL_BUCKET.put(MANIFEST_KEY, JSON.stringify(manifest));
  forgetSnapshot();
  // The agents' objects keep their own copy of the manifest: dropped too.
  await (env.AGENT.getByName("snapshot-cache") as unknown as DurableObjectStub<import("./agent-under-test").Agent>).forgetSnapshot();
  return id;
}
let snapshots = 0;
