// The agent's identity: callback challenges (level 1), its Ed25519 keys (given as JWKs or found in
// Web Bot Auth key directories), signature challenges and proofs (level 2), and the identity events
// each change tells. Challenge tokens (hashed) and nonces are single-use rows of the shard's
// `challenges` table, written through this object only.

import { identityLevelOf, MAX_AGENT_KEYS, type AgentKey } from "../../domain/agent-keys";
import { scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
import { identityEvents } from "../../domain/events";
import type { Result } from "../../domain/results";
import type { ShardWrite } from "../../db/shard-writes";
import { identityWrite } from "../../db/entry-writes";
import { answer, ok, owned, refuse, type AgentHost, type Change, type Outcome } from "./host";

type Kind = "callback" | "nonce";
type Stored = { expires_at: number; used: number };

export class Identity {
  constructor(private readonly host: AgentHost) {}

  private async challenge(ref: AgentRef, token: string): Promise<Stored | null> {
    return this.host
      .shard(ref.shard)
      .withSession("first-primary")
      .prepare("SELECT expires_at, used FROM challenges WHERE sid = ? AND token = ?")
      .bind(ref.sid, token)
      .first<Stored>();
  }

  /** Keeps a callback challenge token (hashed) for the owner to return within its lifetime. */
  addChallenge(ref: AgentRef, input: { tokenHash: string; expiresAt: number }): Promise<Result<null>> {
    return this.host.change(ref, {
      async run(group) {
        if (!group.record) return answer(refuse("not_found"));
        return { change: rowOnly(group.record, [put(ref.sid, input.tokenHash, "callback", input.expiresAt, false)]), answer: () => null };
      },
    });
  }

  /** A token whose delivery failed may have reached someone: it must never work. */
  async voidChallenge(ref: AgentRef, tokenHash: string): Promise<void> {
    await this.host.change(ref, {
      async run(group) {
        if (!group.record) return answer(refuse("not_found"));
        return { change: rowOnly(group.record, [put(ref.sid, tokenHash, "callback", 0, true)]), answer: () => null };
      },
    });
  }

  /** The owner returns a challenge token: consumed and the agent raised to level 1, or refused. */
  confirmIdentity(ref: AgentRef, input: { callerId: number; tokenHash: string; now: number }): Promise<Result<{ identityLevel: number }>> {
    return this.host.change(ref, {
      run: async (group) => {
        const record = owned(group, input.callerId);
        if (!("sid" in record)) return answer(record);
        const stored = await this.challenge(ref, input.tokenHash);
        if (!stored || stored.used || stored.expires_at <= input.now) return answer(refuse("invalid_challenge"));
        const verified = { ...record, callbackVerified: true };
        const next: AgentRecord = { ...verified, identityLevel: identityLevelOf(verified) };
        return identityChange(record, next, input.now, {
          rows: [
            put(ref.sid, input.tokenHash, "callback", stored.expires_at, true),
            { kind: "challengesExpired", sid: ref.sid, before: input.now - 86_400_000 },
          ],
          answer: (r) => ({ identityLevel: r.identityLevel }),
        });
      },
    });
  }

  /** The owner registers keys (given as a JWK, or found in a key directory): at most 5 in all. */
  addKeys(
    ref: AgentRef,
    input: { callerId: number; keys: AgentKey[]; directoryUrl: string | null; now: number },
  ): Promise<Result<{ keys: AgentKey[]; identityKey: string | null }>> {
    return this.host.change(ref, {
      async run(group) {
        const record = owned(group, input.callerId);
        if (!("sid" in record)) return answer(record);
        const fresh = input.keys.filter((k) => !record.keys.some((have) => have.thumbprint === k.thumbprint));
        if (record.keys.length + fresh.length > MAX_AGENT_KEYS) return answer(refuse("too_many_keys"));
        const directories = input.directoryUrl ? { ...record.directories, [input.directoryUrl]: input.now } : record.directories;
        const changed: AgentRecord = { ...record, keys: [...record.keys, ...fresh], directories };
        // The proven key's thumbprint too: a key registered again may be it.
        return identityChange(record, changed, input.now, {
          keysChanged: fresh.length > 0,
          answer: (r) => ({ keys: input.keys.map((k) => r.keys.find((have) => have.thumbprint === k.thumbprint)!), identityKey: r.identityKey }),
        });
      },
    });
  }

  async listKeys(ref: AgentRef, callerId: number): Promise<Result<{ keys: AgentKey[]; identityKey: string | null }>> {
    const loaded = await this.host.exclusive(() => this.host.read(ref));
    if (!loaded) return refuse("not_found");
    if (loaded.record.operatorId !== callerId) return refuse("forbidden");
    return ok({ keys: loaded.record.keys, identityKey: loaded.record.identityKey });
  }

  /** The owner removes a key; if it was the proven one, the agent drops to the level it still holds. */
  removeKey(
    ref: AgentRef,
    input: { callerId: number; thumbprint: string; now: number },
  ): Promise<Result<{ identityLevel: number; identityKey: string | null }>> {
    return this.host.change(ref, {
      async run(group) {
        const record = owned(group, input.callerId);
        if (!("sid" in record)) return answer(record);
        if (!record.keys.some((k) => k.thumbprint === input.thumbprint)) return answer(refuse("key_not_found"));
        const changed = withKeys(
          record,
          record.keys.filter((k) => k.thumbprint !== input.thumbprint),
        );
        return identityChange(record, changed, input.now, {
          keysChanged: true,
          answer: (r) => ({ identityLevel: r.identityLevel, identityKey: r.identityKey }),
        });
      },
    });
  }

  /** A fresh nonce the agent must sign within its lifetime, once: nobody can borrow an old signature. */
  issueNonce(ref: AgentRef, input: { callerId: number; nonce: string; expiresAt: number; now: number }): Promise<Result<null>> {
    return this.host.change(ref, {
      async run(group) {
        const record = owned(group, input.callerId);
        if (!("sid" in record)) return answer(record);
        return {
          change: rowOnly(record, [{ kind: "challengesExpired", sid: ref.sid, before: input.now }, put(ref.sid, input.nonce, "nonce", input.expiresAt, false)]),
          answer: () => null,
        };
      },
    });
  }

  /**
   * A credential request's nonce (one the service issued without storing it), spent once: a
   * replayed request is refused (invalid_nonce). Kept until it expires; it is refused as expired then.
   */
  spendNonce(ref: AgentRef, input: { nonce: string; expiresAt: number; now: number }): Promise<Result<null>> {
    return this.host.change(ref, {
      run: async (group) => {
        if (!group.record) return answer(refuse("not_found"));
        const stored = await this.challenge(ref, input.nonce);
        if (stored && stored.expires_at > input.now) return answer(refuse("invalid_nonce"));
        return { change: rowOnly(group.record, [put(ref.sid, input.nonce, "nonce", input.expiresAt, true)]), answer: () => null };
      },
    });
  }

  /** What a signature proof is checked against: the keys, and when each key directory was fetched. */
  async signatureKeys(ref: AgentRef): Promise<Result<{ keys: AgentKey[]; directories: Record<string, number> }>> {
    const loaded = await this.host.exclusive(() => this.host.read(ref));
    return loaded ? ok({ keys: loaded.record.keys, directories: loaded.record.directories }) : refuse("not_found");
  }

  /** A key directory fetched again: its keys replace the ones it gave before (a key it dropped goes). */
  refreshDirectory(ref: AgentRef, input: { url: string; keys: AgentKey[]; now: number }): Promise<Result<null>> {
    return this.host.change(ref, {
      async run(group) {
        const record = group.record;
        if (!record) return answer(refuse("not_found"));
        if (!(input.url in record.directories)) return answer(ok(null));
        const others = record.keys.filter((k) => k.directoryUrl !== input.url);
        const kept = input.keys.filter((k) => !others.some((o) => o.thumbprint === k.thumbprint)).slice(0, MAX_AGENT_KEYS - others.length);
        const refreshed = { ...withKeys(record, [...others, ...kept]), directories: { ...record.directories, [input.url]: input.now } };
        const before = record.keys
          .map((k) => k.thumbprint)
          .sort()
          .join();
        const keysChanged =
          refreshed.keys
            .map((k) => k.thumbprint)
            .sort()
            .join() !== before;
        return identityChange(record, refreshed, input.now, { keysChanged, answer: () => null });
      },
    });
  }

  /**
   * A verified signature over the agent's own challenge: the nonce is consumed (it never works
   * twice, whatever happens next) and, if it was issued, unexpired and the key is still registered,
   * the agent is at identity level 2 with that key.
   */
  proveSignature(ref: AgentRef, input: { nonce: string; thumbprint: string; now: number }): Promise<Result<{ identityLevel: number; identityKey: string }>> {
    return this.host.change(ref, {
      run: async (group) => {
        const record = group.record;
        if (!record) return answer(refuse("not_found"));
        const stored = await this.challenge(ref, input.nonce);
        if (!stored || stored.used || stored.expires_at <= input.now) return answer(refuse("invalid_nonce"));
        const spent = put(ref.sid, input.nonce, "nonce", stored.expires_at, true);
        // A key no longer registered fails the proof, and the nonce is spent all the same.
        if (!record.keys.some((k) => k.thumbprint === input.thumbprint))
          return { change: rowOnly(record, [spent]), answer: () => null as never, refusal: "key_not_registered" };
        const proven = { ...record, identityKey: input.thumbprint };
        return identityChange(record, { ...proven, identityLevel: identityLevelOf(proven) }, input.now, {
          rows: [spent],
          answer: (r) => ({ identityLevel: r.identityLevel, identityKey: input.thumbprint }),
        });
      },
    });
  }
}

const put = (sid: string, token: string, challenge: Kind, expiresAt: number, used: boolean): ShardWrite => ({
  kind: "challenge",
  sid,
  token,
  challenge,
  expiresAt,
  used,
});

/** A change of the agent's rows beside its own (challenges): the agent's row stays as it is. */
const rowOnly = (record: AgentRecord, rows: ShardWrite[]): Change => ({ record, rows, row: false });

/**
 * An identity change: its identity entry (when the level, the proven key or the keys moved) with its
 * event, and the agent's whole row.
 */
function identityChange<T>(
  before: AgentRecord,
  after: AgentRecord,
  at: number,
  how: { rows?: ShardWrite[]; keysChanged?: boolean; answer: (record: AgentRecord) => T },
): Outcome<T> {
  const events = identityEvents(before, after, how.keysChanged);
  const record = events.length > 0 ? { ...after, seq: after.seq + 1 } : after;
  return {
    change: { record, entries: events.length > 0 ? [identityWrite(after, scoreOfRecord(after, at).composite, at)] : [], rows: how.rows, events, whole: true },
    answer: () => how.answer(record),
  };
}

/** The record with these keys; a proven key no longer among them takes level 2 away. */
function withKeys(record: AgentRecord, keys: AgentKey[]): AgentRecord {
  const identityKey = record.identityKey && keys.some((k) => k.thumbprint === record.identityKey) ? record.identityKey : null;
  const next = { ...record, keys, identityKey };
  return { ...next, identityLevel: identityLevelOf(next) };
}
