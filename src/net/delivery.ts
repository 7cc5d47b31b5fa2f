// POSTs the challenge to a callback URL already approved by checkCallbackUrl.
// Redirects are never followed (their target was never checked), and the response body is
// never read: the callback server's content is untrusted and only the status matters.
export async function deliverChallenge(
  url: URL,
  payload: { challenge_token: string; sid: string },
  fetchFn: typeof fetch,
  timeoutMs = 10_000,
): Promise<boolean> {
  try {
    const res = await fetchFn(url.href, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ challenge_token: payload.challenge_token, sid: payload.sid }),
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => {});
    return res.status >= 200 && res.status < 300;
  } catch {
    return false;
  }
}
