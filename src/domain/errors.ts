import type { Refusal } from "./results";

// The one error type of the service. Handlers and the domain throw ApiError; the presentation layer
// (src/http/wire) renders it as Form A `{error}` or Form B `{error: {code, message}}`.

export const ERROR_STATUS = {
  invalid_request: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  invalid_signature: 401,
  revoked_api_key: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  idempotency_mismatch: 422,
  rate_limited: 429,
  internal_error: 500,
  callback_failed: 502,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export class ApiError extends Error {
  readonly status: (typeof ERROR_STATUS)[ErrorCode];
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    // An expected answer, not a bug: capturing a stack trace would be most of its cost, which
    // matters when a client floods 401s or 429s.
    const v8 = Error as ErrorConstructor & { stackTraceLimit?: number };
    const limit = v8.stackTraceLimit;
    v8.stackTraceLimit = 0;
    super(message);
    v8.stackTraceLimit = limit;
    this.code = code;
    this.headers = headers;
    this.status = ERROR_STATUS[code];
  }
}

export const KEY_PREFIX = "sk_svc_";

/**
 * The MCP endpoint's JSON-RPC errors answered before any tool runs (protocol errors, not Form A or
 * B bodies): `{jsonrpc: "2.0", id, error: {code, message}}` with these messages.
 */
export const protocolErrors = {
  unsupportedMediaType: { code: -32000, message: "Unsupported Media Type: Content-Type must be application/json" },
  forbiddenOrigin: { code: -32000, message: "Forbidden: this Origin may not call /mcp" },
  batchTooLarge: (max: number) => ({ code: -32600, message: `Invalid Request: a batch holds at most ${max} messages` }),
  /** A request its method's schema refuses (`arguments` not an object, `name` not a string): one line, never the validator's dump. */
  invalidParams: (where: string, problem: string) => ({ code: -32602, message: `Invalid params: ${where ? `${where}: ` : ""}${problem.replace(/\s+/g, " ")}` }),
};

/** The wait a 503 of an agent's change asks for: a shard that failed a batch is usually back within seconds. */
export const RETRY_AFTER_S = 5;

