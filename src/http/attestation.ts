import type { Context } from "hono";
import { ATTESTATION_LIFETIME_S, signAttestation, type AttestationClaims, type SigningKey } from "../domain/attestations";
import type { AgentScore } from "../domain/views";
import type { AppEnv } from "./context";

// Signing an agent's public score: the attestation route and the agent's public page sign the same
// claims with the same keys.

/** The compact JWS of the agent's public score, issued now by the origin the client called. Callers refuse suspended agents. */
export async function attest(c: Context<AppEnv>, agent: AgentScore, keys: SigningKey[]): Promise<string> {
  const iat = Math.floor(c.get("deps").now() / 1000);
  const claims: AttestationClaims = {
    iss: new URL(c.req.url).origin,
    sub: agent.sid,
    iat,
    exp: iat + ATTESTATION_LIFETIME_S,
    status: agent.status,
    composite_score: agent.score.composite,
    confidence: agent.score.confidence,
    recommendation: agent.score.recommendation,
    identity_level: agent.identityLevel,
    operator_name: agent.operator?.name ?? null,
    ...(agent.identityLevel === 2 && agent.identityKey ? { cnf: { jkt: agent.identityKey } } : {}),
  };
  return signAttestation(claims, keys[0]);
}
