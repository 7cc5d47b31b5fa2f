// HTTP Message Signatures (RFC 9421) as Web Bot Auth uses them, on an incoming request: the
// signature base is built by `http-message-sig` (the library `web-bot-auth` is made of), the
// Ed25519 check is WebCrypto's, and every parameter is checked against the service's clock.

import { parseAcceptSignature, verify, type Component } from "http-message-sig";
import { arrayBufferToBase64, parseDictionary } from "structured-headers";
import type { PublicJwk } from "../domain/agent-keys";

export const WEB_BOT_AUTH_TAG = "web-bot-auth";
/** A proof's signature lives at most this long (created to expires). */
export const MAX_SIGNATURE_LIFETIME_S = 300;
/** Clocks differ: a signature created this much in the future is still accepted. */
const CLOCK_SKEW_S = 60;
export const REQUIRED_COMPONENTS = ["@method", "@authority", "@path"] as const;

export interface SignatureClaims {
  keyid: string;
  nonce: string;
  created: number;
  expires: number;
}

/** What the Signature-Input header claims, checked; or why the request is not a usable proof. */
export function readSignatureInput(
  request: Request,
  now: number,
  required: readonly string[] = REQUIRED_COMPONENTS,
): { ok: true; claims: SignatureClaims } | { ok: false; status: 400 | 401; problem: string } {
  const input = request.headers.get("signature-input");
  if (!input || !request.headers.get("signature")) return { ok: false, status: 400, problem: "Signature and Signature-Input headers are required" };
  let parsed: { components: Component[]; parameters: Record<string, unknown> };
  try {
    // Signature-Input has the grammar of Accept-Signature (RFC 9421 §4.1, §5.1).
    parsed = parseAcceptSignature(input);
  } catch {
    return { ok: false, status: 400, problem: "Signature-Input is not a valid RFC 9421 signature input" };
  }
  const p = parsed.parameters;
  const names = parsed.components.map((c) => (typeof c === "string" ? c : c.name));
  const refuse = (problem: string) => ({ ok: false as const, status: 401 as const, problem });
  if (p.tag !== WEB_BOT_AUTH_TAG) return refuse(`tag must be "${WEB_BOT_AUTH_TAG}"`);
  if (p.alg !== "ed25519") return refuse('alg must be "ed25519"');
  if (typeof p.keyid !== "string" || p.keyid === "") return refuse("keyid is required");
  if (typeof p.nonce !== "string" || p.nonce === "") return refuse("nonce is required: sign the challenge from verify/signature/challenge");
  if (!(p.created instanceof Date) || !(p.expires instanceof Date)) return refuse("created and expires are required");
  const missing = required.filter((c) => !names.includes(c));
  if (missing.length > 0) return refuse(`the signature must cover ${missing.join(", ")}`);
  const created = p.created.getTime();
  const expires = p.expires.getTime();
  if (expires - created > MAX_SIGNATURE_LIFETIME_S * 1000 || expires <= created) return refuse("created and expires must be at most 5 minutes apart");
  if (expires <= now) return refuse("the signature has expired");
  if (created > now + CLOCK_SKEW_S * 1000) return refuse("the signature is created in the future");
  return { ok: true, claims: { keyid: p.keyid, nonce: p.nonce, created, expires } };
}

/** Whether the request's signature verifies with this Ed25519 key (the base built from the request). */
export async function verifySignature(request: Request, jwk: PublicJwk): Promise<boolean> {
  try {
    const key = await crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["verify"]);
    return await verify(request, (data, signature) => crypto.subtle.verify({ name: "Ed25519" }, key, signature, new TextEncoder().encode(data)));
  } catch {
    return false;
  }
}

/**
 * Whether the request's Content-Digest (RFC 9530) has a `sha-256` member equal to the SHA-256 of
 * `body`: a signature covering the header then covers the body too.
 */
export async function contentDigestMatches(request: Request, body: Uint8Array): Promise<boolean> {
  const header = request.headers.get("content-digest");
  if (!header) return false;
  let digest: unknown;
  try {
    digest = parseDictionary(header).get("sha-256")?.[0];
  } catch {
    return false;
  }
  if (!(digest instanceof ArrayBuffer)) return false;
  return arrayBufferToBase64(digest) === arrayBufferToBase64(await crypto.subtle.digest("SHA-256", body));
}
