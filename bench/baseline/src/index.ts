// The benchmark's baseline: the least a Worker can do for each thing the service does.
//   GET  /plain          a plain Hono route with a constant SVG body (the cached badge's floor)
//   GET  /read/:id       one D1 point read by primary key (GET /score's floor)
//   POST /write/:id      a Durable Object (one per id) that writes a D1 batch of an INSERT and an
//                        UPDATE, queued one at a time like the agent scorer (POST /transactions' floor)
//   POST /write-direct/:id  the same D1 batch straight from the Worker, no object: the write
//                        ceiling of one D1 database (it runs one write transaction at a time)
import { DurableObject } from "cloudflare:workers";
import { Hono } from "hono";

interface Env {
  DB: D1Database;
  WRITER: DurableObjectNamespace<Writer>;
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

export default app;
