import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// Timestamps are ISO 8601 strings in UTC (what the wire shows); rate and expiry arithmetic is done
// on Date values in code.

export const applications = sqliteTable("applications", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  email: text("email").notNull(),
  company: text("company"),
  reason: text("reason"),
  status: text("status", { enum: ["pending", "approved", "rejected"] }).notNull().default("pending"),
  operatorId: integer("operator_id"),
  createdAt: text("created_at").notNull(),
  decidedAt: text("decided_at"),
}, (t) => [uniqueIndex("applications_email").on(t.email), index("applications_status").on(t.status, t.id)]);

export const operators = sqliteTable("operators", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  email: text("email").notNull(),
  verified: integer("verified", { mode: "boolean" }).notNull().default(false),
  tier: text("tier", { enum: ["free", "growth", "enterprise"] }).notNull().default("free"),
  rateLimitPerMinute: integer("rate_limit_per_minute"),
  rateLimitPerDay: integer("rate_limit_per_day"),
  // Projection kept by the agents' scorer objects (deltas, so concurrent agents never overwrite each
  // other): sums over the operator's agents of evidence and evidence x composite, as of each agent's
  // last score update. The operator score is derived from them without reading every agent.
  agentEvidence: real("agent_evidence").notNull().default(0),
  // Bumped with every change to facts that isolates cache about the operator's keys (revocation,
  // rotation, tier, verification); see src/http/key-cache.ts.
  authEpoch: integer("auth_epoch").notNull().default(0),
  agentWeightedComposite: real("agent_weighted_composite").notNull().default(0),
  createdAt: text("created_at").notNull(),
}, (t) => [uniqueIndex("operators_email").on(t.email)]);

export const apiKeys = sqliteTable("api_keys", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  operatorId: integer("operator_id").notNull().references(() => operators.id),
  keyHash: text("key_hash").notNull(),
  prefix: text("prefix").notNull(),
  scopes: text("scopes").notNull(),
  createdAt: text("created_at").notNull(),
  // Set when the key was rotated: the end of its grace period.
  expiresAt: text("expires_at"),
  revokedAt: text("revoked_at"),
}, (t) => [uniqueIndex("api_keys_hash").on(t.keyHash), index("api_keys_operator").on(t.operatorId)]);

export const agents = sqliteTable("agents", {
  sid: text("sid").primaryKey(),
  operatorId: integer("operator_id").references(() => operators.id),
  name: text("name").notNull(),
  description: text("description"),
  status: text("status", { enum: ["active", "suspended"] }).notNull().default("active"),
  modelProvider: text("model_provider").notNull(),
  modelName: text("model_name").notNull(),
  systemPromptHash: text("system_prompt_hash"),
  tools: text("tools").notNull().default("[]"),
  memoryConfig: text("memory_config"),
  fingerprint: text("fingerprint").notNull(),
  configVersion: integer("config_version").notNull().default(1),
  lastConfigChangeAt: text("last_config_change_at").notNull(),
  identityLevel: integer("identity_level").notNull().default(0),
  claimTokenHash: text("claim_token_hash"),
  // Scoring state, written only by the agent's AgentScorer object: EvidenceState as JSON,
  // and {operatorId: last report ISO time} of reporters other than the owner (last 90 days).
  evidence: text("evidence").notNull(),
  reporters: text("reporters").notNull().default("{}"),
  // Projections of the evidence at the last update, for the operator score sums and summaries.
  composite: integer("composite").notNull().default(500),
  evidenceTotal: real("evidence_total").notNull().default(0),
  outcomeCounts: text("outcome_counts").notNull().default("{}"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
}, (t) => [index("agents_operator").on(t.operatorId, t.createdAt)]);

export const transactions = sqliteTable("transactions", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  sid: text("sid").notNull().references(() => agents.sid),
  reporterOperatorId: integer("reporter_operator_id").notNull(),
  transactionType: text("transaction_type").notNull(),
  outcome: text("outcome").notNull(),
  reliabilitySignal: integer("reliability_signal"),
  qualitySignal: integer("quality_signal"),
  financialSignal: integer("financial_signal"),
  securitySignal: integer("security_signal"),
  weight: real("weight").notNull(),
  metadata: text("metadata"),
  createdAt: text("created_at").notNull(),
}, (t) => [
  index("transactions_sid_outcome").on(t.sid, t.outcome),
  index("transactions_reporter").on(t.sid, t.reporterOperatorId, t.createdAt),
]);

export const scoreEvents = sqliteTable("score_events", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  sid: text("sid").notNull(),
  eventType: text("event_type").notNull(),
  composite: integer("composite").notNull(),
  reliability: integer("reliability").notNull(),
  quality: integer("quality").notNull(),
  financial: integer("financial").notNull(),
  security: integer("security").notNull(),
  stability: integer("stability").notNull(),
  createdAt: text("created_at").notNull(),
}, (t) => [index("score_events_sid").on(t.sid, t.id)]);

export const configHistory = sqliteTable("config_history", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  sid: text("sid").notNull(),
  fingerprint: text("fingerprint").notNull(),
  modelProvider: text("model_provider").notNull(),
  modelName: text("model_name").notNull(),
  changeType: text("change_type"),
  createdAt: text("created_at").notNull(),
}, (t) => [index("config_history_sid").on(t.sid, t.id)]);

export const idempotencyRecords = sqliteTable("idempotency_records", {
  operatorId: integer("operator_id").notNull(),
  key: text("key").notNull(),
  requestHash: text("request_hash").notNull(),
  status: integer("status").notNull(),
  response: text("response").notNull(),
  createdAt: text("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.operatorId, t.key] }), index("idempotency_created").on(t.createdAt)]);

export const challenges = sqliteTable("challenges", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  sid: text("sid").notNull(),
  tokenHash: text("token_hash").notNull(),
  expiresAt: text("expires_at").notNull(),
  usedAt: text("used_at"),
  createdAt: text("created_at").notNull(),
}, (t) => [uniqueIndex("challenges_token").on(t.tokenHash), index("challenges_sid").on(t.sid)]);

export const waitlist = sqliteTable("waitlist", {
  email: text("email").primaryKey(),
  role: text("role"),
  createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});
