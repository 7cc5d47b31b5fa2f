// The benchmark's baseline: the least a Worker can do for each thing the service does.
//   GET  /plain          a plain Hono route with a constant SVG body (the cached badge's floor)
//   GET  /read/:id       one D1 point read by primary key (GET /score's floor)
//   POST /write/:id      a Durable Object (one per id) that writes a D1 batch of an INSERT and an
//                        UPDATE, queued one at a time like the agent scorer (POST /transactions' floor)
//   POST /write-direct/:id  the same D1 batch straight from the Worker, no object: the write
//                        ceiling of one D1 database (it runs one write transaction at a time)
//   POST /full/write/:id the fuller baseline: /write/:id behind authentication from a cached key
//                        (like src/http/key-cache.ts: the presented key looked up in an isolate
//                        cache, SHA-256 and a D1 read only on a miss), and the object sends one
//                        queue message after its batch commits (the service's outbox)
import { DurableObject } from "cloudflare:workers";
import { Hono } from "hono";

interface Env {
  DB: D1Database;
  WRITER: DurableObjectNamespace<Writer>;
  OUTBOX: Queue<{ id: string; event: number }>;
}

// About the size of a real badge (~1.1 KB).
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="116" height="20" role="img" aria-label="baseline">${"<g/>".repeat(250)}</svg>`;

export class Writer extends DurableObject<Env> {
  private tail: Promise<unknown> = Promise.resolve();

  write(id: string): Promise<{ id: number; counter: number }> {
    // The same serialisation as the agent scorer: D1 is not this object's storage, so its input
    // gate opens while the batch is awaited; a promise chain keeps the writes in order.
    const run = this.tail.then(() => this.commit(id));
    this.tail = run.catch(() => undefined);
    return run;
  }

  private commit(id: string) {
    return writeBatch(this.env.DB, id);
  }

  /** The fuller baseline's write: the same batch, then one queue message for what it committed. */
  writeAndSend(id: string): Promise<{ id: number; counter: number }> {
    const run = this.tail.then(async () => {
      const result = await writeBatch(this.env.DB, id);
      await this.env.OUTBOX.send({ id, event: result.id }, { contentType: "json" });
      return result;
    });
    this.tail = run.catch(() => undefined);
    return run;
  }
}

// The fuller baseline's key cache, per isolate, keyed by the presented key (as the service's).
interface CachedKey {
  operatorId: number;
  scopes: string[];
  loadedAt: number;
}
const KEY_MAX_AGE_MS = 5 * 60_000;
const keys = new Map<string, CachedKey>();

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function authenticate(DB: D1Database, header: string | undefined): Promise<CachedKey | null> {
  const key = header?.startsWith("Bearer ") ? header.slice(7) : null;
  if (!key) return null;
  const hit = keys.get(key);
  if (hit && Date.now() - hit.loadedAt < KEY_MAX_AGE_MS) return hit;
  const row = await DB.prepare("SELECT operator_id, scopes FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL")
    .bind(await sha256Hex(key))
    .first<{ operator_id: number; scopes: string }>();
  if (!row) return null;
  const entry = { operatorId: row.operator_id, scopes: JSON.parse(row.scopes) as string[], loadedAt: Date.now() };
  keys.set(key, entry);
  return entry;
}

/** One D1 batch (one SQL transaction): an INSERT and an UPDATE, like the scorer's write. */
async function writeBatch(DB: D1Database, id: string) {
  const now = new Date().toISOString();
  const [inserted, updated] = await DB.batch([
    DB.prepare("INSERT INTO events (item_id, kind, value, created_at) VALUES (?, 'write', ?, ?) RETURNING id").bind(id, Math.random(), now),
    DB.prepare("UPDATE items SET counter = counter + 1, updated_at = ? WHERE id = ? RETURNING counter").bind(now, id),
  ]);
  return {
    id: (inserted.results[0] as { id: number }).id,
    counter: (updated.results[0] as { counter: number } | undefined)?.counter ?? 0,
  };
}

const app = new Hono<{ Bindings: Env }>();

app.get("/plain", (c) => c.body(SVG, 200, { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=300, s-maxage=300" }));

app.get("/read/:id", async (c) => {
  const row = await c.env.DB.prepare("SELECT * FROM items WHERE id = ?").bind(c.req.param("id")).first();
  return row ? c.json(row) : c.json({ error: "not found" }, 404);
});

app.post("/write/:id", async (c) => {
  const id = c.req.param("id");
  await c.req.json(); // the service parses a JSON body of the same size
  const result = await c.env.WRITER.getByName(id).write(id);
  return c.json(result, 201);
});

app.post("/write-direct/:id", async (c) => {
  await c.req.json();
  return c.json(await writeBatch(c.env.DB, c.req.param("id")), 201);
});

app.post("/full/write/:id", async (c) => {
  const key = await authenticate(c.env.DB, c.req.header("authorization"));
  if (!key?.scopes.includes("report")) return c.json({ error: "Unauthorized" }, 401);
  const id = c.req.param("id");
  await c.req.json();
  return c.json(await c.env.WRITER.getByName(`full:${id}`).writeAndSend(id), 201);
});

export default {
  fetch: app.fetch,
  // The outbox's consumer: acknowledges each batch (returning acknowledges every message).
  async queue(_batch: MessageBatch<unknown>): Promise<void> {},
} satisfies ExportedHandler<Env>;