// The spec's exact texts, in one place.
export const errors = {
  invalidJson: () => new ApiError("invalid_request", "Invalid JSON body"),
  invalid: (message: string) => new ApiError("invalid_request", message),
  missingFields: (fields: string[]) => new ApiError("invalid_request", `Missing required fields: ${fields.join(", ")}`),
  invalidSid: () => new ApiError("invalid_request", "Invalid SID format. Expected: SID-0x[16 hex chars]"),
  missingAuth: () => new ApiError("missing_api_key", `Missing or invalid Authorization header. Use: Bearer ${KEY_PREFIX}...`),
  badKeyFormat: () => new ApiError("invalid_api_key", "Invalid API key format"),
  unknownKey: () => new ApiError("invalid_api_key", "Invalid API key"),
  // Form A has no separate text for a rotated or revoked key: it is simply not a valid key.
  revokedKey: () => new ApiError("revoked_api_key", "Invalid API key"),
  insufficientScope: (scope: string) => new ApiError("insufficient_scope", `Forbidden: this API key lacks the ${scope} scope`),
  notOwner: () => new ApiError("forbidden", "Forbidden: you do not own this agent"),
  agentNotFound: () => new ApiError("not_found", "Agent not found"),
  notFound: (what = "Not found") => new ApiError("not_found", what),
  bodyTooLarge: () => new ApiError("payload_too_large", "Request body too large"),
  rateLimited: (retryAfter: number, headers: Record<string, string> = {}) =>
    new ApiError("rate_limited", "Too many requests. Please try again later.", {
      ...headers,
      "Retry-After": String(retryAfter),
    }),
  adminOnly: () => new ApiError("invalid_api_key", "Invalid admin token"),
  adminNotConfigured: () => new ApiError("unavailable", "Admin interface is not configured"),
  keyDeliveryUnavailable: () =>
    new ApiError(
      "unavailable",
      "No way to deliver the key: configure e-mail (EMAIL and EMAIL_FROM) or, in local development only, RETURN_KEYS_IN_RESPONSES=true. Nothing was issued.",
    ),
  keyEmailFailed: () => new ApiError("unavailable", "The key could not be e-mailed; nothing was issued. Retry later."),
  methodNotAllowed: (allow: string) => new ApiError("method_not_allowed", "Method not allowed", { Allow: allow }),
  unreadableBody: () => new ApiError("invalid_request", "Request body could not be read"),
  resolverUnavailable: () => new ApiError("unavailable", "Outbound requests are not configured (DOH_ENDPOINT must be an https URL)"),
  badId: (field = "id") => new ApiError("invalid_request", `${field} must be a positive decimal integer`),
  badCursor: () => new ApiError("invalid_request", "Invalid cursor"),
  notJsonObject: () => new ApiError("invalid_request", "Request body must be a JSON object"),
  badApiVersion: () => new ApiError("invalid_request", "Invalid API-Version header. Expected: A or B"),
  badIdempotencyKey: () => new ApiError("invalid_request", "Idempotency-Key must be 1-255 characters"),
  internal: () => new ApiError("internal_error", "Internal server error"),
  missingAuthentication: () => new ApiError("internal_error", "Route is missing authentication"),
  applicationNotFound: () => new ApiError("not_found", "Application not found"),
  applicationDecided: (status: string) => new ApiError("conflict", `Application is already ${status}`),
  applicationRaced: () => new ApiError("conflict", "Application was approved concurrently"),
  duplicateApplication: () => new ApiError("conflict", "An application with this email already exists."),
  operatorNotFound: () => new ApiError("not_found", "Operator not found"),
  keyNotFound: () => new ApiError("not_found", "API key not found"),
  keyAlreadyRevoked: () => new ApiError("conflict", "API key is already revoked"),
  lastKey: () => new ApiError("conflict", "Cannot revoke the operator's last valid API key; create or rotate a key first"),
  tooManyVerifications: (retryAfter: number) => new ApiError("rate_limited", "Too many verification attempts", { "Retry-After": String(retryAfter) }),
  callbackFailed: () => new ApiError("callback_failed", "Callback delivery failed"),
  /** A signature proof (identity level 2) that does not hold; the signature is the credential. */
  signatureRefused: (reason: string) => new ApiError("invalid_signature", `Signature verification failed: ${reason}`),
  disputeNotFound: () => new ApiError("not_found", "Dispute not found"),
  transactionNotFound: () => new ApiError("not_found", "Transaction not found"),
  webhooksNotConfigured: () => new ApiError("unavailable", "Webhooks are not configured (WEBHOOK_SECRET_KEY)"),
  tooManyWebhooks: (max: number) => new ApiError("conflict", `An operator has at most ${max} webhook endpoints; delete one first`),
  tooManyWatches: (max: number) => new ApiError("conflict", `An operator watches at most ${max} agents; stop watching one first`),
  webhookNotFound: () => new ApiError("not_found", "Webhook not found"),
  tooManyWebhookTests: (retryAfter: number) =>
    new ApiError("rate_limited", "Too many test events: at most 10 per minute per operator", { "Retry-After": String(retryAfter) }),
  notWatching: () => new ApiError("not_found", "Not watching this agent"),
  attestationsNotConfigured: () => new ApiError("unavailable", "Attestations are not configured"),
  suspendedAttestation: () => new ApiError("conflict", "Agent is suspended: no attestation is issued"),
  badJwk: (problem: string) => new ApiError("invalid_request", problem),
  statusListNotFound: () => new ApiError("not_found", "Status list not found"),
  statusListsUnavailable: () => new ApiError("unavailable", "The status lists cannot be reached: no credential is issued without a status. Retry later."),
  suspendedCredential: () => new ApiError("conflict", "Agent is suspended: no credential is issued"),
  credentialNeedsLevel2: (level: number) =>
    new ApiError(
      "conflict",
      `Credentials are issued at identity level 2 (Signature-Verified) only; this agent is at level ${level}: its owner registers a key and the agent proves it (POST /agents/{sid}/verify/signature)`,
    ),
  tooManyCredentials: (retryAfter: number) =>
    new ApiError("rate_limited", "Too many credentials issued for this agent: at most 10 per hour", { "Retry-After": String(retryAfter) }),
  keyDirectoryFailed: (reason: string) => new ApiError("callback_failed", `Key directory could not be read: ${reason}`),
  badLogNumber: (count: number) => new ApiError("invalid_request", `Invalid log number: logs are numbered 0 to ${count - 1}`),
  unknownLog: (count: number) => new ApiError("not_found", `Unknown log: logs are numbered 0 to ${count - 1}`),
  badTilePath: () =>
    new ApiError(
      "invalid_request",
      "Invalid tile path: expected tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>] (C2SP tlog-tiles; N in three-digit groups, e.g. x001/234)",
    ),
  tileBeyondTree: (size: number) => new ApiError("not_found", `Tile not found: the log's tree has ${size} ${size === 1 ? "leaf" : "leaves"}`),
  noCheckpoint: () => new ApiError("not_found", "The log has no checkpoint yet"),
  logKeyNotConfigured: () => new ApiError("unavailable", "The transparency log is not configured (LOG_KEY)"),
  logNotConfigured: () => new ApiError("unavailable", "The transparency log is not configured (LOG_SIGNING_KEYS)"),
  /** R2 could not give the credibility snapshot: the values in force stay. */
  snapshotUnavailable: (why: string) =>
    new ApiError("unavailable", `The credibility snapshot cannot be read (${why}); retry later`, { "Retry-After": String(RETRY_AFTER_S) }),
} as const;

