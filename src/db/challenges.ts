// An agent's single-use tokens on its shard (`challenges`): callback challenge tokens (hashed) and
// signature nonces, written through the agent's object only.

import type { Database } from "./client";
import type { ShardWrite } from "./shard-writes";

export type ChallengeKind = "callback" | "nonce";

export const readChallenge = (d1: Database, sid: string, token: string) =>
  d1.prepare("SELECT expires_at, used FROM challenges WHERE sid = ? AND token = ?").bind(sid, token).first<{ expires_at: number; used: number }>();

export const putChallenge = (sid: string, token: string, challenge: ChallengeKind, expiresAt: number, used: boolean): ShardWrite => ({
  kind: "challenge",
  sid,
  token,
  challenge,
  expiresAt,
  used,
});
