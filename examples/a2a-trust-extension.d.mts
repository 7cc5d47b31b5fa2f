// Types of a2a-trust-extension.mjs, for the tests that run it.
import type { JWTPayload, JWTVerifyGetKey } from "jose";

type Fetch = (url: string | URL) => Promise<Response>;
export interface TrustExtension {
  uri: string;
  description: string;
  required: boolean;
  params: { sid: string; attestation: string; jwks_uri: string; attestation_uri: string; status_list: { idx: number; uri: string } | null };
}
export const TRUST_EXTENSION_PATH: string;
export function fetchTrustExtension(serviceUrl: string | URL, sid: string, fetchImpl?: Fetch): Promise<TrustExtension>;
export function withTrustExtension<C extends { capabilities?: { extensions?: { uri: string }[] } }>(card: C, extension: TrustExtension): C & { capabilities: { extensions: { uri: string }[] } } & Record<string, any>;
export function checkTrustExtension(
  card: { capabilities?: { extensions?: { uri: string }[] } },
  keys: JWTVerifyGetKey,
  options: { trustedOrigin: string; sid?: string; currentDate?: Date; fetchImpl?: Fetch },
): Promise<{ claims: JWTPayload & Record<string, unknown>; statusList: { idx: number; uri: string } | null }>;
