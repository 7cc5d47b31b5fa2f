import { isPublicAddress } from "./address";
import { isLoopbackUrl } from "./loopback";
import type { Resolver } from "./resolver";

export const MAX_CALLBACK_URL_LENGTH = 2048;

export type CallbackCheck = { ok: true; url: URL } | { ok: false; message: string };

// The spec's texts name the field (`callbackUrl must use HTTPS`); other outbound URLs (key
// directories, webhooks) get the same texts with their own field's name.
const texts = (field: string) => ({
  REQUIRED: `${field} is required`,
  INVALID: `${field} must be a valid URL`,
  NOT_HTTPS: `${field} must use HTTPS`,
  BAD_PORT: `${field} must use port 443`,
  CREDENTIALS: `${field} must not contain credentials`,
  PRIVATE: `${field} must not resolve to a private address`,
});

const refuse = (message: string): CallbackCheck => ({ ok: false, message });

// Decides whether the service may send a request to a caller-supplied URL (SSRF guard): the
// verification callback, a key directory, a webhook endpoint.
// The caller must send to the returned `url` object, so the URL that was checked is the one
// that is fetched (no second parse of the raw string).
//
// Residual risk: Workers' fetch resolves the host name again, so a DNS-rebinding host can
// answer public here and private at fetch time. That window is bounded by Cloudflare's own
// refusal to connect from Workers to private/internal ranges; this check stops the rest
// (IP literals, encodings, names that plainly resolve inward) and makes the refusal explicit.
//
// With `loopback` (webhooks in local development only: src/net/loopback.ts decides when), a URL
// written as plain http to 127.0.0.1, [::1] or localhost passes; every other inward address is still
// refused.
export async function checkCallbackUrl(raw: unknown, resolve: Resolver, field = "callbackUrl", options: { loopback?: boolean } = {}): Promise<CallbackCheck> {
  const { REQUIRED, INVALID, NOT_HTTPS, BAD_PORT, CREDENTIALS, PRIVATE } = texts(field);
  if (typeof raw !== "string" || raw.trim() === "") return refuse(REQUIRED);
  if (raw.length > MAX_CALLBACK_URL_LENGTH) return refuse(INVALID);
  if (options.loopback && isLoopbackUrl(raw)) return { ok: true, url: new URL(raw) };

  let url: URL;
  try {
    // The WHATWG parser canonicalises numeric hosts (2130706433, 0x7f.1, 0177.0.0.1, 127.1)
    // to dotted IPv4 and IPv6 to its compressed form; it rejects IPv6 zone ids.
    url = new URL(raw);
  } catch {
    return refuse(INVALID);
  }
  if (url.protocol !== "https:") return refuse(NOT_HTTPS);
  // The parser drops an explicit default port, so any port left is not 443.
  if (url.port !== "") return refuse(BAD_PORT);
  if (url.username !== "" || url.password !== "") return refuse(CREDENTIALS);

  const host = url.hostname;
  // IP literals are judged directly and never sent to DNS. After parsing, a host made of
  // digits and dots can only be canonical IPv4.
  if (host.startsWith("[")) return isPublicAddress(host.slice(1, -1)) ? { ok: true, url } : refuse(PRIVATE);
  if (/^[\d.]+$/.test(host)) return isPublicAddress(host) ? { ok: true, url } : refuse(PRIVATE);

  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  // Single-label names go to search domains / local resolution, never to a public host.
  if (name === "localhost" || name.endsWith(".localhost") || !name.includes(".")) return refuse(PRIVATE);

  let addresses: string[];
  try {
    addresses = await resolve(name);
  } catch {
    return refuse(PRIVATE);
  }
  // Every answer must be public: fetch may pick any of them.
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) return refuse(PRIVATE);
  return { ok: true, url };
}
