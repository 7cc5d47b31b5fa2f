// The agent's identity: callback challenges (level 1), its Ed25519 keys (given as JWKs or found in
// Web Bot Auth key directories), signature challenges and proofs (level 2), and the identity events
// each change tells. Challenge tokens (hashed) and nonces are single-use rows of the shard's
// `challenges` table (src/db/challenges.ts); what keys do to the record is src/domain/agent-keys.ts.

import { putChallenge, readChallenge } from "../../db/challenges";
import { identityWrite } from "../../db/entry-writes";
import type { ShardWrite } from "../../db/shard-writes";
import { directoryRefreshed, identityLevelOf, keysAdded, withKeys, type AgentKey } from "../../domain/agent-keys";
import { scoreOfRecord, type AgentRecord, type AgentRef } from "../../domain/agent";
import { identityEvents } from "../../domain/events";
import { answer, ok, owned, refuse, type AgentHost, type Change, type Job, type Outcome } from "./host";

export class Identity {
  constructor(private readonly host: AgentHost) {}

  private challenge(ref: AgentRef, token: string) {
    return readChallenge(this.host.shard(ref.shard).withSession("first-primary"), ref.sid, token);
  }

  /** Keeps a callback challenge token (hashed) for the owner to return within its lifetime. */
  addChallenge(ref: AgentRef, input: { tokenHash: string; expiresAt: number }) {
    return this.host.change(
      ref,
      rowsOnly(() => [putChallenge(ref.sid, input.tokenHash, "callback", input.expiresAt, false)]),
    );
  }

  /** A token whose delivery failed may have reached someone: it must never work. */
  async voidChallenge(ref: AgentRef, tokenHash: string): Promise<void> {
    await this.host.change(
      ref,
      rowsOnly(() => [putChallenge(ref.sid, tokenHash, "callback", 0, true)]),
    );
  }

  /** The owner returns a challenge token: consumed and the agent raised to level 1, or refused. */
  confirmIdentity(ref: AgentRef, input: { callerId: number; tokenHash: string; now: number }) {
    return this.host.change<{ identityLevel: number }>(ref, {
      run: async (group) => {
        const record = owned(group, input.callerId);
        if (!("sid" in record)) return answer(record);
        const stored = await this.challenge(ref, input.tokenHash);
        if (!stored || stored.used || stored.expires_at <= input.now) return answer(refuse("invalid_challenge"));
        const verified = { ...record, callbackVerified: true };
        const rows: ShardWrite[] = [
          putChallenge(ref.sid, input.tokenHash, "callback", stored.expires_at, true),
          { kind: "challengesExpired", sid: ref.sid, before: input.now - 86_400_000 },
        ];
        return identityChange(record, { ...verified, identityLevel: identityLevelOf(verified) }, input.now, {
          rows,
          answer: (r) => ({ identityLevel: r.identityLevel }),
        });
      },
    });
  }

  /** The owner registers keys (given as a JWK, or found in a key directory): at most 5 in all. */
  addKeys(ref: AgentRef, input: { callerId: number; keys: AgentKey[]; directoryUrl: string | null; now: number }) {
    return this.host.change<{ keys: AgentKey[]; identityKey: string | null }>(ref, {
      async run(group) {
        const record = owned(group, input.callerId);
        if (!("sid" in record)) return answer(record);
        const added = keysAdded(record, input.keys, input.directoryUrl, input.now);
        if (!added) return answer(refuse("too_many_keys"));
        // The proven key's thumbprint too: a key registered again may be it.
        return identityChange(record, added.holder, input.now, {
          keysChanged: added.added > 0,
          answer: (r) => ({ keys: input.keys.map((k) => r.keys.find((have) => have.thumbprint === k.thumbprint)!), identityKey: r.identityKey }),
        });
      },
    });
  }

  async listKeys(ref: AgentRef, callerId: number) {
    const loaded = await this.host.exclusive(() => this.host.read(ref));
    if (!loaded) return refuse("not_found");
    if (loaded.record.operatorId !== callerId) return refuse("forbidden");
    return ok({ keys: loaded.record.keys, identityKey: loaded.record.identityKey });
  }