/** What an agent object's refusals mean to a client. */
export function refusalError(refusal: Refusal): ApiError {
  switch (refusal) {
    case "not_found":
      return errors.agentNotFound();
    case "forbidden":
      return errors.notOwner();
    case "suspended":
      return new ApiError("conflict", "Agent is suspended and accepts no transactions");
    case "already_claimed":
      return new ApiError("conflict", "Agent is already claimed");
    case "invalid_claim_token":
      return errors.invalid("Invalid claim token");
    case "invalid_challenge":
      return errors.invalid("Invalid or expired challenge token");
    case "idempotency_mismatch":
      return new ApiError("idempotency_mismatch", "Idempotency-Key was already used with a different request");
    case "transaction_not_found":
      return new ApiError("not_found", "Transaction not found");
    case "already_disputed":
      return new ApiError("conflict", "This report was already disputed: one dispute per report");
    case "dispute_window_closed":
      return new ApiError("conflict", "A report can be disputed within 90 days of it");
    case "too_many_disputes":
      return new ApiError("conflict", "An agent has at most 5 open disputes");
    case "dispute_not_found":
      return new ApiError("not_found", "Dispute not found");
    case "dispute_resolved":
      return new ApiError("conflict", "The dispute is already resolved");
    case "response_window_closed":
      return new ApiError("conflict", "The 14 days to answer have passed: the dispute is with the admins");
    case "dispute_not_escalated":
      return new ApiError("conflict", "Admins decide disputes the reporter did not answer in time");
    case "too_many_keys":
      return new ApiError("conflict", "An agent has at most 5 keys; delete one first");
    case "key_not_found":
      return new ApiError("not_found", "Key not found");
    case "invalid_nonce":
      return errors.signatureRefused("the nonce is not a challenge issued for this agent, or it was used or has expired");
    case "key_not_registered":
      return errors.signatureRefused("keyid is not a key registered for this agent");
    case "already_registered":
      return new ApiError("conflict", "Agent is already registered");
    case "history_full":
      return new ApiError("conflict", "Agent history is full: an agent records at most 4,194,303 events");
    case "unavailable":
      // The agent's shard did not answer, or answered so that the change may or may not be on it:
      // a repeat with the same Idempotency-Key is safe either way (docs/decisions.md).
      return new ApiError("unavailable", "Service temporarily unavailable", { "Retry-After": String(RETRY_AFTER_S) });
    case "idempotency_conflict":
      // A concurrent request with the same key won, but its record is not readable yet: retryable.
      return new ApiError("unavailable", "A request with this Idempotency-Key is in progress; retry");
  }
}
