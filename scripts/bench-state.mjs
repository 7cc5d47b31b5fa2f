// What a running local service holds, read from its --persist-to directory (wrangler dev's SQLite
// files), not through the service: the Durable Objects' own SQLite size per class, and the shards'
// history entries by kind and agent rows. The benchmark reads it between phases, so it counts what
// reached storage whatever the objects do inside (read-only connections: SQLite's WAL lets a reader
// look while workerd writes).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const sqliteFiles = (dir) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite").map((f) => join(dir, f)) : []);

function withDatabase(file, read) {
  let db;
  try {
    db = new DatabaseSync(file, { readOnly: true });
    return read(db);
  } catch {
    return null; // being created, or not a database of this kind
  } finally {
    db?.close();
  }
}

/**
 * The SQLite storage of every object of a class (`className`, e.g. "Agent"): how many objects have
 * storage and their bytes (page count x page size: what the platform bills an object's storage by).
 */
export function objectStorage(persistTo, className) {
  const root = join(persistTo, "v3", "do");
  const dirs = existsSync(root) ? readdirSync(root).filter((d) => d.endsWith(`-${className}`)) : [];
  let objects = 0;
  let bytes = 0;
  for (const file of dirs.flatMap((d) => sqliteFiles(join(root, d)))) {
    const size = withDatabase(file, (db) => db.prepare("PRAGMA page_count").get().page_count * db.prepare("PRAGMA page_size").get().page_size);
    if (size === null) continue;
    objects += 1;
    bytes += size;
  }
  return { objects, bytes };
}

/** Across every local D1 database with an `entries` table (the shards): entries by kind, and agent rows. */
export function shardHistory(persistTo) {
  const byKind = {};
  let agents = 0;
  let shards = 0;
  for (const file of sqliteFiles(join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject"))) {
    const found = withDatabase(file, (db) => {
      const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name));
      if (!tables.has("entries")) return null;
      return {
        kinds: db.prepare("SELECT kind, count(*) AS n FROM entries GROUP BY kind").all(),
        agents: tables.has("agents") ? db.prepare("SELECT count(*) AS n FROM agents").get().n : 0,
      };
    });
    if (!found) continue;
    shards += 1;
    agents += found.agents;
    for (const { kind, n } of found.kinds) byKind[kind] = (byKind[kind] ?? 0) + n;
  }
  return { shards, agents, byKind };
}

/** What was added between two readings of shardHistory: entries by kind. */
export function entriesAdded(before, after) {
  const out = {};
  for (const [kind, n] of Object.entries(after.byKind)) {
    const added = n - (before.byKind[kind] ?? 0);
    if (added !== 0) out[kind] = added;
  }
  return out;
}
