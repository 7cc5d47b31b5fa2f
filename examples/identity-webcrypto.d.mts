// Types of identity-webcrypto.mjs, for the tests that run it.
export function thumbprint(jwk: { kty?: string; crv?: string; x?: string }): Promise<string>;
export function signProof(proofUrl: string, privateJwk: JsonWebKey, nonce: string, now?: number): Promise<{ Signature: string; "Signature-Input": string }>;
