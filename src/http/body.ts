import type { MiddlewareHandler } from "hono";
import { errors } from "../domain/errors";
import type { AppEnv } from "./context";

export const MAX_BODY_BYTES = 64 * 1024;
/** A batch of reports (POST /transactions/batch) may carry up to 100 of them. */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

/**
 * Reads a request body once, refusing more than 64 KiB before and after reading, and presents it as
 * JSON whatever Content-Type the client sent (every body of this API is JSON; `curl -d` sends a
 * form type), so the route validators parse it and malformed JSON is a 400, never a 415 or 500.
 * A GET or HEAD is served as if it had no body; a body that breaks off mid-read is a 400.
 */
export const readBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const raw = c.req.raw;
  if (raw.body === null) return next();
  const headers = new Headers(raw.headers);
  headers.delete("content-length");
  if (raw.method === "GET" || raw.method === "HEAD") {
    await raw.body.cancel().catch(() => {});
    headers.delete("transfer-encoding");
    c.req.raw = new Request(raw.url, { method: raw.method, headers });
    return next();
  }
  const max = c.req.path === "/transactions/batch" ? MAX_BATCH_BODY_BYTES : MAX_BODY_BYTES;
  const length = raw.headers.get("content-length");
  const declared = Number(length ?? "0");
  if (declared > max) throw errors.bodyTooLarge();
  // With a Content-Length alone the runtime delivers exactly that many bytes (it ends a shorter
  // stream with an error): one native read. Otherwise (chunked, or both) the count is kept while
  // reading, so no more than the limit is ever held.
  const framed = length !== null && !raw.headers.has("transfer-encoding");
  const bytes = framed ? await readWhole(raw, max) : await readLimited(raw.body, max);
  headers.set("content-type", "application/json");
  c.req.raw = new Request(raw.url, { method: raw.method, headers, body: bytes });
  await next();
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

async function readLimited(body: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      throw errors.unreadableBody();
    }
    if (chunk.done) break;
    size += chunk.value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw errors.bodyTooLarge();
    }
    chunks.push(chunk.value);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
