import { DurableObject } from "cloudflare:workers";

/**
 * Nonces of signatures already seen, for sites whose policy requires them (NONCES = "required"): a
 * nonce is kept until its signature expires, and a second request with it is a replay. One object
 * per slice of nonces (the first hex digit of their hash), so one hot object does not carry a site.
 */
export class NonceStore extends DurableObject<Record<string, never>> {
  constructor(ctx: DurableObjectState, env: Record<string, never>) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS seen (nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)");
  }

  /** True the first time a nonce is seen before `expiresAt`; false for a replay. */
  firstSight(nonce: string, expiresAt: number, now: number): boolean {
    const sql = this.ctx.storage.sql;
    sql.exec("DELETE FROM seen WHERE expires_at <= ?", now);
    return sql.exec("INSERT INTO seen (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING RETURNING nonce", nonce, expiresAt).toArray().length === 1;
  }
}

/** The object that keeps `nonce`. */
export async function nonceSlice(namespace: DurableObjectNamespace<NonceStore>, nonce: string) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(nonce)));
  return namespace.getByName(`nonces:${(digest[0] >> 4).toString(16)}`);
}
