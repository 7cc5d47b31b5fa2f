// Delivers one event to one webhook endpoint the SSRF guard approved, signed per Standard Webhooks
// (webhook-id, webhook-timestamp, webhook-signature; the `standardwebhooks` package signs). No
// redirect is followed (its target was never checked) and the response body is never read.
import { Webhook } from "standardwebhooks";
import { checkCallbackUrl } from "./callback-guard";
import type { Resolver } from "./resolver";

export type DeliveryOutcome = { delivered: true; status: number } | { delivered: false; status: number | null; error: string };

export async function deliverWebhook(
  url: URL,
  message: { id: string; timestamp: Date; payload: string; secret: string },
  fetchFn: typeof fetch,
  timeoutMs = 10_000,
): Promise<DeliveryOutcome> {
  const signature = new Webhook(message.secret).sign(message.id, message.timestamp, message.payload);
  try {
    const res = await fetchFn(url.href, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": message.id,
        "webhook-timestamp": String(Math.floor(message.timestamp.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body: message.payload,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300) return { delivered: true, status: res.status };
    return { delivered: false, status: res.status, error: `HTTP ${res.status}` };
  } catch (err) {
    return { delivered: false, status: null, error: (err as Error)?.name === "TimeoutError" ? "timeout" : "network error" };
  }
}

/**
 * One attempt at an endpoint as stored: the SSRF guard checks its URL again (the address it resolves
 * to now), then the signed event is sent. Every delivery goes this way: the queue's and a test ping.
 */
export async function attemptDelivery(
  rawUrl: string,
  message: { id: string; timestamp: Date; payload: string; secret: string },
  deps: { resolve: Resolver | null; fetchOutbound: typeof fetch; loopback: boolean },
): Promise<DeliveryOutcome> {
  const check = deps.resolve
    ? await checkCallbackUrl(rawUrl, deps.resolve, "url", { loopback: deps.loopback })
    : { ok: false as const, message: "no resolver" };
  if (!check.ok) return { delivered: false, status: null, error: `not called: ${check.message}` };
  return deliverWebhook(check.url, message, deps.fetchOutbound);
}
