import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { SCORE_EVENT_TYPES } from "../domain/agent";

// A shard database (bindings SHARD_0 ... SHARD_{N-1}): agents' rows and their history. Every row
// here is written by the agent's own object (src/durable/agent.ts), in one batch per change,
// idempotently: a batch repeated after a crash changes nothing (history rows are keyed by the
// agent's sequence, the agent's row is written whole).

export const agents = sqliteTable(
  "agents",
  {
    sid: text("sid").primaryKey(),
    /** The agent's directory number (control database): transaction ids are num × 2^22 + seq. */
    num: integer("dir_num"),
    operatorId: integer("operator_id"),
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
    /** The thumbprint of the key the agent proved control of (identity level 2). */
    identityKey: text("identity_key"),
    /** The agent passed the callback challenge (identity level 1), whatever its keys do later. */
    callbackVerified: integer("callback_verified", { mode: "boolean" }).notNull().default(false),
    /** The owner opted in to show the reasons, dimensions, history and open disputes on the public page. */
    publicProfile: integer("public_profile", { mode: "boolean" }).notNull().default(false),
    // Pre-sharding only: the claim token now lives in the agent's object.
    claimTokenHash: text("claim_token_hash"),
    /** The scoring model's aggregates (src/domain/model AgentModel, JSON); reads score them at their own time. */
    evidence: text("evidence").notNull(),
    /**
     * The model the evidence is: 1 the first (pre-sharding rows; the agent's object replays its history),
     * 2 version 2 (until the agent's switch), 3 version 3.
     */
    modelVersion: integer("model_version").notNull().default(1),
    /** R6 across owners: the configuration matched an agent of another owner in caution (SIMILAR_TO_CAUTIONED). */
    similarToCautioned: integer("similar_to_cautioned", { mode: "boolean" }).notNull().default(false),
    // Pre-sharding only: reporters now live inside the evidence.
    reporters: text("reporters").notNull().default("{}"),
    // The score as of updated_at (kept current by the object, at least daily): lists, operator figures.
    composite: integer("composite").notNull().default(500),
    confidence: text("confidence", { enum: ["low", "medium", "high"] })
      .notNull()
      .default("low"),
    recommendation: text("recommendation", { enum: ["clear", "review", "caution"] })
      .notNull()
      .default("review"),
    evidenceTotal: real("evidence_total").notNull().default(0),
    /** Evidence from reporters other than the owner, and the composite it alone gives: the operator score. */
    independentEvidence: real("independent_evidence").notNull().default(0),
    independentComposite: integer("independent_composite").notNull().default(500),
    outcomeCounts: text("outcome_counts").notNull().default("{}"),
    /** The number of the last history entry written. */
    seq: integer("seq").notNull().default(0),
    /** 2: the history is the chain of `entries`; 1: it is still in the tables from before (the agent's object moves it). */
    historyVersion: integer("history_version").notNull().default(1),
    /** The owner's number on the agent, as the evidence keys reporters (null: unclaimed, or the history from before the chain). */
    ownerLocal: integer("owner_local"),
    /** The SHA-256 of the last history entry (the next one chains to it). */
    chainHash: text("chain_hash"),
    /** What the agent's object keeps of the agent beyond these columns (src/db/agent-record.ts RowState, JSON). */
    state: text("state"),
    /** The outbox cursor: the entries up to this number were handed to the queues (src/durable/agent/outbox.ts). */
    published: integer("published").notNull().default(0),
    /** 2: this row is the agent's record (the object keeps no durable copy); 1: the earlier contract, moved by the sweep. */
    contract: integer("contract").notNull().default(1),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("agents_operator").on(t.operatorId, t.createdAt), index("agents_fingerprint").on(t.fingerprint)],
);

/**
 * The agent's history as a chain (src/domain/entries.ts): one row per entry, a report's the only row
 * it writes here. `body` is the entry's canonical JSON (what its hash covers); the other columns are
 * what the service looks up without parsing it, and what it keeps private: the operator an entry
 * names (`operator`, never shown), a report's dispute status, and its free text in clear (`private`)
 * with the `salt` of its hashes (both erased together). No secondary index but one over the few
 * reports carried over from before the chain (`ref`: their transaction ids).
 */
export const entries = sqliteTable(
  "entries",
  {
    sid: text("sid").notNull(),
    n: integer("n").notNull(),
    kind: text("kind").notNull(),
    /** ms since the epoch. */
    at: integer("at").notNull(),
    operator: integer("operator"),
    status: text("status", { enum: ["active", "disputed", "withdrawn"] }),
    ref: integer("ref"),
    body: text("body").notNull(),
    hash: text("hash").notNull(),
    salt: text("salt"),
    private: text("private"),
    /** The composite the entry's leaf commits to (its `score_commit`): what an attestation opens. Null on rows from before it was kept. */
    composite: real("composite"),
    /** A keyed change's caller and Idempotency-Key (`<operator id>\n<key>`, ../domain/idempotency idemOf); the request's hash is in `answer`. */
    idem: text("idem"),
    /** The answer a keyed change gave (JSON): a repeat within 24 hours replays it. */
    answer: text("answer"),
    /** A receipted report's receipt id (single use per agent). */
    jti: text("jti"),
    /** What the entry tells beyond its leaf (events, control-database writes; JSON): the outbox sends it. */
    outbox: text("outbox"),
  },
  (t) => [
    primaryKey({ columns: [t.sid, t.n] }),
    index("entries_ref")
      .on(t.ref)
      .where(sql`ref IS NOT NULL`),
  ],
);

