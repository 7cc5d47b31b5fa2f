import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { errors } from "../domain/errors";
import { parseLogSigningKeys, verifierKeys } from "../domain/log/keys";
import { parseTilePath } from "../domain/log/tiles";
import { logCount } from "../env";
import type { AppEnv } from "../http/context";
import { logOriginOf } from "../http/log-origin";
import { CHECKPOINT_CACHE, storedCheckpoint, storedTile, tileCacheControl } from "../http/log-reads";
import { EXAMPLE_CHECKPOINT, EXAMPLE_ORIGIN, EXAMPLE_VERIFIER_KEY, logKeysSchema, type LogKeys } from "../http/wire/log";
import { createRoute, errorResponses, json, publicAccess } from "./openapi";

// The transparency log's public reads (docs/transparency.md): GET /log/keys, and per log the C2SP
// tlog-tiles API, GET /log/{n}/checkpoint and GET /log/{n}/tile/..., read from R2 through the edge
// cache (src/http/log-reads.ts), never from the sequencers.

const KEYS_MAX_AGE_S = 300;
const cacheKey = (path: string) => `https://log.cache${path}`;

const keysOf = new WeakMap<object, Promise<LogKeys | null>>();

/** Every log's verifier keys, built once per isolate; 503 when LOG_SIGNING_KEYS is missing or invalid. */
async function logKeys(c: Context<AppEnv>): Promise<LogKeys> {
  let built = keysOf.get(c.env);
  if (!built) {
    built = (async () => {
      const keys = await parseLogSigningKeys(c.env.LOG_SIGNING_KEYS);
      if (!keys.ok) {
        console.error(JSON.stringify({ level: "error", message: "log keys not published", problem: keys.problem, request_id: c.get("requestId") }));
        return null;
      }
      const logs = Array.from({ length: logCount(c.env) }, (_, n) => n);
      return {
        logs: await Promise.all(
          logs.map(async (log) => {
            const origin = await logOriginOf(c, log);
            return { log, origin, verifier_keys: await verifierKeys(keys.keys, origin) };
          }),
        ),
      };
    })();
    keysOf.set(c.env, built);
    // A log that could not be asked its origin is asked again by the next request.
    built.catch(() => keysOf.delete(c.env));
  }
  const keys = await built;
  if (!keys) throw errors.logNotConfigured();
  return keys;
}

/** The log number of the path, or the refusal. */
function logNumber(c: Context<AppEnv>, raw: string): number {
  const count = logCount(c.env);
  if (!/^(?:0|[1-9][0-9]{0,5})$/.test(raw)) throw errors.badLogNumber(count);
  const n = Number(raw);
  if (n >= count) throw errors.unknownLog(count);
  return n;
}

/** A cached answer, with headers the middleware may still set (CORS). */
async function fromCache(key: string): Promise<Response | null> {
  const hit = await caches.default.match(key);
  return hit ? new Response(hit.body, hit) : null;
}

function keep(c: Context<AppEnv>, key: string, response: Response): Response {
  c.executionCtx.waitUntil(caches.default.put(key, response.clone()));
  return response;
}

const logParam = z.object({
  log: z.string().openapi({ param: { name: "log", in: "path" }, description: "The log's number, 0 to LOG_COUNT-1", example: "0" }),
});

const keysRoute = createRoute({
  method: "get",
  path: "/log/keys",
  operationId: "getLogKeys",
  tags: ["Transparency log"],
  summary: "The logs, their origins and the keys their checkpoints are signed with",
  description: "Every key of a rotation signs every checkpoint; a verifier pins one. Cached 5 minutes.",
  security: publicAccess,
  responses: {
    200: json(logKeysSchema, "The logs and their verifier keys", { logs: [{ log: 0, origin: EXAMPLE_ORIGIN, verifier_keys: [EXAMPLE_VERIFIER_KEY] }] }),
    ...errorResponses(400, errors.logNotConfigured()),
  },
});

const checkpointRoute = createRoute({
  method: "get",
  path: "/log/{log}/checkpoint",
  operationId: "getLogCheckpoint",
  tags: ["Transparency log"],
  summary: "The log's latest checkpoint: a C2SP tlog-checkpoint signed note (origin, tree size, root hash)",
  description: "Cached 2 seconds. Verify it with a key of GET /log/keys (the key name is the log's origin).",
  security: publicAccess,
  request: { params: logParam },
  responses: {
    200: { description: "The signed checkpoint", content: { "text/plain": { schema: z.string(), example: EXAMPLE_CHECKPOINT } } },
    ...errorResponses(errors.badLogNumber(1), errors.unknownLog(1)),
  },
});

const tileRoute = createRoute({
  method: "get",
  path: "/log/{log}/tile/{level}/{index}",
  operationId: "getLogTile",
  tags: ["Transparency log"],
  summary: "A tile of the log's Merkle tree, or an entry bundle (C2SP tlog-tiles)",
  description:
    "`level` is 0 to 63 (tiles of 256 hashes, height 8) or `entries` (bundles of 256 leaves, each a big-endian uint16 length " +
    "and the leaf's RFC 8785 JSON). `index` is written in three-digit path segments, all but the last prefixed with x " +
    "(1234067: `x001/x234/067`), then `.p/<W>` for a partial tile of W (1-255). Full tiles are immutable and cached a year; " +
    "partial ones a minute. A tile the current tree does not reach is 404.",
  security: publicAccess,
  request: {
    params: logParam.extend({
      level: z.string().openapi({ param: { name: "level", in: "path" }, description: "0 to 63, or entries", example: "0" }),
      index: z
        .string()
        .openapi({ param: { name: "index", in: "path" }, description: "N in three-digit groups, then .p/<W> when partial", example: "x001/234.p/17" }),
    }),
  },
  responses: {
    200: {
      description: "The tile's hashes (32 bytes each) or the bundle's entries",
      content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
    },
    ...errorResponses(errors.badTilePath(), errors.tileBeyondTree(1234)),
  },
});

export function registerLog(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerPath(checkpointRoute);
  app.openAPIRegistry.registerPath(tileRoute);

  app.openapi(keysRoute, async (c) => c.json(await logKeys(c), 200, { "Cache-Control": `public, max-age=${KEYS_MAX_AGE_S}` }));

  app.get("/log/:log/checkpoint", async (c) => {
    const n = logNumber(c, c.req.param("log"));
    const key = cacheKey(`/log/${n}/checkpoint`);
    const hit = await fromCache(key);
    if (hit) return hit;
    const stored = await storedCheckpoint(c.env.LOG_BUCKET, n);
    if (!stored) throw errors.noCheckpoint();
    const headers = { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": CHECKPOINT_CACHE, ETag: stored.etag };
    return keep(c, key, new Response(stored.note, { headers }));
  });

  // A tile's N spans path segments (x001/x234/067): the route takes the rest of the path.
  app.get("/log/:log/tile/*", async (c) => {
    const n = logNumber(c, c.req.param("log"));
    const path = c.req.path.slice(`/log/${c.req.param("log")}/`.length);
    const tile = parseTilePath(path);
    if (!tile) throw errors.badTilePath();
    const key = cacheKey(`/log/${n}/${path}`);
    const hit = await fromCache(key);
    if (hit) return hit;
    const answer = await storedTile(c.env.LOG_BUCKET, n, tile);
    if (!answer.found) throw answer.size === null ? errors.noCheckpoint() : errors.tileBeyondTree(answer.size);
    const headers = { "Content-Type": "application/octet-stream", "Cache-Control": tileCacheControl(tile), ETag: answer.etag };
    return keep(c, key, new Response(answer.bytes, { headers }));
  });
}
