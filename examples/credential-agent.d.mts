// Types of credential-agent.mjs, for the tests that run it.
export function contentDigest(body: string | Uint8Array): Promise<string>;
export function requestCredential(serviceUrl: string, sid: string, privateJwk: JsonWebKey, options?: { fetch?: typeof fetch; now?: number }): Promise<string>;
export function present(credential: string, frame: Record<string, unknown>, privateJwk: JsonWebKey, options: { audience: string; nonce: string; now?: number }): Promise<string>;
