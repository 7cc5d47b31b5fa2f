// Delivers one event to one webhook endpoint the SSRF guard approved, signed per Standard Webhooks
// (webhook-id, webhook-timestamp, webhook-signature; the `standardwebhooks` package signs). No
// redirect is followed (its target was never checked) and the response body is never read.
import { Webhook } from "standardwebhooks";

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
