// Types of identity-web-bot-auth.mjs, for the tests that run it.
export function signProof(proofUrl: string, privateJwk: JsonWebKey, nonce: string, now?: number): Promise<{ Signature: string; "Signature-Input": string }>;
export function newAgentKey(): Promise<{ privateJwk: JsonWebKey; publicJwk: { kty: string; crv: string; x: string } }>;
