export function newAttestationKey(kid?: string): { kty: string; crv: string; x: string; d: string; kid: string };
export function attestationKeysVar(kid?: string): string;
