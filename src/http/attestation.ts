import { publicOrigin } from "../env";
import type { Context } from "hono";
import { ATTESTATION_LIFETIME_S, signAttestation, type AttestationClaims, type SigningKey } from "../domain/attestations";
import type { AgentScore } from "../domain/views";
import { locate } from "./agents";
import { latestLogProof } from "./log-proof";
import type { AppEnv } from "./context";
import { statusPlaceOf, statusPointer } from "./status-lists";

// Signing an agent's public score: the attestation route and the agent's public page sign the same
// claims with the same keys.

/** Where the attestation route keeps an agent's answer at the edge (src/http/edge-cache.ts). */
export const attestationCacheKey = (origin: string, sid: string) => `https://attestation.cache/${encodeURIComponent(origin)}/${encodeURIComponent(sid)}`;
/** Where the A2A extension route keeps an agent's answer at the edge (it carries the attestation). */
export const a2aExtensionCacheKey = (origin: string, sid: string) => `https://a2a-extension.cache/${encodeURIComponent(origin)}/${encodeURIComponent(sid)}`;

/** The compact JWS of the agent's public score, issued now under the service's public origin. Callers refuse suspended agents. */
export async function attest(c: Context<AppEnv>, agent: AgentScore, keys: SigningKey[]): Promise<string> {
  const iat = Math.floor(c.get("deps").now() / 1000);
  const origin = publicOrigin(c.env);
  // Where its status is: an agent from before the status lists is listed now.
  const ref = await locate(c, agent.sid);
  const [place, log] = await Promise.all([statusPlaceOf(c, ref), latestLogProof(c, ref)]);
  const claims: AttestationClaims = {
    iss: origin,
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
    ...(place ? { status_list: statusPointer(origin, place) } : {}),
    log,
  };
  return signAttestation(claims, keys[0]);
}
