// The admins' view of the scoring model: its settings (the switch from version 2, the bootstrap
// latch), moving them, and the shadow period's report: how many agents still on version 2 would change
// recommendation under version 3, and which way.

import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { credibilitySource } from "../db/credibility";
import { readEntries } from "../db/history";
import { bootstrapOn, readModelSettings, setBootstrapEndAt, setSwitchAt, shadowDays, type ModelSettings } from "../db/model-settings";
import { errors } from "../domain/errors";
import { RECOMMENDATIONS, type Recommendation } from "../domain/model";
import type { Evidence } from "../domain/scoring";
import { shadowCompare } from "../domain/shadow";
import { shardDatabases } from "../env";
import { requireAdmin } from "../http/auth";
import type { AppEnv } from "../http/context";
import { sid, timestamp } from "../http/wire/common";
import { adminSecurity, createRoute, errorResponses, json, jsonBody } from "./openapi";

const DAY_MS = 86_400_000;
/** Agents compared per request (each is one read of its chain). */
const SHADOW_PAGE = 200;

const iso = (t: number) => new Date(t).toISOString();
const settingsSchema = z
  .object({
    version: z.literal(3),
    switch_at: timestamp.openapi({ description: "Agents on version 2 switch to version 3 from this time, each within 6 hours after it" }),
    shadow_days: z.number().int().min(0),
    bootstrap: z.object({ on: z.boolean(), started_at: timestamp, ends_at: timestamp, closed_at: timestamp.nullable() }),
  })
  .openapi("ModelSettings");
type SettingsOut = z.infer<typeof settingsSchema>;
const EXAMPLE: SettingsOut = {
  version: 3,
  switch_at: "2026-12-05T10:00:00.000Z",
  shadow_days: 14,
  bootstrap: { on: true, started_at: "2026-11-21T10:00:00.000Z", ends_at: "2027-05-20T10:00:00.000Z", closed_at: null },
};

const settingsOut = (s: ModelSettings, days: number, now: number): SettingsOut => ({
  version: 3,
  switch_at: iso(s.switchAt),
  shadow_days: days,
  bootstrap: { on: bootstrapOn(s.latch, now), started_at: iso(s.latch.startedAt), ends_at: iso(s.latch.endsAt), closed_at: s.latch.closedAt === null ? null : iso(s.latch.closedAt) },
});

const readSettings = createRoute({
  method: "get",
  path: "/admin/model",
  operationId: "adminModelSettings",
  tags: ["Admin"],
  summary: "The scoring model's settings: the switch from version 2 and the bootstrap latch",
  security: adminSecurity,
  middleware: [requireAdmin],
  responses: { 200: json(settingsSchema, "Settings", EXAMPLE), ...errorResponses(401, 503) },
});

const moveSwitch = createRoute({
  method: "put",
  path: "/admin/model/switch",
  operationId: "adminModelSwitch",
  tags: ["Admin"],
  summary: "Move the switch to version 3 (the end of the shadow period)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { body: jsonBody(z.object({ at: timestamp.openapi({ description: "When agents switch; now or earlier: at their next run" }) })) },
  responses: { 200: json(settingsSchema, "Settings", EXAMPLE), ...errorResponses(400, 401, 503) },
});

const moveBootstrap = createRoute({
  method: "put",
  path: "/admin/model/bootstrap",
  operationId: "adminModelBootstrap",
  tags: ["Admin"],
  summary: "Set the bootstrap latch's end (at most 180 days ahead; now or earlier closes it for good)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: { body: jsonBody(z.object({ ends_at: timestamp })) },
  responses: { 200: json(settingsSchema, "Settings", EXAMPLE), ...errorResponses(400, 401, 503) },
});

const shadowSchema = z
  .object({
    compared: z.number().int().min(0).openapi({ description: "Agents still on version 2 compared in this page" }),
    changed: z.number().int().min(0),
    changes: z.array(z.object({ from: z.enum(RECOMMENDATIONS), to: z.enum(RECOMMENDATIONS), agents: z.number().int().min(1) })),
    examples: z.array(z.object({ sid, from: z.enum(RECOMMENDATIONS), to: z.enum(RECOMMENDATIONS) })).openapi({ description: "Up to 20 agents that would change" }),
    next_cursor: z.string().nullable(),
  })
  .openapi("ModelShadow");

