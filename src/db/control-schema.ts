import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { APPLICATION_STATUSES } from "../domain/applications";
import { TIER_NAMES } from "../domain/limits";

// The control database (binding DB): operators, their keys and applications, the waitlist, and
// the agent directory that says on which shard each agent lives. Nothing here changes per report.
// Timestamps are ISO 8601 strings in UTC (what the wire shows).

export const applications = sqliteTable(
  "applications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    email: text("email").notNull(),
    company: text("company"),
    reason: text("reason"),
    status: text("status", { enum: APPLICATION_STATUSES }).notNull().default("pending"),
    operatorId: integer("operator_id"),
    createdAt: text("created_at").notNull(),
    decidedAt: text("decided_at"),
  },
  (t) => [uniqueIndex("applications_email").on(t.email), index("applications_status").on(t.status, t.id)],
);

export const operators = sqliteTable(
  "operators",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    email: text("email").notNull(),
    verified: integer("verified", { mode: "boolean" }).notNull().default(false),
    tier: text("tier", { enum: TIER_NAMES }).notNull().default("free"),
    rateLimitPerMinute: integer("rate_limit_per_minute"),
    rateLimitPerDay: integer("rate_limit_per_day"),
    // Projection kept by the agents' objects (deltas, so concurrent agents never overwrite each
    // other): sums over the operator's agents of evidence and evidence x composite, as of each agent's
    // last score update. The operator score is derived from them without reading every agent.
    agentEvidence: real("agent_evidence").notNull().default(0),
    // Bumped with every change to facts that isolates cache about the operator's keys (revocation,
    // rotation, tier, verification); see src/http/key-cache.ts.
    authEpoch: integer("auth_epoch").notNull().default(0),
    agentWeightedComposite: real("agent_weighted_composite").notNull().default(0),
    /** Until then the operator's reports weigh half and are capped at half (three withdrawals in 90 days). */
    penaltyUntil: text("penalty_until"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("operators_email").on(t.email)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    operatorId: integer("operator_id")
      .notNull()
      .references(() => operators.id),
    keyHash: text("key_hash").notNull(),
    prefix: text("prefix").notNull(),
    scopes: text("scopes").notNull(),
    createdAt: text("created_at").notNull(),
    // Set when the key was rotated: the end of its grace period.
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash").on(t.keyHash), index("api_keys_operator").on(t.operatorId)],
);

export const waitlist = sqliteTable("waitlist", {
  email: text("email").primaryKey(),
  role: text("role"),
  createdAt: text("created_at")
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});

/**
 * Every agent's number and shard. `num` numbers the agent for transaction ids (num × 2^22 + the
 * agent's own sequence) and orders an operator's agents; numbers start at 1024, so ids below
 * 1024 × 2^22 are the ids issued before sharding (all on shard 0).
 */
export const agentDirectory = sqliteTable(
  "agent_directory",
  {
    num: integer("num").primaryKey(),
    sid: text("sid").notNull(),
    shard: integer("shard").notNull(),
    // The owner, null until a self-registered agent is claimed: lists an operator's agents across shards.
    operatorId: integer("operator_id"),
    createdAt: text("created_at").notNull(),
    /** The transparency log the agent's entries go to, fixed at registration (agents from before the log: 0). */
    log: integer("log").notNull().default(0),
    // The agent's place in the status lists (GET /status/{n}): drawn at random when it is first
    // listed, never changed. Null until then (agents from before the lists, until the backfill).
    statusList: integer("status_list"),
    statusIdx: integer("status_idx"),
  },
  (t) => [
    uniqueIndex("agent_directory_sid").on(t.sid),
    index("agent_directory_operator").on(t.operatorId, t.num),
    uniqueIndex("agent_directory_status").on(t.statusList, t.statusIdx),
  ],
);

/** Operators' webhook endpoints. The signing secret is kept sealed with WEBHOOK_SECRET_KEY. */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    operatorId: integer("operator_id").notNull(),
    url: text("url").notNull(),
    /** The event types it receives, space-separated. */
    events: text("events").notNull(),
    sealedSecret: text("sealed_secret").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("webhooks_operator").on(t.operatorId, t.id)],
);

/** Agents an operator watches: it receives their score.changed events. */
export const watches = sqliteTable(
  "watches",
  {
    operatorId: integer("operator_id").notNull(),
    sid: text("sid").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.operatorId, t.sid] }), index("watches_sid").on(t.sid)],
);

/** Each event's delivery to each endpoint, visible to its operator for 7 days. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    webhookId: integer("webhook_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    status: text("status", { enum: ["pending", "delivered", "retrying", "dead"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event").on(t.webhookId, t.eventId),
    index("webhook_deliveries_webhook").on(t.webhookId, t.id),
    // The daily pruning finds the old rows by it.
    index("webhook_deliveries_created").on(t.createdAt),
  ],
);

/**
 * Disputes of reports, one per report ever: the id is the disputed report's transaction id. Written
 * by the agent's object (its storage decides), listed from here by either side and the admins.
 */
export const disputes = sqliteTable(
  "disputes",
  {
    id: integer("id").primaryKey(),
    sid: text("sid").notNull(),
    ownerOperatorId: integer("owner_operator_id").notNull(),
    reporterOperatorId: integer("reporter_operator_id").notNull(),
    status: text("status", { enum: ["open", "escalated", "resolved"] }).notNull(),
    reason: text("reason").notNull(),
    statement: text("statement"),
    openedAt: text("opened_at").notNull(),
    respondBy: text("respond_by").notNull(),
    resolvedAt: text("resolved_at"),
    outcome: text("outcome", { enum: ["withdrawn", "kept"] }),
    /** Who resolved it: the reporter (its answer) or an admin (its decision). */
    resolvedBy: text("resolved_by", { enum: ["reporter", "admin"] }),
    reporterNote: text("reporter_note"),
    adminNote: text("admin_note"),
  },
  (t) => [
    index("disputes_owner").on(t.ownerOperatorId, t.id),
    index("disputes_reporter").on(t.reporterOperatorId, t.id),
    index("disputes_status").on(t.status, t.id),
    index("disputes_sid").on(t.sid, t.status),
  ],
);

/** Reports withdrawn (by their reporter, or by an admin's decision): three in 90 days penalise the reporter. */
export const withdrawals = sqliteTable(
  "reporter_withdrawals",
  {
    transactionId: integer("transaction_id").primaryKey(),
    operatorId: integer("operator_id").notNull(),
    withdrawnAt: text("withdrawn_at").notNull(),
  },
  (t) => [index("reporter_withdrawals_operator").on(t.operatorId, t.withdrawnAt)],
);

/**
 * Deployment-wide facts of the scoring model, one row each, value JSON: `anchors` (the admins' list,
 * src/db/model-settings.ts) and `credibility_run` (the credibility job's state,
 * src/db/credibility-run.ts). Rows an earlier model wrote (`switch`, `bootstrap`) are no longer read.
 */
export const modelSettings = sqliteTable("model_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: text("updated_at").notNull(),
});
