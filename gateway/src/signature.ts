import { parseAcceptSignature } from "http-message-sig";
import { calculateJwkThumbprint } from "jose";
import { verify } from "web-bot-auth";

// The request's Web Bot Auth signature (RFC 9421, `tag="web-bot-auth"`), verified with the key the
// agent sends in `Agent-Key`, named by its thumbprint (the signature's `keyid`).

/** The header carrying the agent's public Ed25519 JWK (its thumbprint is the keyid and the attestation's cnf.jkt). */
export const AGENT_KEY_HEADER = "agent-key";
/** A signature lives at most this long (`expires` − `created`). */
export const MAX_SIGNATURE_LIFETIME_MS = 60_000;

export interface Signed {
  thumbprint: string;
  nonce: string | null;
  expires: number;
}

export class BadSignature extends Error {}

/** The components every signature must cover. */
export const COVERAGE = "the signature must cover @method, @authority and @path (or @target-uri)";

/** The agent's public key from `Agent-Key` (a JSON JWK: kty OKP, crv Ed25519, x; nothing private). */
async function agentKey(request: Request): Promise<{ jwk: JsonWebKey; thumbprint: string }> {
  const raw = request.headers.get(AGENT_KEY_HEADER);
  if (!raw) throw new BadSignature("an Agent-Key header (the agent's public JWK) is required with a signature");
  let jwk: Record<string, unknown>;
  try {
    jwk = JSON.parse(raw);
  } catch {
    throw new BadSignature("Agent-Key is not a JSON JWK");
  }
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string" || "d" in jwk) throw new BadSignature("Agent-Key must be a public Ed25519 JWK");
  const publicJwk = { kty: "OKP", crv: "Ed25519", x: jwk.x };
  return { jwk: publicJwk, thumbprint: await calculateJwkThumbprint(publicJwk, "sha256") };
}

/**
 * The signer's key thumbprint, nonce and expiry, once the signature verifies with the Agent-Key
 * key, names it as keyid, covers @method, @authority and @path (or @target-uri), and lives at most 60 seconds (web-bot-auth refuses one
 * created in the future or expired).
 */
export async function verifySigned(request: Request): Promise<Signed> {
  const key = await agentKey(request);
  const input = request.headers.get("signature-input") ?? "";
  let covered: string[];
  try {
    covered = parseAcceptSignature(input).components.map((c) => (typeof c === "string" ? c : c.name));
  } catch {
    throw new BadSignature("Signature-Input is not an RFC 9421 signature input");
  }
  // A signature over less would be admitted on any other path or method of the site (a GET's
  // signature replayed as a POST to /admin): it must name the method, the host and the path.
  if (!covered.includes("@method") || !covered.includes("@authority") || !(covered.includes("@path") || covered.includes("@target-uri"))) {
    throw new BadSignature(COVERAGE);
  }
  const publicKey = await crypto.subtle.importKey("jwk", key.jwk, { name: "Ed25519" }, false, ["verify"]);
  let signed: Signed | null = null;
  try {
    await verify(request, async (data, signature, params) => {
      if (params.keyid !== key.thumbprint) throw new BadSignature("keyid is not the thumbprint of Agent-Key");
      const created = params.created.getTime();
      const expires = params.expires.getTime();
      if (expires - created > MAX_SIGNATURE_LIFETIME_MS) throw new BadSignature("expires − created is more than 60 seconds");
      if (!(await crypto.subtle.verify({ name: "Ed25519" }, publicKey, signature, new TextEncoder().encode(data)))) throw new BadSignature("the signature does not verify");
      signed = { thumbprint: key.thumbprint, nonce: typeof params.nonce === "string" ? params.nonce : null, expires };
    });
  } catch (err) {
    throw err instanceof BadSignature ? err : new BadSignature(`the signature is refused: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!signed) throw new BadSignature("the signature does not verify");
  return signed;
}
