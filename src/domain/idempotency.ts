// Idempotency-Key: a repeat of a change with the same key and body replays the first answer.

/** Records answer repeats for this long. */
export const IDEMPOTENCY_TTL_MS = 86_400_000;

export interface Idempotency {
  key: string;
  /** A hash of what the request asks for (method, path, validated body). */
  requestHash: string;
}

/** The entry row's `idem`: the caller and its key. */
export const idemOf = (operatorId: number, key: string) => `${operatorId}\n${key}`;
