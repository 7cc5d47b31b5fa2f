import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { operators } from "./control-schema";

// The tables of the service before sharding, kept in the control database's schema so that its
// migrations never drop them. On a deployment from before sharding the control database is also
// shard 0, and these tables hold shard 0's agents and history (extended by the shard migrations,
// migrations-shard/); on a fresh deployment they stay empty. No code reads them through this file.

export const legacyAgents = sqliteTable(
  "agents",
  {
    sid: text("sid").primaryKey(),
    operatorId: integer("operator_id").references(() => operators.id),
    name: text("name").notNull(),
    description: text("description"),
    status: text("status", { enum: ["active", "suspended"] })
      .notNull()
      .default("active"),
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
    // Scoring state, written only by the agent's object: EvidenceState as JSON,
    // and {operatorId: last report ISO time} of reporters other than the owner (last 90 days).
    evidence: text("evidence").notNull(),
    reporters: text("reporters").notNull().default("{}"),
    // Projections of the evidence at the last update, for the operator score sums and summaries.
    composite: integer("composite").notNull().default(500),
    evidenceTotal: real("evidence_total").notNull().default(0),
    outcomeCounts: text("outcome_counts").notNull().default("{}"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("agents_operator").on(t.operatorId, t.createdAt)],
);

export const legacyTransactions = sqliteTable(
  "transactions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sid: text("sid")
      .notNull()
      .references(() => legacyAgents.sid),
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
  },
  (t) => [index("transactions_sid_outcome").on(t.sid, t.outcome), index("transactions_reporter").on(t.sid, t.reporterOperatorId, t.createdAt)],
);

export const legacyScoreEvents = sqliteTable(
  "score_events",
  {
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
  },
  (t) => [index("score_events_sid").on(t.sid, t.id)],
);

export const legacyConfigHistory = sqliteTable(
  "config_history",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sid: text("sid").notNull(),
    fingerprint: text("fingerprint").notNull(),
    modelProvider: text("model_provider").notNull(),
    modelName: text("model_name").notNull(),
    changeType: text("change_type"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("config_history_sid").on(t.sid, t.id)],
);

export const legacyIdempotencyRecords = sqliteTable(
  "idempotency_records",
  {
    operatorId: integer("operator_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    response: text("response").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.operatorId, t.key] }), index("idempotency_created").on(t.createdAt)],
);

export const legacyChallenges = sqliteTable(
  "challenges",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sid: text("sid").notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("challenges_token").on(t.tokenHash), index("challenges_sid").on(t.sid)],
);
