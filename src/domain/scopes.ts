// What an API key may do. Stored with each key as a space-separated list.

export const SCOPES = [
  "agents:read",
  "agents:write",
  "transactions:write",
  "verify:write",
  "keys:write",
  "identity:write",
  "webhooks:write",
  "disputes:write",
] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What a key keeps during its rotation grace period: what running traffic needs. Whoever holds an
 * old or leaked key can never leave behind a credential that outlives it (a key, an agent signing
 * key, a webhook) nor withdraw reports.
 */
export const GRACE_SCOPES: readonly Scope[] = ["agents:read", "agents:write", "transactions:write", "verify:write"];

export const parseScopes = (stored: string): Scope[] => stored.split(" ").filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));

/** The scopes a key holds at `now`: all it was given, or only the grace scopes once it was rotated. */
export function effectiveScopes(stored: string, expiresAt: string | null): Scope[] {
  const scopes = parseScopes(stored);
  return expiresAt === null ? scopes : scopes.filter((s) => GRACE_SCOPES.includes(s));
}
