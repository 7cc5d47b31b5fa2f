// Local development only: webhook deliveries to this machine (`npm run webhooks:listen`). The SSRF
// guard lets them through only when ALLOW_LOOPBACK_WEBHOOKS is "true" *and* the service's public
// origin is itself loopback (a deployment that names itself trust.example.com never delivers
// inward, whatever a stray variable says), and then only to the literal hosts below over plain http.

/** The hosts a loopback URL may name, exactly as written (no other spelling of 127.0.0.1, no other 127/8 address). */
export const LOOPBACK_HOSTS = ["127.0.0.1", "[::1]", "localhost"] as const;

const LITERAL = /^http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost)(?::[0-9]{1,5})?(?:[/?#]|$)/i;

/** Whether the URL, as written, is plain http to one of LOOPBACK_HOSTS with no credentials. */
export function isLoopbackUrl(raw: string): boolean {
  if (!LITERAL.test(raw)) return false;
  try {
    const url = new URL(raw);
    return (LOOPBACK_HOSTS as readonly string[]).includes(url.hostname) && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}

export type LoopbackPolicy = { allowed: boolean; problem: string | null };

/** The decision from the flag and the public origin; `problem` says why a set flag is ignored. */
export function loopbackPolicy(flag: string | undefined, origin: string): LoopbackPolicy {
  if (flag !== "true") return { allowed: false, problem: null };
  if ((LOOPBACK_HOSTS as readonly string[]).includes(new URL(origin).hostname)) return { allowed: true, problem: null };
  return { allowed: false, problem: `ALLOW_LOOPBACK_WEBHOOKS is ignored: the public origin ${origin} is not a loopback address` };
}

const decided = new WeakMap<object, boolean>();

/**
 * Whether webhooks may be delivered to loopback under this configuration (`publicOrigin` is its PUBLIC_ORIGIN, read). A set flag the public
 * origin does not allow is logged as an error once per isolate (the app asks at its first request).
 */
export function loopbackWebhooks(env: { ALLOW_LOOPBACK_WEBHOOKS?: string }, publicOrigin: string): boolean {
  const known = decided.get(env);
  if (known !== undefined) return known;
  const policy = loopbackPolicy(env.ALLOW_LOOPBACK_WEBHOOKS, publicOrigin);
  if (policy.problem) console.error(JSON.stringify({ level: "error", message: policy.problem }));
  decided.set(env, policy.allowed);
  return policy.allowed;
}