/** An agent's disputes (src/domain/disputes.ts Dispute, JSON), as its object decides them; the control database lists them. */
export const disputesOnShard = sqliteTable(
  "disputes",
  {
    sid: text("sid").notNull(),
    /** The disputed report's transaction id. */
    id: integer("id").notNull(),
    status: text("status", { enum: ["open", "escalated", "resolved"] }).notNull(),
    dispute: text("dispute").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sid, t.id] })],
);

/** Single-use secrets an agent's identity proofs spend: callback challenge tokens (hashed) and signature nonces. */
export const challenges = sqliteTable(
  "challenges",
  {
    sid: text("sid").notNull(),
    token: text("token").notNull(),
    kind: text("kind", { enum: ["callback", "nonce"] }).notNull(),
    expiresAt: integer("expires_at").notNull(),
    used: integer("used", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.sid, t.token] })],
);

/** Before the chain: reports (read once by each agent's object, which moves them into `entries`). */
export const transactions = sqliteTable(
  "transactions",
  {
    /** num × 2^22 + seq; ids issued before sharding are smaller than 1024 × 2^22. */
    id: integer("id").primaryKey({ autoIncrement: true }),
    sid: text("sid")
      .notNull()
      .references(() => agents.sid),
    seq: integer("seq"),
    reporterOperatorId: integer("reporter_operator_id").notNull(),
    transactionType: text("transaction_type").notNull(),
    outcome: text("outcome").notNull(),
    reliabilitySignal: integer("reliability_signal"),
    qualitySignal: integer("quality_signal"),
    financialSignal: integer("financial_signal"),
    securitySignal: integer("security_signal"),
    /** The weight the report counted with when it was made. */
    weight: real("weight").notNull(),
    // The inputs of the weight, so a replay reproduces it: the reporter's base then, its damping, the
    // receipt's factor and the reporter's penalty factor.
    base: real("base"),
    damping: real("damping"),
    evidenceFactor: real("evidence_factor").notNull().default(1),
    penalty: real("penalty").notNull().default(1),
    /** `receipt` when a valid receipt backed the report, else `none`. */
    evidence: text("evidence", { enum: ["receipt", "none"] })
      .notNull()
      .default("none"),
    status: text("status", { enum: ["active", "disputed", "withdrawn"] })
      .notNull()
      .default("active"),
    metadata: text("metadata"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("transactions_sid_outcome").on(t.sid, t.outcome),
    index("transactions_reporter").on(t.sid, t.reporterOperatorId, t.createdAt),
    uniqueIndex("transactions_sid_seq")
      .on(t.sid, t.seq)
      .where(sql`seq IS NOT NULL`),
  ],
);

export const scoreEvents = sqliteTable(
  "score_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sid: text("sid").notNull(),
    seq: integer("seq"),
    eventType: text("event_type", { enum: SCORE_EVENT_TYPES }).notNull(),
    /** The report this event recorded, for transaction events. */
    transactionId: integer("transaction_id"),
    composite: integer("composite").notNull(),
    reliability: integer("reliability").notNull(),
    quality: integer("quality").notNull(),
    financial: integer("financial").notNull(),
    security: integer("security").notNull(),
    stability: integer("stability").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("score_events_sid").on(t.sid, t.id),
    uniqueIndex("score_events_sid_seq")
      .on(t.sid, t.seq)
      .where(sql`seq IS NOT NULL`),
  ],
);

export const configHistory = sqliteTable(
  "config_history",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sid: text("sid").notNull(),
    seq: integer("seq"),
    fingerprint: text("fingerprint").notNull(),
    modelProvider: text("model_provider").notNull(),
    modelName: text("model_name").notNull(),
    changeType: text("change_type"),
    /** Every change found (JSON array), most severe first: a replay decays by all of them. */
    changes: text("changes"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("config_history_sid").on(t.sid, t.id),
    uniqueIndex("config_history_sid_seq")
      .on(t.sid, t.seq)
      .where(sql`seq IS NOT NULL`),
  ],
);

/** The agent's Ed25519 public keys (identity level 2, receipts), as its owner registered them. */
export const agentKeys = sqliteTable(
  "agent_keys",
  {
    sid: text("sid").notNull(),
    /** RFC 7638 thumbprint (SHA-256, base64url): the key's name. */
    thumbprint: text("thumbprint").notNull(),
    /** The public JWK, as JSON. */
    jwk: text("jwk").notNull(),
    /** The Web Bot Auth key directory it was found in, or null for a key given as a JWK. */
    directoryUrl: text("directory_url"),
    addedAt: text("added_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sid, t.thumbprint] })],
);

/**
 * One vote per (agent, reporter) pair (scoring model version 4): the pair's state, written in the
 * batch of the change that moved it, and the columns the cross-agent job reads (it reads nothing
 * else written on the report path). `reporter` is the reporter's commitment on the agent (the
 * history's name for it); `operator_id` the operator, for the job. WITHOUT ROWID in the migration.
 */
export const pairs = sqliteTable(
  "pairs",
  {
    sid: text("sid").notNull(),
    reporter: text("reporter").notNull(),
    operatorId: integer("operator_id").notNull(),
    /** The pair's stability vote (0..1000), −1 when it has none. */
    vote: integer("vote").notNull(),
    /** The pair's first report (ms). */
    firstAt: integer("first_at").notNull(),
    /** The UTC day of the pair's first receipted report, −1 when none. */
    receiptDay: integer("receipt_day").notNull(),
    /** The whole PairState (JSON, without its reporter). */
    pair: text("pair").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sid, t.reporter] })],
);
