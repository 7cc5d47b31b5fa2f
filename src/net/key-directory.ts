// Fetches a Web Bot Auth key directory (an HTTPS URL the SSRF guard already approved): a JSON
// object whose `keys` are JWKs. Redirects are never followed (their target was never checked), the
// body is read up to 64 KiB, and anything unexpected is an error.

export const KEY_DIRECTORY_MEDIA_TYPE = "application/http-message-signatures-directory+json";
const MAX_BYTES = 64 * 1024;

export async function fetchKeyDirectory(
  url: URL,
  fetchFn: typeof fetch,
  timeoutMs = 10_000,
): Promise<{ ok: true; keys: unknown[] } | { ok: false; reason: string }> {
  let res: Response;
  try {
    res = await fetchFn(url.href, {
      headers: { accept: `${KEY_DIRECTORY_MEDIA_TYPE}, application/json` },
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    return { ok: false, reason: "no answer" };
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {});
    return { ok: false, reason: `HTTP ${res.status}` };
  }
  const text = await readCapped(res, MAX_BYTES);
  if (text === null) return { ok: false, reason: "larger than 64 KiB" };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  const keys = (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) return { ok: false, reason: "no keys array" };
  return { ok: true, keys };
}

async function readCapped(res: Response, max: number): Promise<string | null> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        return null;
      }
      chunks.push(value);
    }
  } catch {
    return null;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
