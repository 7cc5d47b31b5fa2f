import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError, errors } from "../domain/errors";
import type { AppEnv } from "./context";

export const MAX_BODY_BYTES = 64 * 1024;
/** A batch of reports (POST /transactions/batch) may carry up to 100 of them. */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

/**
 * Hono's limit: a declared Content-Length over the limit is refused before anything is read; a body
 * without one (chunked) is read and counted by the library, which stops at the limit, so no more
 * than it is ever held.
 */
const limitOf = (maxSize: number) =>
  bodyLimit({
    maxSize,
    onError: () => {
      throw errors.bodyTooLarge();
    },
  });
const limit = limitOf(MAX_BODY_BYTES);
const batchLimit = limitOf(MAX_BATCH_BODY_BYTES);

/**
 * Reads a request body once, within 64 KiB, and presents it as JSON whatever Content-Type the
 * client sent (every body of this API is JSON; `curl -d` sends a form type), so the route
 * validators parse it and malformed JSON is a 400, never a 415 or 500. A GET or HEAD is served as if
 * it had no body; a body that breaks off mid-read is a 400.
 */
export const readBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const raw = c.req.raw;
  if (raw.body === null) return next();
  if (raw.method === "GET" || raw.method === "HEAD") {
    await raw.body.cancel().catch(() => {});
    const headers = new Headers(raw.headers);
    headers.delete("content-length");
    headers.delete("transfer-encoding");
    c.req.raw = new Request(raw.url, { method: raw.method, headers });
    return next();
  }
  let reading = true;
  const batch = c.req.path === "/transactions/batch";
  try {
    await (batch ? batchLimit : limit)(c, async () => {
      // With a Content-Length alone the runtime delivers exactly that many bytes (it ends a shorter
      // stream with an error): one native read. A chunked body the library has already read and
      // counted is in memory.
      const bytes = await readWhole(c.req.raw, batch ? MAX_BATCH_BODY_BYTES : MAX_BODY_BYTES);
      reading = false;
      const headers = new Headers(raw.headers);
      headers.delete("content-length");
      headers.delete("transfer-encoding");
      headers.set("content-type", "application/json");
      c.req.raw = new Request(raw.url, { method: raw.method, headers, body: bytes });
      await next();
    });
  } catch (err) {
    // A stream that broke off while the library read it; anything after the read is the app's own.
    if (reading && !(err instanceof ApiError)) throw errors.unreadableBody();
    throw err;
  }
};

async function readWhole(request: Request, max: number): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await request.arrayBuffer());
  } catch {
    throw errors.unreadableBody();
  }
  if (bytes.byteLength > max) throw errors.bodyTooLarge();
  return bytes;
}