  /** The owner removes a key; if it was the proven one, the agent drops to the level it still holds. */
  removeKey(ref: AgentRef, input: { callerId: number; thumbprint: string; now: number }) {
    return this.host.change<{ identityLevel: number; identityKey: string | null }>(ref, {
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
  issueNonce(ref: AgentRef, input: { callerId: number; nonce: string; expiresAt: number; now: number }) {
    const rows = (): ShardWrite[] => [
      { kind: "challengesExpired", sid: ref.sid, before: input.now },
      putChallenge(ref.sid, input.nonce, "nonce", input.expiresAt, false),
    ];
    return this.host.change(ref, rowsOnly(rows, input.callerId));
  }

  /**
   * A credential request's nonce (one the service issued without storing it), spent once: a
   * replayed request is refused (invalid_nonce). Kept until it expires; it is refused as expired then.
   */
  spendNonce(ref: AgentRef, input: { nonce: string; expiresAt: number; now: number }) {
    return this.host.change(ref, {
      run: async (group) => {
        if (!group.record) return answer(refuse("not_found"));
        const stored = await this.challenge(ref, input.nonce);
        if (stored && stored.expires_at > input.now) return answer(refuse("invalid_nonce"));
        return { change: rowChange(group.record, [putChallenge(ref.sid, input.nonce, "nonce", input.expiresAt, true)]), answer: () => null };
      },
    });
  }

  /** What a signature proof is checked against: the keys, and when each key directory was fetched. */
  async signatureKeys(ref: AgentRef) {
    const loaded = await this.host.exclusive(() => this.host.read(ref));
    return loaded ? ok({ keys: loaded.record.keys, directories: loaded.record.directories }) : refuse("not_found");
  }

  /** A key directory fetched again: its keys replace the ones it gave before (a key it dropped goes). */
  refreshDirectory(ref: AgentRef, input: { url: string; keys: AgentKey[]; now: number }) {
    return this.host.change<null>(ref, {
      async run(group) {
        const record = group.record;
        if (!record) return answer(refuse("not_found"));
        if (!(input.url in record.directories)) return answer(ok(null));
        const refreshed = directoryRefreshed(record, input.url, input.keys, input.now);
        return identityChange(record, refreshed.holder, input.now, { keysChanged: refreshed.keysChanged, answer: () => null });
      },
    });
  }

  /**
   * A verified signature over the agent's own challenge: the nonce is consumed (it never works
   * twice, whatever happens next) and, if it was issued, unexpired and the key is still registered,
   * the agent is at identity level 2 with that key.
   */
  proveSignature(ref: AgentRef, input: { nonce: string; thumbprint: string; now: number }) {
    return this.host.change<{ identityLevel: number; identityKey: string }>(ref, {
      run: async (group) => {
        const record = group.record;
        if (!record) return answer(refuse("not_found"));
        const stored = await this.challenge(ref, input.nonce);
        if (!stored || stored.used || stored.expires_at <= input.now) return answer(refuse("invalid_nonce"));
        const spent = putChallenge(ref.sid, input.nonce, "nonce", stored.expires_at, true);
        // A key no longer registered fails the proof, and the nonce is spent all the same.
        if (!record.keys.some((k) => k.thumbprint === input.thumbprint))
          return { change: rowChange(record, [spent]), answer: () => null as never, refusal: "key_not_registered" };
        const proven = { ...record, identityKey: input.thumbprint };
        return identityChange(record, { ...proven, identityLevel: identityLevelOf(proven) }, input.now, {
          rows: [spent],
          answer: (r) => ({ identityLevel: r.identityLevel, identityKey: input.thumbprint }),
        });
      },
    });
  }
}

/** A change of the agent's rows beside its own (challenges): the agent's row stays as it is. */
const rowChange = (record: AgentRecord, rows: ShardWrite[]): Change => ({ record, rows, row: false });

/** A job that only keeps challenge rows, for any caller or (with `ownerId`) the owner only. */
const rowsOnly = (rows: () => ShardWrite[], ownerId?: number): Job<null> => ({
  async run(group) {
    const record = ownerId === undefined ? (group.record ?? refuse("not_found")) : owned(group, ownerId);
    if (!("sid" in record)) return answer(record);
    return { change: rowChange(record, rows()), answer: () => null };
  },
});

/** An identity change: its identity entry (when the level, the proven key or the keys moved) with its event, and the agent's whole row. */
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
