// Types of verify-credential.mjs, for the tests that run it.
import type { SDJwtVcInstance } from "@sd-jwt/sd-jwt-vc";
export const VCT_PATH: string;
export function credentialVerifier(options: { issuer: string; jwks: { keys: (JsonWebKey & { kid?: string })[] }; statusList: (uri: string) => Promise<string> }): SDJwtVcInstance;
export function verifyPresentation(
  verifier: SDJwtVcInstance,
  presentation: string,
  options: { issuer: string; audience: string; nonce: string; now?: number },
): Promise<Record<string, unknown>>;
