// Types of gateway-agent.mjs, for the tests that run it.
export function fetchAttestation(serviceUrl: string, sid: string, options?: { fetch?: typeof fetch }): Promise<string>;
export function gatewayHeaders(
  url: string,
  privateJwk: JsonWebKey,
  attestation: string,
  options?: { method?: string; now?: number },
): Promise<{ Signature: string; "Signature-Input": string; "Agent-Attestation": string; "Agent-Key": string }>;
