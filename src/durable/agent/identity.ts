// The agent's identity: callback challenges (level 1), its Ed25519 keys (given as JWKs or found in
// Web Bot Auth key directories), signature challenges and proofs (level 2), and the identity events
// each change tells. Owns the `challenges` and `nonces` tables.

import { agentRow, keyAdded, keyRemoved, type ShardWrite } from "../../db/shard-writes";
import { identityLevelOf, MAX_AGENT_KEYS, type AgentKey } from "../../domain/agent-keys";
import { scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
import { identityEvents } from "../../domain/events";
import type { Result } from "../../domain/results";
import { identityWrite } from "./entry-writes";
import { ok, refuse, Rollback, type AgentHost, type Feature } from "./host";

const DAY_MS = 86_400_000;

export class Identity implements Feature {
  readonly schema = [
    "CREATE TABLE IF NOT EXISTS challenges (token_hash TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS nonces (nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0)",
  ];

  constructor(private readonly host: AgentHost) {}

  private get sql() {
    return this.host.store.sql;
  }

  /** Keeps a callback challenge token (hashed) for the owner to return within its lifetime. */
  addChallenge(ref: AgentRef, input: { tokenHash: string; expiresAt: number }): Promise<Result<null>> {
    return this.host.serial(async () => {
      if (!(await this.host.load(ref))) return refuse("not_found");
      this.sql.exec("INSERT OR REPLACE INTO challenges (token_hash, expires_at, used) VALUES (?, ?, 0)", input.tokenHash, input.expiresAt);
      return ok(null);
    });
  }

  /** A token whose delivery failed may have reached someone: it must never work. */
  voidChallenge(ref: AgentRef, tokenHash: string): Promise<void> {
    return this.host.serial(async () => {
      if (await this.host.load(ref)) this.sql.exec("UPDATE challenges SET used = 1 WHERE token_hash = ?", tokenHash);
    });
  }

  /** The owner returns a challenge token: consumed and the agent raised to level 1, or refused. */
  confirmIdentity(ref: AgentRef, input: { callerId: number; tokenHash: string; now: number }): Promise<Result<{ identityLevel: number }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      const verified = { ...record, callbackVerified: true };
      const next: AgentRecord = { ...verified, identityLevel: identityLevelOf(verified) };
      let consumed = false;
      const { committed } = await this.commitIdentity(record, next, {
        at: input.now,
        also: () => {
          consumed = this.consumeChallenge(input.tokenHash, input.now);
          // Nothing but the token's consumption may be stored when it fails: throwing rolls back.
          if (!consumed) throw new Rollback();
        },
      });
      if (!consumed) return refuse("invalid_challenge");
      if (!committed) return refuse("write_failed");
      return ok({ identityLevel: next.identityLevel }, await host.flush(), true);
    });
  }

  /** The owner registers keys (given as a JWK, or found in a key directory): at most 5 in all. */
  addKeys(
    ref: AgentRef,
    input: { callerId: number; keys: AgentKey[]; directoryUrl: string | null; now: number },
  ): Promise<Result<{ keys: AgentKey[]; identityKey: string | null }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      const fresh = input.keys.filter((k) => !record.keys.some((have) => have.thumbprint === k.thumbprint));
      if (record.keys.length + fresh.length > MAX_AGENT_KEYS) return refuse("too_many_keys");
      const directories = input.directoryUrl ? { ...record.directories, [input.directoryUrl]: input.now } : record.directories;
      const changed: AgentRecord = { ...record, keys: [...record.keys, ...fresh], directories };
      const { record: next, committed } = await this.commitIdentity(record, changed, { shard: fresh.map((k) => keyAdded(changed.sid, k)), keysChanged: fresh.length > 0, at: input.now });
      if (!committed) return refuse("write_failed");
      const registered = input.keys.map((k) => next.keys.find((have) => have.thumbprint === k.thumbprint)!);
      // The proven key's thumbprint too: a key registered again may be it.
      return ok({ keys: registered, identityKey: next.identityKey }, await host.flush());
    });
  }

  listKeys(ref: AgentRef, callerId: number): Promise<Result<{ keys: AgentKey[]; identityKey: string | null }>> {
    return this.host.serial(async () => {
      const record = await this.host.owned(ref, callerId);
      if (!("sid" in record)) return record;
      return ok({ keys: record.keys, identityKey: record.identityKey });
    });
  }

  /** The owner removes a key; if it was the proven one, the agent drops to the level it still holds. */
  removeKey(ref: AgentRef, input: { callerId: number; thumbprint: string; now: number }): Promise<Result<{ identityLevel: number; identityKey: string | null }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      if (!record.keys.some((k) => k.thumbprint === input.thumbprint)) return refuse("key_not_found");
      const changed = withKeys(record, record.keys.filter((k) => k.thumbprint !== input.thumbprint));
      const { record: next, committed } = await this.commitIdentity(record, changed, { shard: [keyRemoved(record.sid, input.thumbprint)], keysChanged: true, at: input.now });
      if (!committed) return refuse("write_failed");
      return ok({ identityLevel: next.identityLevel, identityKey: next.identityKey }, await host.flush(), next.identityLevel !== record.identityLevel);
    });
  }

  /** A fresh nonce the agent must sign within its lifetime, once: nobody can borrow an old signature. */
  issueNonce(ref: AgentRef, input: { callerId: number; nonce: string; expiresAt: number; now: number }): Promise<Result<null>> {
    return this.host.serial(async () => {
      const record = await this.host.owned(ref, input.callerId);
      if (!("sid" in record)) return record;
      this.sql.exec("DELETE FROM nonces WHERE expires_at <= ?", input.now);
      this.sql.exec("INSERT OR IGNORE INTO nonces (nonce, expires_at, used) VALUES (?, ?, 0)", input.nonce, input.expiresAt);
      return ok(null);
    });
  }

  /**
   * A credential request's nonce (one the service issued without storing it), spent once: a
   * replayed request is refused (invalid_nonce). Kept until it expires; it is refused as expired then.
   */
  spendNonce(ref: AgentRef, input: { nonce: string; expiresAt: number; now: number }): Promise<Result<null>> {
    return this.host.serial(async () => {
      if (!(await this.host.load(ref))) return refuse("not_found");
      this.sql.exec("DELETE FROM nonces WHERE expires_at <= ?", input.now);
      const spent = this.sql.exec("INSERT INTO nonces (nonce, expires_at, used) VALUES (?, ?, 1) ON CONFLICT (nonce) DO NOTHING RETURNING nonce", input.nonce, input.expiresAt).toArray();
      return spent.length === 1 ? ok(null) : refuse("invalid_nonce");
    });
  }

  /** What a signature proof is checked against: the keys, and when each key directory was fetched. */
  signatureKeys(ref: AgentRef): Promise<Result<{ keys: AgentKey[]; directories: Record<string, number> }>> {
    return this.host.serial(async () => {
      const record = await this.host.load(ref);
      if (!record) return refuse("not_found");
      return ok({ keys: record.keys, directories: record.directories });
    });
  }

  /** A key directory fetched again: its keys replace the ones it gave before (a key it dropped goes). */
  refreshDirectory(ref: AgentRef, input: { url: string; keys: AgentKey[]; now: number }): Promise<Result<null>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.load(ref);
      if (!record) return refuse("not_found");
      if (!(input.url in record.directories)) return ok(null);
      const others = record.keys.filter((k) => k.directoryUrl !== input.url);
      const kept = input.keys.filter((k) => !others.some((o) => o.thumbprint === k.thumbprint)).slice(0, MAX_AGENT_KEYS - others.length);
      const refreshed = { ...withKeys(record, [...others, ...kept]), directories: { ...record.directories, [input.url]: input.now } };
      const before = new Set(record.keys.map((k) => k.thumbprint));
      const after = new Set(refreshed.keys.map((k) => k.thumbprint));
      const writes = [
        ...record.keys.filter((k) => !after.has(k.thumbprint)).map((k) => keyRemoved(record.sid, k.thumbprint)),
        ...refreshed.keys.filter((k) => !before.has(k.thumbprint)).map((k) => keyAdded(record.sid, k)),
      ];
      const { record: next, committed } = await this.commitIdentity(record, refreshed, { shard: writes, keysChanged: writes.length > 0, at: input.now });
      if (!committed) return refuse("write_failed");
      return ok(null, await host.flush(), next.identityLevel !== record.identityLevel);
    });
  }

  /**
   * A verified signature over the agent's own challenge: the nonce is consumed (it never works
   * twice, whatever happens next) and, if it was issued, unexpired and the key is still registered,
   * the agent is at identity level 2 with that key.
   */
  proveSignature(ref: AgentRef, input: { nonce: string; thumbprint: string; now: number }): Promise<Result<{ identityLevel: number; identityKey: string }>> {
    const { host } = this;
    return host.serial(async () => {
      const record = await host.load(ref);
      if (!record) return refuse("not_found");
      const nonceOk = this.sql.exec("UPDATE nonces SET used = 1 WHERE nonce = ? AND used = 0 AND expires_at > ? RETURNING nonce", input.nonce, input.now).toArray().length === 1;
      if (!nonceOk) return refuse("invalid_nonce");
      if (!record.keys.some((k) => k.thumbprint === input.thumbprint)) return refuse("key_not_registered");
      const proven = { ...record, identityKey: input.thumbprint };
      const { record: next, committed } = await this.commitIdentity(record, { ...proven, identityLevel: identityLevelOf(proven) }, { at: input.now });
      if (!committed) return refuse("write_failed");
      return ok({ identityLevel: next.identityLevel, identityKey: input.thumbprint }, await host.flush(), next.identityLevel !== record.identityLevel);
    });
  }

  /**
   * Commits an identity change: its identity entry (when the level, the proven key or the keys moved)
   * with the record's row and its event.
   */
  private async commitIdentity(before: AgentRecord, after: AgentRecord, change: { shard?: ShardWrite[]; keysChanged?: boolean; at: number; also?: () => void }): Promise<{ record: AgentRecord; committed: boolean }> {
    const events = identityEvents(before, after, change.keysChanged);
    const appended = events.length > 0 ? await this.host.append(after, [identityWrite(after, scoreOfRecord(after, change.at).composite, change.at)]) : null;
    const record = appended?.record ?? after;
    const committed = this.host.commit(record, {
      shard: [...(change.shard ?? []), ...(appended?.shard ?? []), agentRow(record, change.at)],
      leaves: appended?.leaves,
      at: change.at,
      events,
      also: change.also,
    });
    return { record, committed };
  }

  /** Consumes an unexpired, unused challenge token: true once, then never again. */
  private consumeChallenge(tokenHash: string, now: number): boolean {
    const consumed = this.sql
      .exec("UPDATE challenges SET used = 1 WHERE token_hash = ? AND used = 0 AND expires_at > ? RETURNING token_hash", tokenHash, now)
      .toArray();
    this.sql.exec("DELETE FROM challenges WHERE expires_at <= ?", now - DAY_MS);
    return consumed.length === 1;
  }
}

/** The record with these keys; a proven key no longer among them takes level 2 away. */
function withKeys(record: AgentRecord, keys: AgentKey[]): AgentRecord {
  const identityKey = record.identityKey && keys.some((k) => k.thumbprint === record.identityKey) ? record.identityKey : null;
  const next = { ...record, keys, identityKey };
  return { ...next, identityLevel: identityLevelOf(next) };
}
