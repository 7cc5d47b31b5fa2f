import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { etag } from "hono/etag";
import type { AppEnv } from "./context";

// Public reads (public score, badges, attestations, JWKS, status lists, A2A extensions, the OpenAPI
// documents, the agents' public pages, the transparency log's keys, checkpoints and tiles) are made
// for web pages: any origin may read them, preflights are answered without touching the limits, and
// conditional requests get 304. Keyed routes send no CORS headers at all (keys are never for
// browsers) and are never cached.

const PUBLIC_READ =
  /^\/(?:score\/[^/]+\/(?:public|attestation)|badge\/[^/]+|status\/[^/]+|agents\/[^/]+|\.well-known\/jwks\.json|openapi(?:-b)?\.json|agents\/[^/]+\/(?:a2a-extension|ai-catalog)|a2a\/extensions\/[^/]+\/v1|ai-catalog\/attestations\/[^/]+\/v1|log\/keys|log\/[^/]+\/(?:checkpoint|tile\/.+))$/;

export const isPublicRead = (path: string) => PUBLIC_READ.test(path);

const corsForPublicReads = cors({
  origin: "*",
  allowMethods: ["GET", "HEAD", "OPTIONS"],
  allowHeaders: ["API-Version", "If-None-Match", "X-Request-Id"],
  exposeHeaders: ["ETag", "X-Request-Id", "Retry-After"],
  maxAge: 86_400,
});
/** ETag and 304 on If-None-Match (Hono's, its SHA-1 of the body unless the answer carries an ETag). */
export const conditional = etag();

/** CORS and ETag on public reads only; `Cache-Control: no-store` on every answer that set no policy. */
export const publicReads: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!isPublicRead(c.req.path)) {
    await next();
    noStore(c.res);
    return;
  }
  // A preflight is answered by the CORS middleware itself, before any limit counts it.
  const preflight = await corsForPublicReads(c, async () => {
    await conditional(c, next);
  });
  if (preflight) return preflight;
  noStore(c.res);
};

function noStore(res: Response) {
  if (res.headers.has("cache-control")) return;
  try {
    res.headers.set("Cache-Control", "no-store");
  } catch {
    // Immutable headers: a response straight from a cache, which carries its own policy.
  }
}
