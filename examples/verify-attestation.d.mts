// Types of verify-attestation.mjs, for the tests that run it.
import type { JWTPayload, JWTVerifyGetKey, RemoteJWKSetOptions } from "jose";
export function serviceKeys(serviceUrl: string | URL, options?: RemoteJWKSetOptions): JWTVerifyGetKey;
export function verifyAttestation(
  attestation: string,
  keys: JWTVerifyGetKey,
  options?: { issuer?: string; sid?: string; currentDate?: Date },
): Promise<JWTPayload & Record<string, unknown>>;
