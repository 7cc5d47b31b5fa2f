// The Worker's bindings, as `wrangler types` would declare them. Declared here, ambiently, so that
// src/env.ts (the lowest floor) names the Durable Object classes without importing them.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index");
    durableNamespaces: "Agent" | "RateLimiter" | "StatusList" | "LogSequencer";
  }

  interface Env {
    /** The control database: operators, keys, applications, waitlist, the agent directory. */
    DB: D1Database;
    /** Shard databases: agents and their history. Bindings SHARD_0 ... SHARD_{N-1}, contiguous. */
    SHARD_0: D1Database;
    SHARD_1?: D1Database;
    [shard: `SHARD_${number}`]: D1Database | undefined;
    /** Shards that take new agents, e.g. "1,2" (default: every shard): a full shard stops growing. */
    PLACEMENT_SHARDS?: string;
    /** The secret of reporters' commitments in history entries: HMAC(key, sid ‖ operator id). Never exported. */
    REPORTER_KEY?: string;
    AGENT: DurableObjectNamespace<import("./durable/agent").Agent>;
    RATE_LIMITER: DurableObjectNamespace<import("./durable/rate-limiter").RateLimiter>;
    /** One object per status list (named `list:<n>`): the agents' 2-bit values and the list built from them. */
    STATUS_LIST: DurableObjectNamespace<import("./durable/status-list").StatusList>;
    /** The transparency log's sequencers: one object per log, named `log:<n>`. */
    LOG_SEQUENCER: DurableObjectNamespace<import("./durable/log-sequencer").LogSequencer>;
    /** The logs' tiles, entry bundles and checkpoints, written by the sequencers, read by GET /log/... */
    LOG_BUCKET: R2Bucket;
    /** The credibility job's snapshots and the pages of pairs its run in progress staged (src/db/snapshot.ts). */
    MODEL_BUCKET: R2Bucket;
    /** Agents' history entries older than the retention window, as compressed pages (src/db/history-archive.ts). */
    ARCHIVE_BUCKET: R2Bucket;
    /** Days of history the shards keep (default 400, at least 200); older entries move to ARCHIVE_BUCKET daily. */
    HISTORY_WINDOW_DAYS?: string;
    /** Pairs one run of the cross-agent job computes at most (default 1,000,000: a Worker's 128 MB). */
    CREDIBILITY_MAX_PAIRS?: string;
    /** Leaves on their way from agents' objects to the sequencers (the trust-log queue). */
    LOG_QUEUE?: Queue<import("./domain/log/messages").LogMessage>;
    /** How many logs there are (logs 0 ... LOG_COUNT-1; default 1). Only ever raised. */
    LOG_COUNT?: string;
    /**
     * The service's public origin (`https://trust.example.com`): the issuer of its attestations and
     * the base of its URLs, whatever Host a request came with, and the host of the logs it creates
     * (`<host>/log/<n>`, fixed when a log is created). `npm start` sets it from the port it serves on.
     */
    PUBLIC_ORIGIN?: string;
    /**
     * Origins besides PUBLIC_ORIGIN whose pages may call /mcp (comma-separated, e.g.
     * "https://trust-dev.example.com"); a request with any other Origin is 403. Clients that are not
     * browsers send no Origin and are not affected.
     */
    MCP_ALLOWED_ORIGINS?: string;
    /** Names agents in the log, HMAC-SHA256(LOG_KEY, sid): 32 random bytes, base64 (a Worker secret). */
    LOG_KEY?: string;
    /** Checkpoint signing keys: a JSON array of private Ed25519 JWKs or base64 seeds; all sign, all are published. */
    LOG_SIGNING_KEYS?: string;
    /** Static assets (public/: the /docs page), served before the Worker for their paths only. */
    ASSETS: Fetcher;
    ADMIN_TOKEN?: string;
    /** The previous admin secret, accepted until ADMIN_TOKEN_PREVIOUS_UNTIL (at most 7 days ahead). */
    ADMIN_TOKEN_PREVIOUS?: string;
    ADMIN_TOKEN_PREVIOUS_UNTIL?: string;
    /** "true" only in local development: admin approval and recovery answers carry the key. */
    RETURN_KEYS_IN_RESPONSES?: string;
    DOH_ENDPOINT?: string;
    /**
     * "true" in local development only (.dev.vars.example): webhooks may be delivered over plain http
     * to 127.0.0.1, [::1] and localhost, and only while PUBLIC_ORIGIN is itself loopback; otherwise
     * ignored, with an error logged (src/net/loopback.ts).
     */
    ALLOW_LOOPBACK_WEBHOOKS?: string;
    /** Events leaving agents' objects (their outboxes), fanned out to webhook deliveries. */
    EVENTS?: Queue<import("./domain/events").AgentEvent>;
    /** One message per webhook delivery, retried with backoff for 24 hours. */
    DELIVERIES?: Queue<import("./queues/deliveries").DeliveryMessage>;
    /** Deliveries that failed for 24 hours. */
    DEAD_LETTERS?: Queue<import("./queues/deliveries").DeliveryMessage>;
    /** Seals webhook signing secrets at rest: 32 random bytes, base64 (a Worker secret). */
    WEBHOOK_SECRET_KEY?: string;
    /** During a rotation of WEBHOOK_SECRET_KEY: the key it replaces, which still opens what it sealed. */
    WEBHOOK_SECRET_KEY_PREVIOUS?: string;
    /** Attestation signing keys: a JSON array of private Ed25519 JWKs; the first signs, all are published. */
    ATTESTATION_KEYS?: string;
    /** Seconds between rebuilds of a status list at most (1-60, default 60); lower only in tests under wrangler dev. */
    STATUS_LIST_REBUILD_S?: string;
    /** "true" only for the benchmark: every D1 call is counted (GET /admin/d1-meter). */
    D1_METER?: string;
    /** Optional `send_email` binding for keys (approval, recovery). */
    EMAIL?: SendEmail;
    EMAIL_FROM?: string;
  }
}
