// The scoring model's deployment-wide settings in the control database (table model_settings): when
// agents switch from version 2 to version 3 (the end of the shadow period), and the bootstrap latch.
// Both are written at the first start and then only by admins; every reader (agent objects, reads of
// rows) takes them from a copy per isolate refreshed every minute. A copy a minute old is harmless:
// an object records the credibility it used in the agent's history, so replays never re-read them.

import { bootstrapFloor, MODEL, setBootstrapEnd, startBootstrap, type BootstrapLatch } from "../domain/model";
import { fnv1a } from "../domain/identifiers";
import type { Env } from "../env";

export interface ModelSettings {
  /** Agents switch to version 3 from this time (each at its own time within SWITCH_SPREAD_MS after it). */
  switchAt: number;
  latch: BootstrapLatch;
}

const DAY_MS = 86_400_000;
const TTL_MS = 60_000;
const DEFAULT_SHADOW_DAYS = 14;
/** The switch of the fleet is spread over this long, so score.changed events do not all go at once. */
export const SWITCH_SPREAD_MS = 6 * 3_600_000;

let cached: { settings: ModelSettings; at: number } | null = null;

/** The shadow period's length from MODEL_SHADOW_DAYS (a whole number of days, 0 to 365), else 14. */
export function shadowDays(env: Pick<Env, "MODEL_SHADOW_DAYS">): number {
  const raw = env.MODEL_SHADOW_DAYS;
  if (raw === undefined || !/^[0-9]{1,3}$/.test(raw) || Number(raw) > 365) return DEFAULT_SHADOW_DAYS;
  return Number(raw);
}

/**
 * When agent `sid` switches: the deployment's switch time plus a stable spread of up to 6 hours by
 * its SID (none when the switch is at the start: there is nothing to switch from).
 */
export function switchTimeOf(settings: ModelSettings, sid: string): number {
  if (settings.switchAt === 0) return 0;
  return settings.switchAt + (fnv1a(sid) % SWITCH_SPREAD_MS);
}

/** The model agent `sid` is served by at `now`. */
export const servedModel = (settings: ModelSettings, sid: string, now: number): 2 | 3 => (now >= switchTimeOf(settings, sid) ? 3 : 2);

type SettingsDb = Pick<D1Database, "prepare" | "batch">;

/** The settings (written now with their defaults if this is the first start), from the isolate's copy when fresh. */
export async function readModelSettings(env: Pick<Env, "DB" | "MODEL_SHADOW_DAYS">, now = Date.now()): Promise<ModelSettings> {
  if (cached && Math.abs(now - cached.at) < TTL_MS) return cached.settings;
  const db: SettingsDb = env.DB;
  const days = shadowDays(env);
  const iso = new Date(now).toISOString();
  // The first start: no shadow period at all with 0 days (the switch at time 0: every agent is version 3).
  const defaults: Record<string, unknown> = { switch: { at: days === 0 ? 0 : now + days * DAY_MS }, bootstrap: startBootstrap(now) };
  const rows = await db.batch([
    ...Object.entries(defaults).map(([key, value]) => db.prepare("INSERT OR IGNORE INTO model_settings (key, value, updated_at) VALUES (?, ?, ?)").bind(key, JSON.stringify(value), iso)),
    db.prepare("SELECT key, value FROM model_settings"),
  ]);
  const values = new Map((rows[rows.length - 1].results as { key: string; value: string }[]).map((r) => [r.key, JSON.parse(r.value) as unknown]));
  const settings: ModelSettings = {
    switchAt: (values.get("switch") as { at: number }).at,
    latch: values.get("bootstrap") as BootstrapLatch,
  };
  cached = { settings, at: now };
  return settings;
}

/** Drops this isolate's copy (after an admin's change here). */
export const forgetModelSettings = () => {
  cached = null;
};

async function write(env: Pick<Env, "DB">, key: string, value: unknown, now: number): Promise<void> {
  await env.DB.prepare(
    "INSERT INTO model_settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
  )
    .bind(key, JSON.stringify(value), new Date(now).toISOString())
    .run();
  forgetModelSettings();
}

/** An admin moves the switch (the end of the shadow period). Agents already switched stay on version 3. */
export async function setSwitchAt(env: Pick<Env, "DB" | "MODEL_SHADOW_DAYS">, at: number, now: number): Promise<ModelSettings> {
  await readModelSettings(env, now);
  await write(env, "switch", { at }, now);
  return readModelSettings(env, now);
}

/**
 * An admin sets the bootstrap latch's end (at most 180 days ahead; at or before now closes it for
 * good). Throws RangeError for an end too far ahead.
 */
export async function setBootstrapEndAt(env: Pick<Env, "DB" | "MODEL_SHADOW_DAYS">, endsAt: number, now: number): Promise<ModelSettings> {
  const current = await readModelSettings(env, now);
  let latch = setBootstrapEnd(current.latch, endsAt, now);
  if (latch.closedAt === null && endsAt <= now) latch = { ...latch, closedAt: now };
  await write(env, "bootstrap", latch, now);
  return readModelSettings(env, now);
}

/** Whether the latch is on at `now` (until its end; closed for good once past it). */
export const bootstrapOn = (latch: BootstrapLatch, now: number) => latch.closedAt === null && now < latch.endsAt && MODEL.bootstrap.shareFrom >= 0;

/**
 * After a standing snapshot: the latch closes for good once the earned share reaches its end (R1's
 * bootstrap is one-way). Returns the latch as it now is.
 */
export async function recordEarnedShare(env: Pick<Env, "DB" | "MODEL_SHADOW_DAYS">, earnedShare: number, now: number): Promise<BootstrapLatch> {
  const current = await readModelSettings(env, now);
  const { latch } = bootstrapFloor(current.latch, now, earnedShare);
  if (latch.closedAt !== current.latch.closedAt) await write(env, "bootstrap", latch, now);
  return latch;
}

/** The anchors (R1's genesis): operator ids the admins vouch for, who hold standing 1. */
export async function readAnchors(env: Pick<Env, "DB">): Promise<number[]> {
  const row = await env.DB.prepare("SELECT value FROM model_settings WHERE key = 'anchors'").first<{ value: string }>();
  return row ? (JSON.parse(row.value) as number[]) : [];
}

export async function setAnchors(env: Pick<Env, "DB">, anchors: readonly number[], now: number): Promise<number[]> {
  const sorted = [...new Set(anchors)].sort((a, b) => a - b);
  await write(env, "anchors", sorted, now);
  return sorted;
}
