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
  | "write_failed";

/**
 * `bookmark`: the D1 bookmark after the change, so the client can read its own write from a replica.
 * `faceChanged`: what public faces (badges) show moved, so their caches must be dropped.
 */
export type Result<T> = { ok: true; result: T; bookmark: string | null; faceChanged?: boolean } | { ok: false; refusal: Refusal };
