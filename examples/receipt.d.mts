// Types of receipt.mjs, for the tests that run it.
export function signReceipt(
  privateJwk: JsonWebKey,
  claims: { sid: string; operatorId: number | string; txn?: string; jti?: string; now?: number },
): Promise<string>;
