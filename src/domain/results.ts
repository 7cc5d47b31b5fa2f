// What an agent's object answers: a result, or a refusal the routes turn into an error.

export type Refusal =
  | "not_found"
  | "forbidden"
  | "suspended"
  | "idempotency_conflict"
  | "idempotency_mismatch"
  | "already_claimed"
  | "invalid_claim_token"
  | "invalid_challenge"
  | "already_registered"
  | "too_many_keys"
  | "transaction_not_found"
  | "already_disputed"
  | "dispute_window_closed"
  | "too_many_disputes"
  | "dispute_not_found"
  | "dispute_resolved"
  | "response_window_closed"
  | "dispute_not_escalated"
  | "key_not_found"
  | "invalid_nonce"
  | "key_not_registered"
  | "unavailable"
  | "history_full";

/**
 * `bookmarks`: the D1 bookmarks after the change, by database name (DB, SHARD_n), so the client can
 * read its own write from a replica. `faceChanged`: what public faces (badges) show moved, so their
 * caches must be dropped.
 */
export type Result<T> = { ok: true; result: T; bookmarks?: Record<string, string>; faceChanged?: boolean } | { ok: false; refusal: Refusal };
