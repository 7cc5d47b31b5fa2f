// Public reads kept at the edge: the Cache API (per data centre) under a synthetic key, so the host
// name a client used does not split the cache, and in front of it each isolate's memo of what it
// served lately: a Cache API lookup leaves the isolate, and for a hot key that round trip is most of
// the request (docs/performance.md). Badges and attestations use it.

import { digestHex } from "../domain/identifiers";

const MEMO_TTL_MS = 30_000;
const MEMO_MAX_ENTRIES = 2_000;

interface Memo {
  body: string;
  status: number;
  headers: [string, string][];
  expires: number;
}
/** This isolate's recent answers by cache key; insertion order is age order, so eviction is FIFO. */
const MEMO = new Map<string, Memo>();

const maxAgeOf = (headers: Headers) => Number(/max-age=(\d+)/.exec(headers.get("cache-control") ?? "")?.[1] ?? "0");

function remember(key: string, body: string, status: number, headers: Headers, maxAgeLeftMs: number) {
  if (MEMO.size >= MEMO_MAX_ENTRIES) MEMO.delete(MEMO.keys().next().value as string);
  const kept = [...headers].filter(([name]) => name !== "age" && name !== "cf-cache-status");
  MEMO.delete(key);
  MEMO.set(key, { body, status, headers: kept, expires: Date.now() + Math.min(MEMO_TTL_MS, maxAgeLeftMs) });
}

function recall(key: string): Response | null {
  const memo = MEMO.get(key);
  if (!memo) return null;
  if (memo.expires <= Date.now()) {
    MEMO.delete(key);
    return null;
  }
  return new Response(memo.body, { status: memo.status, headers: memo.headers });
}

/** The cached answer (this isolate's memo, then the Cache API), or null. */
export async function cachedAnswer(key: string): Promise<Response | null> {
  const recalled = recall(key);
  if (recalled) return recalled;
  const hit = await caches.default.match(key);
  if (!hit) return null;
  const body = await hit.text();
  const age = Number(hit.headers.get("age") ?? "0");
  const maxAge = maxAgeOf(hit.headers);
  remember(key, body, hit.status, hit.headers, (maxAge - (Number.isFinite(age) ? age : maxAge)) * 1000);
  return new Response(body, { status: hit.status, headers: hit.headers });
}

/** The ETag Hono's etag middleware gives a body: the quoted hex SHA-1 of its bytes. */
const etagOf = async (body: string) => `"${await digestHex("SHA-1", body)}"`;

/**
 * Keeps a fresh answer in the edge cache and this isolate's memo, for its own max-age. A success
 * is kept with its ETag, so the etag middleware finds it on every hit instead of hashing the body
 * again.
 */
export async function storeAnswer(waitUntil: (p: Promise<unknown>) => void, key: string, response: Response): Promise<Response> {
  const body = await response.text();
  if (response.ok && !response.headers.has("etag")) {
    response = new Response(body, response);
    response.headers.set("ETag", await etagOf(body));
  }
  waitUntil(caches.default.put(key, new Response(body, response)));
  remember(key, body, response.status, response.headers, maxAgeOf(response.headers) * 1000);
  return new Response(body, response);
}

/** Drops an answer from this isolate's memo and this data centre's cache. */
export async function dropAnswer(key: string): Promise<void> {
  MEMO.delete(key);
  await caches.default.delete(key);
}