const shadow = createRoute({
  method: "get",
  path: "/admin/model/shadow",
  operationId: "adminModelShadow",
  tags: ["Admin"],
  summary: "The shadow period: agents that would change recommendation under version 3, and which way (paginated)",
  security: adminSecurity,
  middleware: [requireAdmin],
  request: {
    query: z.object({
      cursor: z
        .string()
        .regex(/^[0-9]{1,3}:[A-Za-z0-9_]*$/, { error: "cursor must be a next_cursor of this route" })
        .optional()
        .openapi({ param: { name: "cursor", in: "query", description: "The next_cursor of the previous page" } }),
    }),
  },
  responses: {
    200: json(shadowSchema, "The difference", {
      compared: 120,
      changed: 3,
      changes: [{ from: "clear", to: "review", agents: 3 }],
      examples: [{ sid: "SID-0x3f9a1c2b7d4e5f60", from: "clear", to: "review" }],
      next_cursor: null,
    }),
    ...errorResponses(400, 401, 503),
  },
});

interface ShadowRow {
  sid: string;
  created_at: string;
  identity_level: number;
  owner_local: number | null;
  evidence: string;
  similar_to_cautioned: number;
}

export function registerAdminModel(app: OpenAPIHono<AppEnv>) {
  app.openapi(readSettings, async (c) => {
    const now = c.get("deps").now();
    return c.json(settingsOut(await readModelSettings(c.env, now), shadowDays(c.env), now), 200);
  });

  app.openapi(moveSwitch, async (c) => {
    const now = c.get("deps").now();
    const at = Date.parse(c.req.valid("json").at);
    if (!Number.isFinite(at)) throw errors.invalid("at must be an ISO 8601 time");
    return c.json(settingsOut(await setSwitchAt(c.env, at, now), shadowDays(c.env), now), 200);
  });

  app.openapi(moveBootstrap, async (c) => {
    const now = c.get("deps").now();
    const endsAt = Date.parse(c.req.valid("json").ends_at);
    if (!Number.isFinite(endsAt)) throw errors.invalid("ends_at must be an ISO 8601 time");
    if (endsAt > now + 180 * DAY_MS) throw errors.invalid("ends_at is at most 180 days ahead");
    return c.json(settingsOut(await setBootstrapEndAt(c.env, endsAt, now), shadowDays(c.env), now), 200);
  });

  app.openapi(shadow, async (c) => {
    const now = c.get("deps").now();
    const [shardText, after] = (c.req.valid("query").cursor ?? "0:").split(":");
    const shards = shardDatabases(c.env);
    const counts = new Map<string, { from: Recommendation; to: Recommendation; agents: number }>();
    const examples: { sid: string; from: Recommendation; to: Recommendation }[] = [];
    let compared = 0;
    let changed = 0;
    let next: string | null = null;
    for (let n = Number(shardText), from = after; n < shards.length && compared < SHADOW_PAGE; n++, from = "") {
      const rows = await shards[n]
        .prepare("SELECT sid, created_at, identity_level, owner_local, evidence, similar_to_cautioned FROM agents WHERE model_version = 2 AND history_version >= 2 AND sid > ? ORDER BY sid LIMIT ?")
        .bind(from, SHADOW_PAGE - compared)
        .all<ShadowRow>();
      for (const row of rows.results) {
        const entries = await readEntries(shards[n], row.sid);
        const facts = { createdAt: Date.parse(row.created_at), identityLevel: row.identity_level, ownerLocal: row.owner_local, v2: JSON.parse(row.evidence) as Evidence, similarToCautioned: row.similar_to_cautioned === 1 };
        const source = await credibilitySource(c.env, now, entries.flatMap((e) => (e.operator === null ? [] : [String(e.operator)])));
        const r = shadowCompare(entries.map((e) => ({ entry: e.entry, who: e.operator })), facts, source, now);
        compared++;
        if (r.v2 === r.v3) continue;
        changed++;
        const key = `${r.v2}>${r.v3}`;
        counts.set(key, { from: r.v2, to: r.v3, agents: (counts.get(key)?.agents ?? 0) + 1 });
        if (examples.length < 20) examples.push({ sid: row.sid, from: r.v2, to: r.v3 });
      }
      if (compared >= SHADOW_PAGE) next = `${n}:${rows.results[rows.results.length - 1].sid}`;
    }
    return c.json({ compared, changed, changes: [...counts.values()], examples, next_cursor: next }, 200);
  });
}

