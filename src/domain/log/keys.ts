// The log's signing keys, from LOG_SIGNING_KEYS: a JSON array whose items are private Ed25519 JWKs
// ({kty: "OKP", crv: "Ed25519", x, d}) or 32-byte seeds in base64. Every key signs each checkpoint
// under the log's origin as key name (the first key's signature first), and every key is published,
// so a verifier that pinned the old key keeps verifying through a rotation.

import { concat, fromBase64, type Bytes } from "./bytes";
import { keyId, verifierKey, type NoteSigner } from "./note";

export interface LogSigningKey {
  publicKey: Bytes;
  privateKey: Awaited<ReturnType<typeof crypto.subtle.importKey>>;
}

const PKCS8_ED25519_PREFIX = Uint8Array.of(0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20);
const base64url = (text: string) =>
  fromBase64(
    text
      .replaceAll("-", "+")
      .replaceAll("_", "/")
      .padEnd(Math.ceil(text.length / 4) * 4, "="),
  );

async function fromSeed(seed: Bytes): Promise<LogSigningKey> {
  const extractable = await crypto.subtle.importKey("pkcs8", concat(PKCS8_ED25519_PREFIX, seed), { name: "Ed25519" }, true, ["sign"]);
  const jwk = (await crypto.subtle.exportKey("jwk", extractable)) as { x?: string };
  const privateKey = await crypto.subtle.importKey("pkcs8", concat(PKCS8_ED25519_PREFIX, seed), { name: "Ed25519" }, false, ["sign"]);
  return { publicKey: base64url(jwk.x!)!, privateKey };
}

async function fromJwk(jwk: Record<string, unknown>): Promise<LogSigningKey | null> {
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string" || typeof jwk.d !== "string") return null;
  const seed = base64url(jwk.d);
  const publicKey = base64url(jwk.x);
  if (!seed || seed.length !== 32 || !publicKey || publicKey.length !== 32) return null;
  const key = await fromSeed(seed);
  // x must be d's public key: a mismatched pair would sign checkpoints nobody can verify.
  return key.publicKey.every((b, i) => b === publicKey[i]) ? key : null;
}

/** The keys of LOG_SIGNING_KEYS, or why they cannot be used. */
export async function parseLogSigningKeys(raw: string | undefined): Promise<{ ok: true; keys: LogSigningKey[] } | { ok: false; problem: string }> {
  if (!raw) return { ok: false, problem: "LOG_SIGNING_KEYS is not set" };
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    return { ok: false, problem: "LOG_SIGNING_KEYS is not JSON" };
  }
  if (!Array.isArray(list) || list.length === 0) return { ok: false, problem: "LOG_SIGNING_KEYS must be a non-empty JSON array" };
  const keys: LogSigningKey[] = [];
  for (const item of list) {
    const seed = typeof item === "string" ? fromBase64(item) : null;
    const key =
      seed && seed.length === 32
        ? await fromSeed(seed)
        : typeof item === "object" && item !== null
          ? await fromJwk(item as Record<string, unknown>).catch(() => null)
          : null;
    if (!key) return { ok: false, problem: "every LOG_SIGNING_KEYS item must be a private Ed25519 JWK (kty OKP, crv Ed25519, x, d) or a base64 32-byte seed" };
    keys.push(key);
  }
  return { ok: true, keys };
}

/** The key as a note signer under `name` (a log's origin). */
export async function noteSigner(key: LogSigningKey, name: string): Promise<NoteSigner> {
  return {
    name,
    keyId: await keyId(name, key.publicKey),
    sign: async (message) => new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key.privateKey, message)),
  };
}

/** The verifier key strings of the keys under `name`, as Go's note.NewVerifier reads them. */
export const verifierKeys = (keys: LogSigningKey[], name: string) => Promise.all(keys.map((k) => verifierKey(name, k.publicKey)));
